"""posenc.measure: the benchmark scripts' helpers count memory exactly, save results outside the
installed package by default, and refuse bad input with an error naming the argument.

No test compares wall-clock times: the timing helpers run on a fake clock whose durations are known."""

import ast
import json
from pathlib import Path

import pytest
import torch

import posenc
from posenc import measure
from posenc.measure import (
    RESULTS_DIR,
    TensorMemory,
    attention_cost,
    describe_machine,
    interleaved_rounds,
    known_results,
    load_average,
    load_results,
    machine,
    matmul_flops,
    median_seconds,
    ratio_spread,
    round_ratios,
    save_results,
    shaw_peak_memory,
    tensor_peak_mib,
)

HUGE = 10**9  # sizes whose results cannot fit in memory: refused before allocating

BAD_CALLS = [
    # (call, exception, the argument the message must name)
    (lambda: median_seconds(3), TypeError, "fn"),
    (lambda: median_seconds(lambda: None, repeat=0), ValueError, "repeat"),
    (lambda: median_seconds(lambda: None, warmup=-1), ValueError, "warmup"),
    (lambda: median_seconds(lambda: None, repeat=2.5), TypeError, "repeat"),
    (lambda: interleaved_rounds({}), TypeError, "calls"),
    (lambda: interleaved_rounds([lambda: None]), TypeError, "calls"),
    (lambda: interleaved_rounds({"a": 1}), TypeError, "calls['a']"),
    (lambda: interleaved_rounds({"a": lambda: None}, rounds=0), ValueError, "rounds"),
    (lambda: interleaved_rounds({"a": lambda: None}, repeat=0), ValueError, "repeat"),
    (lambda: interleaved_rounds({"a": lambda: None}, on_round="print"), TypeError, "on_round"),
    (lambda: round_ratios([1.0], [1.0, 2.0]), ValueError, "rounds"),
    (lambda: round_ratios([], []), TypeError, "times"),
    (lambda: round_ratios([1.0], [0.0]), ValueError, "base"),
    (lambda: ratio_spread([]), TypeError, "ratios"),
    (lambda: ratio_spread([1.0], of=2), TypeError, "of"),
    (lambda: tensor_peak_mib(torch.zeros(3)), TypeError, "fn"),
    (lambda: matmul_flops(None), TypeError, "fn"),
    (lambda: shaw_peak_memory("fast", 8), ValueError, "method"),
    (lambda: shaw_peak_memory(1, 8), TypeError, "method"),
    (lambda: shaw_peak_memory("naive", 0), ValueError, "length"),
    (lambda: shaw_peak_memory("naive", 8.0), TypeError, "length"),
    (lambda: shaw_peak_memory("naive", 8, heads=0), ValueError, "heads"),
    (lambda: shaw_peak_memory("naive", 8, head_dim=True), TypeError, "head_dim"),
    (lambda: shaw_peak_memory("naive", 8, k=0), ValueError, "k"),
    (lambda: shaw_peak_memory("naive", HUGE), ValueError, "length=1000000000"),
    (lambda: attention_cost("xpos", 64), ValueError, "method"),
    (lambda: attention_cost("alibi", -1), ValueError, "length"),
    (lambda: attention_cost("alibi", 64, heads=0), ValueError, "heads"),
    (lambda: attention_cost("alibi", 64, repeat=0), ValueError, "repeat"),
    (lambda: attention_cost("alibi", HUGE), ValueError, "length=1000000000"),
    (lambda: describe_machine("this one"), TypeError, "info"),
    (lambda: describe_machine({"cpu": "x"}), ValueError, "info"),
    (lambda: save_results("../escape", {}), ValueError, "name"),
    (lambda: save_results("", {}), ValueError, "name"),
    (lambda: save_results(3, {}), TypeError, "name"),
    (lambda: save_results("x", [1, 2]), TypeError, "results"),
    (lambda: save_results("x", {}, settings=[1]), TypeError, "settings"),
    (lambda: save_results("x", {}, out_dir=3), TypeError, "out_dir"),
    (lambda: load_results("warp_drive"), ValueError, "name"),
    (lambda: load_results(None), TypeError, "name"),
]


@pytest.mark.parametrize("call,exc,name", BAD_CALLS, ids=[f"bad{i}" for i in range(len(BAD_CALLS))])
def test_bad_input_raises_an_error_naming_the_argument(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value)


def test_huge_sizes_are_refused_before_allocating_with_the_limit_named():
    with TensorMemory() as counter:
        with pytest.raises(
            ValueError,
            match=r"positions=1000000000 asks for a tensor of shape \(1000000000, 128\) "
            r"\(2.86e\+03 GiB\); posenc refuses results above 8 GiB",
        ):
            posenc.rope_cos_sin(HUGE, 128)
    assert counter.peak == 0  # refused before any tensor was made (the table would be 2.86e3 GiB)


def test_tensor_memory_counts_new_storages_once_and_releases_them():
    before = torch.zeros(1000)  # existed before: never counted
    with TensorMemory() as counter:
        x = torch.empty(1024)  # 4096 bytes
        view = x[:10]  # a view: nothing new
        x.add_(1)  # in place: nothing new
        assert counter.current == counter.peak == 1024 * 4
        y = x + before[:1]  # a new storage, float32
        assert counter.current == counter.peak == 2 * 1024 * 4
        del y
        assert counter.current == 1024 * 4 and counter.peak == 2 * 1024 * 4
        counter.reset_peak()
        assert counter.peak == counter.current
        del x
        assert counter.current == 1024 * 4  # the view keeps the storage alive
        del view
        assert counter.current == 0
    assert counter.peak_mib == counter.peak / 2**20


def test_tensor_peak_mib_is_the_extra_peak_of_the_call():
    n = 2**18  # float32: 1 MiB
    assert tensor_peak_mib(lambda: torch.ones(n) * 2) == 2.0  # the ones and the product alive at once
    assert tensor_peak_mib(lambda: None) == 0.0


def test_the_global_counter_starts_stops_and_is_portable():
    measure.reset_peak_rss()
    kept = torch.ones(2**18)
    assert measure.current_rss_mib() == 1.0
    assert measure.peak_rss_mib() == 1.0
    assert measure.peak_rss_mib() == 0.0 and measure.current_rss_mib() == 0.0  # stopped
    del kept


class _FakeClock:
    """A ``time`` stand-in for posenc.measure.timing: ``perf_counter`` reads a counter that the timed
    calls advance by the durations they are given, so a median is known exactly (small integers)."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now

    def call(self, durations, log=None, name=None):
        durations = iter(durations)

        def fn():
            self.now += next(durations)
            if log is not None:
                log.append(name)

        return fn


def test_median_seconds_is_the_median_of_the_timed_runs_only(monkeypatch):
    from posenc.measure import timing

    clock = _FakeClock()
    monkeypatch.setattr(timing, "time", clock)
    # two warm-up runs of 1000 s (not timed), then five timed runs: the median is the third smallest
    assert median_seconds(clock.call([1000.0, 1000.0, 5.0, 1.0, 3.0, 100.0, 2.0]), repeat=5, warmup=2) == 3.0
    assert median_seconds(clock.call([4.0, 1.0]), repeat=2, warmup=0) == 2.5  # even count: the mean of the middle two
    assert median_seconds(clock.call([7.0]), repeat=1, warmup=0) == 7.0


def test_interleaved_rounds_time_each_call_once_per_round(monkeypatch):
    from posenc.measure import timing

    clock = _FakeClock()
    monkeypatch.setattr(timing, "time", clock)
    order, done = [], []
    # per round, each call runs warmup + repeat = 3 times; a run of "a" takes 2r s in round r (1-based),
    # of "b" 1 s: the medians are [2, 4, 6] and [1, 1, 1], and the per-round ratio to b is 2r
    calls = {"a": clock.call([2.0] * 3 + [4.0] * 3 + [6.0] * 3, order, "a"), "b": clock.call([1.0] * 9, order, "b")}
    times = interleaved_rounds(calls, rounds=3, repeat=2, warmup=1, on_round=done.append)
    assert times == {"a": [2.0, 4.0, 6.0], "b": [1.0, 1.0, 1.0]}
    assert order == (["a"] * 3 + ["b"] * 3) * 3  # round 1 of every call, then round 2, ...
    assert done == [1, 2, 3]
    assert round_ratios(times["a"], times["b"]) == [2.0, 4.0, 6.0]
    assert ratio_spread(round_ratios(times["a"], times["b"]), "b") == "4.00x b (rounds 2.00-6.00)"


def test_machine_is_described_in_one_line():
    info = machine()
    line = describe_machine(info)
    assert str(info["cores"]) in line and info["torch"] in line and "\n" not in line
    load = load_average()
    assert load is None or (len(load) == 3 and all(x >= 0 for x in load))


def test_save_results_writes_to_the_working_directory_not_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shipped = {p.name: p.stat().st_mtime_ns for p in RESULTS_DIR.glob("*.json")}
    path = save_results("rope", {"seconds": [1.0]}, settings={"repeat": 3})
    assert path == Path("results") / "bench_rope.json" and (tmp_path / path).is_file()
    saved = json.loads((tmp_path / path).read_text(encoding="utf-8"))
    assert saved == {"machine": saved["machine"], "settings": {"repeat": 3}, "results": {"seconds": [1.0]}}
    assert saved["machine"]["cores"] == machine()["cores"]
    other = save_results("my-run_2", {}, out_dir=tmp_path / "elsewhere" / "deep")
    assert other == tmp_path / "elsewhere" / "deep" / "bench_my-run_2.json" and other.is_file()
    assert {p.name: p.stat().st_mtime_ns for p in RESULTS_DIR.glob("*.json")} == shipped
    with pytest.raises(TypeError):
        save_results("broken", {"x": object()})  # not JSON: nothing written
    assert not (tmp_path / "results" / "bench_broken.json").exists()


def test_shipped_results_load_and_name_their_machine():
    names = known_results()
    assert {"attention", "linear", "rope", "shaw"} <= set(names)
    for name in names:
        saved = load_results(name)
        assert set(saved) == {"machine", "settings", "results"}
        assert str(saved["machine"]["cores"]) in describe_machine(saved["machine"])
    with pytest.raises(ValueError) as info:
        load_results("warp_drive")
    assert all(repr(n) in str(info.value) for n in names), "the message lists the known names"


def test_measure_and_book_use_the_library_through_top_level_posenc_only():
    """Tooling imports ``posenc`` and ``posenc._core.validate``, never a library module directly."""
    root = Path(__file__).resolve().parents[1] / "posenc"
    for path in sorted([*(root / "measure").glob("*.py"), *(root / "book").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert node.level <= 1, (path.name, node.module)  # relative: its own subpackage only
                if node.level == 0 and node.module.split(".")[0] == "posenc":
                    assert node.module in ("posenc", "posenc._core.validate"), (path.name, node.module)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name == "posenc" or not alias.name.startswith("posenc"), (path.name, alias.name)
                    assert alias.name not in ("resource", "fcntl", "pwd", "grp", "termios"), (path.name, alias.name)
