"""posenc.practice: every mutant is rejected with its own diagnosis, every correct solution passes.

The mutants and the differently computed correct solutions live in ``tests/practice_mutants.py``.
``python tests/test_practice.py`` prints, per task, the mutants killed, the mutants diagnosed
correctly and the correct variants accepted: the tests assert the same, task by task.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from practice_mutants import CORRECT, MUTANTS  # noqa: E402

import posenc  # noqa: E402
from posenc import practice  # noqa: E402
from posenc.practice import TASKS, check  # noqa: E402
from posenc.practice.running import _STILL_RUNNING, WALL_FACTOR  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PRACTICE_NOTEBOOKS = sorted((ROOT / "notebooks").glob("practice_*.ipynb"))

# the contract's ten tasks (../shared/posenc-api.md, section "practice")
CONTRACT = (
    "sinusoidal_encoding",
    "rope_inv_freq",
    "rope_cos_sin",
    "apply_rope_half",
    "apply_rope_interleaved",
    "alibi_slopes",
    "alibi_bias",
    "t5_relative_bucket",
    "shaw_relative_index",
    "yarn_inv_freq",
)


def test_contract_tasks_are_there():
    assert set(CONTRACT) <= set(TASKS)
    assert set(MUTANTS) == set(TASKS) == set(CORRECT)


@pytest.mark.parametrize("task", TASKS)
def test_reference_and_correct_variants_pass(task):
    r = check(task, practice.reference(task))
    assert r.passed and r.diagnoses == [], str(r)
    assert CORRECT[task], "at least one differently computed correct solution"
    for fn in CORRECT[task]:
        r = check(task, fn)
        assert r.passed, f"{getattr(fn, '__name__', fn)} is correct but was rejected:\n{r}"
        assert r.diagnoses == []


@pytest.mark.parametrize("task", TASKS)
def test_every_mutant_is_rejected_with_its_own_diagnosis(task):
    """Every mutant is rejected, and named by its expected diagnosis; mutants expecting different
    diagnoses get different ones (not one generic "wrong")."""
    assert len(MUTANTS[task]) >= 5, "at least five known-wrong implementations per task"
    seen: dict[str, str] = {}
    for expected, fn in MUTANTS[task]:
        r = check(task, fn)
        assert not r.passed, f"{fn.__name__} survived"
        assert r.diagnoses, f"{fn.__name__}: failed without a diagnosis"
        assert expected in r.diagnoses[0], f"{fn.__name__}: expected {expected!r}, got {r.diagnoses}"
        assert r.diagnoses[0] in str(r) and "✗" in str(r)
        seen.setdefault(expected, r.diagnoses[0])
    texts = list(seen.values())
    assert len(set(texts)) == len(texts), seen


def test_named_diagnoses_of_the_issue():
    """The mistakes issue 31 names are diagnosed in these words."""
    from practice_mutants import (
        attn_once,
        cs_fp16,
        half_clockwise,
        inter_as_half,
        sin_from_one,
        sin_i_over_d,
        slopes_any_n,
        slopes_linear,
        t5_q_minus_k,
        yarn_reversed,
    )

    cases = [
        ("apply_rope_half", half_clockwise, "your rotation is clockwise (R_{-m})"),
        ("sinusoidal_encoding", sin_i_over_d, "frequencies use base^(-i/d) instead of base^(-2i/d)"),
        ("apply_rope_interleaved", inter_as_half, "interleaved pairs applied with the half layout"),
        ("sinusoidal_encoding", sin_from_one, "positions start at 1"),
        ("rope_cos_sin", cs_fp16, "angles computed in float16"),
        ("alibi_slopes", slopes_linear, "ALiBi slopes linear in the head index"),
        ("alibi_slopes", slopes_any_n, "non-power-of-two heads: the extra slopes come from 2c heads"),
        ("t5_relative_bucket", t5_q_minus_k, "T5 relative position taken as query − key"),
        ("yarn_inv_freq", yarn_reversed, "YaRN ramp reversed"),
        ("attention", attn_once, "the logits scaled by attention_scaling once instead of by its square"),
    ]
    for task, fn, words in cases:
        assert words in check(task, fn).diagnoses[0]


def test_float32_angles_pass_and_bfloat16_angles_are_diagnosed():
    def hf_float32(positions, head_dim, base=10000.0):  # what Hugging Face computes
        pos = torch.arange(positions) if isinstance(positions, int) else positions
        inv = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim)
        emb = pos.float()[:, None] @ inv[None, :]
        emb = torch.cat([emb, emb], -1)
        return emb.cos(), emb.sin()

    assert check("rope_cos_sin", hf_float32).passed

    def bf16(positions, head_dim, base=10000.0):
        c, s = hf_float32(positions, head_dim, base)
        pos = torch.arange(positions) if isinstance(positions, int) else positions
        ang = pos.to(torch.bfloat16).float()[:, None] * (1.0 / base ** (torch.arange(0, head_dim, 2) / head_dim))
        ang = torch.cat([ang, ang], -1)
        return ang.cos(), ang.sin()

    assert check("rope_cos_sin", bf16).diagnoses == ["angles computed in bfloat16"]


def test_not_implemented_reports_and_raises_nothing():
    def skeleton(*args, **kwargs):
        raise NotImplementedError("write me")

    for task in TASKS:
        r = check(task, skeleton)
        assert not r.passed and r.diagnoses == ["not implemented yet"] and not r.implemented
        assert "not implemented yet" in str(r) and "not implemented yet" in r._repr_html_()


@pytest.mark.parametrize(
    "fn",
    [
        lambda *a, **k: 1 / 0,
        lambda *a, **k: None,
        lambda *a, **k: "text",
        lambda *a, **k: (torch.zeros(1),) * 3,
        lambda *a, **k: torch.full((2,), float("nan")),
    ],
    ids=["raises", "none", "string", "tuple", "nan"],
)
def test_a_crashing_or_odd_function_fails_without_raising(fn):
    for task in TASKS:
        r = check(task, fn)
        assert not r.passed and r.diagnoses
    assert "ZeroDivisionError" in check("rope_inv_freq", lambda *a: 1 / 0).diagnoses[0]


@pytest.mark.parametrize(
    "task",
    [
        "rope_inv_freq",
        "pi_inv_freq",
        "ntk_inv_freq",
        "yarn_inv_freq",
        "sinusoidal_encoding",
        "rope_cos_sin",
        "alibi_slopes",
        "attention",
    ],
)
def test_nan_anywhere_fails_with_a_nan_diagnosis(task):
    """The reference with NaN in all but its first entry (or in YaRN's attention_scaling) fails, and says NaN."""
    ref = practice.reference(task)

    def poison(t):
        t = t.clone()
        t.view(-1)[1:] = float("nan")
        return t

    def nan_tail(*a, **k):
        out = ref(*a, **k)
        if task == "yarn_inv_freq":
            return poison(out[0]), out[1]
        return tuple(poison(o) for o in out) if isinstance(out, tuple) else poison(out)

    r = check(task, nan_tail)
    assert not r.passed and r.diagnoses[0].startswith("your output contains NaN"), str(r)
    if task == "yarn_inv_freq":
        r = check(task, lambda *a: (ref(*a)[0], float("nan")))
        assert not r.passed and "attention_scaling" in r.diagnoses[0] and "NaN" in r.diagnoses[0], str(r)


def test_yarn_sweep_reaches_low_equal_high():
    """At least one YaRN input has low == high after rounding and clamping (Hugging Face's 0.001 guard)."""

    def low_high(d, base, factor, L0, bf, bs):
        def cdim(n):
            return d * math.log(L0 / (n * 2 * math.pi)) / (2 * math.log(base))

        return max(math.floor(cdim(bf)), 0), min(math.ceil(cdim(bs)), d - 1)

    pairs = [low_high(*c.args) for c in practice._tasks()["yarn_inv_freq"].cases()]
    assert any(lo == hi for lo, hi in pairs), pairs


def test_low_precision_is_told_apart_from_nan_and_from_a_cast_result():
    from practice_mutants import cs_all_nan, cs_cast_half, sin_all_nan, sin_cast_half

    for task, fn in [("sinusoidal_encoding", sin_all_nan), ("rope_cos_sin", cs_all_nan)]:
        assert "computed in" not in check(task, fn).diagnoses[0]
    for task, fn in [("sinusoidal_encoding", sin_cast_half), ("rope_cos_sin", cs_cast_half)]:
        assert check(task, fn).diagnoses[0].split(":")[0].endswith("returned in float16")


def test_unknown_mistake_is_one_line_with_its_input_and_a_picture():
    def off(x, cos, sin):
        return posenc.apply_rope(x, cos, sin) + 0.01  # a constant added: no known mistake (x 1.01 is named)

    r = check("apply_rope_half", off)
    assert len(r.diagnoses) == 1 and r.diagnoses[0].startswith(practice.UNKNOWN), r.diagnoses
    assert "smallest failing input: x [1, 2] float32, positions [0]" in r.diagnoses[0]
    assert r.picture is not None and "posenc-practice-picture" in r._repr_html_()


def test_smallest_failing_input_is_one_where_the_output_is_wrong():
    """Issue 39, round 2: right at offset 0 and wrong after it, so the decode-step property fails on an offset-0
    input; the diagnosis names the first input where the output itself is wrong, and the picture is drawn there."""
    ref = practice.reference("apply_rope_offset")

    def off(x, offset, base=10000.0):
        return ref(x, offset, base) + (0.0 if offset == 0 else 0.01)

    r = check("apply_rope_offset", off)
    assert r.diagnoses[0].startswith(practice.UNKNOWN), r.diagnoses
    cases = practice._tasks()["apply_rope_offset"].cases()
    first_wrong = next(c for c in cases if c.args[1] != 0)
    assert r.diagnoses[0].endswith(
        f"smallest failing input: {first_wrong.label} (the picture below shows got − expected there)"
    ), r.diagnoses
    assert r.picture is not None and r.picture["where"] == first_wrong.label


def test_attention_mask_whose_weight_underflows_passes_as_the_statement_says():
    """practice_4's statement: a finite mask value whose weight underflows to 0 in float32 passes; 0 does not."""

    def masked_with(value):
        def fn(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
            if cos is not None:
                c, s = cos * attention_scaling, sin * attention_scaling
                q, k = (
                    t * c + torch.cat([-t[..., t.shape[-1] // 2 :], t[..., : t.shape[-1] // 2]], -1) * s for t in (q, k)
                )
            L = q.shape[-2]
            w = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + (0 if bias is None else bias)
            return w.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), value).softmax(-1) @ v

        return fn

    for value in (-1e3, -1e4, -1e9, torch.finfo(torch.float32).min):
        assert check("attention", masked_with(value)).passed, value
    assert not check("attention", masked_with(0.0)).passed


def test_learned_lookup_refuses_only_with_value_or_index_error():
    from practice_mutants import learned_assert, learned_typo

    assert "AssertionError" in check("learned_lookup", learned_assert).diagnoses[0]
    assert "NameError" in check("learned_lookup", learned_typo).diagnoses[0]


def test_not_implemented_names_the_helper_that_raised():
    def rope_inv_freq(head_dim, base=10000.0):
        raise NotImplementedError

    def rope_cos_sin(positions, head_dim, base=10000.0):
        return rope_inv_freq(head_dim, base)

    r = check("rope_cos_sin", rope_cos_sin)
    assert not r.implemented and r.diagnoses == ["not implemented yet"]
    assert "rope_inv_freq()" in str(r) and "rope_inv_freq()" in r._repr_html_()
    r = check("rope_inv_freq", rope_inv_freq)
    assert "(your function raises NotImplementedError)" in str(r)


def test_check_validates_its_arguments():
    with pytest.raises(ValueError, match="rope_cos_sin") as e:
        check("rope", practice.reference("rope_inv_freq"))
    assert all(t in str(e.value) for t in CONTRACT)
    with pytest.raises(TypeError, match="fn"):
        check("rope_inv_freq", 3)
    with pytest.raises(ValueError, match="task"):
        practice.reference("nope")


def test_inputs_changed_in_place_are_named():
    """The caller's tensors are compared before and after each call: a right answer written into x fails."""

    def in_place(x, cos, sin):  # scribbles on its inputs, then answers right
        out = posenc.apply_rope(x.clone(), cos, sin)
        x.zero_()
        cos.zero_()
        return out

    r = check("apply_rope_half", in_place)
    assert not r.passed and "changes its input x and cos in place" in r.diagnoses[0], str(r)
    assert [row.ok for row in r.rows if row.name == "leaves its inputs unchanged"] == [False]
    assert check("apply_rope_half", practice.reference("apply_rope_half")).passed
    # and the cases themselves are untouched for the next check
    assert check("apply_rope_half", posenc.apply_rope).passed


def test_report_as_text_and_html():
    from practice_mutants import half_clockwise

    bad = check("apply_rope_half", half_clockwise)
    text, page = str(bad), bad._repr_html_()
    assert text.startswith("apply_rope_half: ✗") and "smallest failing input" in text
    table = page[: page.index("</table>")]
    assert table.count("<tr>") == len(bad.rows) + 1 and "✗" in table and "✓" in table
    assert "R_{-m}" in page and "<script" not in page
    assert re.search(r"<td[^>]*>x \[2, 4\] float32, positions \[0, 1\]</td>", page), "the smallest failing input"
    good = check("apply_rope_half", posenc.apply_rope)
    assert "✗" not in good._repr_html_() and "passed" in str(good)
    # html special characters in a learner's exception are escaped
    r = check("rope_inv_freq", lambda *a: (_ for _ in ()).throw(RuntimeError("<b>&")))
    assert "&lt;b&gt;&amp;" in r._repr_html_()


# ---- round 2 (issue 39): no misleading diagnosis, a name for near misses, limits, pictures ----------
def _detector(task, kind, fn):
    from posenc.practice.framework import _Crash
    from posenc.practice.precision import _CURRENT, _lowp

    t = practice._tasks()[task]
    cases = t.cases()
    outs = []
    for c in cases:
        try:
            outs.append(t.structure(c, fn(*c.args, **c.kwargs)))
        except Exception as e:  # noqa: BLE001
            outs.append(_Crash(str(e)))
    _CURRENT[0] = t
    return _lowp(kind)[1](cases, outs, list(range(len(cases))))


@pytest.mark.parametrize("kind", ["float16", "bfloat16"])
def test_low_precision_detectors_are_quiet_on_correct_angles(kind):
    """Run directly on correct functions (Hugging Face's float32, float64, exp-log), the detectors say no: the
    angle error is measured against the unwrapped p·θ, not the atan2 angle in [−π, π]."""
    from practice_mutants import cs_bf16, cs_complex, cs_float64, cs_fp16, cs_hf, sin_exp_log, sin_float64, sin_loops

    for fn in (cs_hf, cs_complex, cs_float64):
        assert not _detector("rope_cos_sin", kind, fn), fn.__name__
    for fn in (sin_exp_log, sin_float64, sin_loops):
        assert not _detector("sinusoidal_encoding", kind, fn), fn.__name__
    assert _detector("rope_cos_sin", kind, {"float16": cs_fp16, "bfloat16": cs_bf16}[kind])


def test_a_crash_is_named_as_a_crash_with_its_input_never_as_a_dtype():
    from practice_mutants import cs_int_only, cs_tensor_only, learned_min_on_empty, sin_assert_d4

    for task, fn, call in [
        ("rope_cos_sin", cs_int_only, "fn(positions=torch.tensor([5, 0, 17], dtype=torch.int64), head_dim=8"),
        ("rope_cos_sin", cs_tensor_only, "fn(positions=1 (an int), head_dim=2, base=10000.0)"),
        ("sinusoidal_encoding", sin_assert_d4, "fn(seq_len=1, d_model=2, base=10000.0)"),
        ("learned_lookup", learned_min_on_empty, "positions=torch.tensor([], dtype=torch.int64)"),
    ]:
        r = check(task, fn)
        assert not r.passed and all("computed in" not in d for d in r.diagnoses), r.diagnoses
        assert r.diagnoses[0].startswith("your function raised ") and call in r.diagnoses[0], r.diagnoses


def test_a_slow_function_is_stopped_at_the_time_limit(monkeypatch):
    import threading

    from posenc.practice import running

    release = threading.Event()

    def slow(head_dim, base=10000.0):
        release.wait(30)  # returns as soon as the test releases it
        return posenc.rope_inv_freq(head_dim, base)

    try:
        r = check("rope_inv_freq", slow, time_limit=0.2)
    finally:
        release.set()
    for thread in list(_STILL_RUNNING):  # the released call ends now: the next check counts CPU time again
        thread.join(5)
    assert not r.passed and r.diagnoses[0].startswith(
        f"your function did not finish within {WALL_FACTOR * 0.2:g} s of wall-clock time"
    )
    assert "(it waits, or the machine is busy) on input head_dim=2" in r.diagnoses[0]
    stop = threading.Event()

    def busy(head_dim, base=10000.0):  # computes until released: stopped by its CPU time
        x = 0
        while not stop.is_set():
            x += 1
        return posenc.rope_inv_freq(head_dim, base)

    # the CPU-time stop, with the wall-clock stop far away: on a loaded machine (make test's unit stage
    # runs at nice 10 beside the browsers) this thread can get less than 1/WALL_FACTOR of a core, and the
    # wall-clock stop would come first (stop 54's CI)
    monkeypatch.setattr(running, "WALL_FACTOR", 100.0)
    try:
        r = check("rope_inv_freq", busy, time_limit=0.2)
    finally:
        stop.set()
    monkeypatch.undo()
    assert not r.passed and "took more than 0.2 s of CPU time" in r.diagnoses[0]
    for bad in (0, -1.0, "1", True):
        with pytest.raises(ValueError, match="time_limit"):
            check("rope_inv_freq", posenc.rope_inv_freq, time_limit=bad)


def test_a_table_shorter_than_the_offset_is_a_failing_row():
    from practice_mutants import offset_short_table

    r = check("apply_rope_offset", offset_short_table)
    match = next(row for row in r.rows if row.name == "matches posenc")
    assert match.ok is False and "offset=5" in match.where, str(r)
    assert "table of L rows sliced at offset" in r.diagnoses[0]


def test_near_misses_are_named_with_how_near():
    from practice_mutants import attn_v_raw_tables, ntk_int_division

    r = check("ntk_inv_freq", ntk_int_division)
    assert r.diagnoses[0].startswith("integer division d // (d − 2)")  # named exactly, not as base·s
    r = check("attention", attn_v_raw_tables)
    assert re.match(r"your output is not exactly a known mistake, but it is much closer to this one", r.diagnoses[0])
    assert re.search(r"it matches it on \d+% of the entries where either differs", r.diagnoses[0])
    assert "RoPE applied to the values too" in r.diagnoses[0]


def _outputs(task, fn):
    from posenc.practice.running import _call, _equal_output, _expected

    t = practice._tasks()[task]
    expected, mistaken = _expected(t)
    outs = [t.structure(c, _call(fn, c)) for c in t.cases()]
    valued = [i for i, c in enumerate(t.cases()) if not _equal_output(t, c, outs[i], expected[i])]
    return t, outs, expected, mistaken, valued


@pytest.mark.parametrize(
    "task, name, own",
    [
        ("sinusoidal_concat", "t2t_fairseq_padding_row", "row 0 zeroed"),
        ("t5_causal_bucket", "t5c_log1p", "log1p"),
        ("rope_cos_sin", "cs_sorted", "positions sorted"),
        ("pi_inv_freq", "pi_factor_ignored", "factor ignored"),
        ("pi_inv_freq", "pi_slow_half", "only the slower half"),
        ("yarn_inv_freq", "yarn_log10", "wrong logarithm"),
        ("yarn_inv_freq", "yarn_low_unclipped", "low not clipped at 0"),
        ("attention", "attn_squared_tables", "attention_scaling squared"),
    ],
)
def test_without_its_own_mistake_no_farther_mistake_is_named(task, name, own):
    """The misleading diagnoses of issue 39's second review: with the mistake's own entry removed, the nearest
    named mistake (if any) is nearer the output than posenc's answer is, and shares most of its wrong entries."""
    import practice_mutants

    from posenc.practice.diagnosis import NEAR_RATIO, _nearest, _nearness

    t, outs, expected, mistaken, valued = _outputs(task, getattr(practice_mutants, name))
    others = [(text, m) for text, m in mistaken if own not in text]
    assert len(others) < len(mistaken)
    named = _nearest(t, t.cases(), outs, expected, others, valued)
    if named is not None:
        text = next(tx for tx, _ in others if named.endswith(tx))
        m_outs = next(m for tx, m in others if tx == text)
        _, share, ratio = _nearness(t, t.cases(), outs, expected, m_outs, valued)
        assert ratio < NEAR_RATIO and share >= 0.1, (named, share, ratio)


def test_nearness_counts_entries_where_only_the_mistake_is_wrong():
    """fairseq's zeroed row 0 equals "[cos | sin]" on its few wrong entries, but "[cos | sin]" is wrong almost
    everywhere else: the share is small and the distance ratio far above 1, so it is not named."""
    import practice_mutants

    from posenc.practice.diagnosis import _nearness

    t, outs, expected, mistaken, valued = _outputs("sinusoidal_concat", practice_mutants.t2t_fairseq_padding_row)
    m_outs = next(m for text, m in mistaken if text.startswith("[cos | sin]"))
    _, share, ratio = _nearness(t, t.cases(), outs, expected, m_outs, valued)
    assert share < 0.1 and ratio > 1, (share, ratio)


def test_round_two_statements_hold():
    """The attention sweep passes RoPE tables and a bias together; YaRN's factor is never below 1 (Hugging Face's
    validation warns on factor < 1); a float64 table lookup of a float32 table is refused by dtype."""
    cases = practice._tasks()["attention"].cases()
    assert any("cos" in c.kwargs and "bias" in c.kwargs for c in cases)
    assert all(c.args[2] >= 1 for c in practice._tasks()["yarn_inv_freq"].cases())
    from practice_mutants import learned_float64, yarn_tensor_scaling

    assert "table's dtype" in check("learned_lookup", learned_float64).diagnoses[0]
    assert "not a Python float" in check("yarn_inv_freq", yarn_tensor_scaling).diagnoses[0]


def test_the_sweeps_reach_the_inputs_of_issue_39():
    """Cases that the wrong functions of issue 39 fail on are in the sweeps (each mutant test above relies on one)."""
    off = practice._tasks()["apply_rope_offset"].cases()
    assert {c.args[0].dtype for c in off} == {torch.float32, torch.bfloat16, torch.float16}
    assert any(c.args[2] != 10000.0 for c in off)
    assert any(c.args[1] >= 20000 and c.args[0].dtype == torch.bfloat16 for c in off)
    assert any(c.args[1] > c.args[0].shape[-2] for c in off), "an offset past a table of L rows"
    assert any(c.args[1].numel() == 0 for c in practice._tasks()["learned_lookup"].cases())

    def high(d, base, factor, L0, bf, bs):
        return math.ceil(d * math.log(L0 / (bs * 2 * math.pi)) / (2 * math.log(base)))

    assert any(high(*c.args) > c.args[0] // 2 - 1 for c in practice._tasks()["yarn_inv_freq"].cases())


@pytest.mark.parametrize(
    "task, name, shape",
    [
        ("apply_rope_half", "half_clockwise", [2, 4]),
        ("alibi_bias", "bias_positive", [3, 3]),
        ("attention", "attn_softmax_queries", [3, 4]),
        ("sinusoidal_encoding", "sin_from_one", [1, 2]),
    ],
)
def test_two_dimensional_outputs_get_a_picture_of_the_difference(task, name, shape):
    import practice_mutants

    r = check(task, getattr(practice_mutants, name))
    assert r.picture is not None and list(r.picture["got"].shape) == shape, r.picture
    page = r._repr_html_()
    assert "posenc-practice-picture" in page and "expected (posenc)" in page and "got − expected" in page
    cells = page[page.index("posenc-practice-picture") :].count("<td ")
    assert cells == 3 * shape[0] * shape[1]
    assert check("rope_inv_freq", practice_mutants.inv_positive).picture is None  # one-dimensional: no picture


def summary() -> list[tuple[str, int, int, int, int, int]]:
    rows = []
    for task in TASKS:
        killed = diagnosed = 0
        for expected, fn in MUTANTS[task]:
            r = check(task, fn)
            killed += not r.passed
            diagnosed += bool(r.diagnoses) and expected in r.diagnoses[0]
        accepted = sum(check(task, fn).passed for fn in [practice.reference(task), *CORRECT[task]])
        rows.append((task, len(MUTANTS[task]), killed, diagnosed, accepted, 1 + len(CORRECT[task])))
    return rows


def format_summary(rows) -> str:
    lines = [f"{'task':24} {'mutants':>7} {'killed':>6} {'diagnosed':>9} {'correct accepted':>16}"]
    lines += [f"{t:24} {n:7d} {k:6d} {d:9d} {a:>13d}/{c}" for t, n, k, d, a, c in rows]
    tot = [sum(r[i] for r in rows) for i in range(1, 6)]
    lines.append(f"{'all':24} {tot[0]:7d} {tot[1]:6d} {tot[2]:9d} {tot[3]:>13d}/{tot[4]}")
    return "\n".join(lines)


# The table (``python tests/test_practice.py``) is not a test of its own:
# test_every_mutant_is_rejected_with_its_own_diagnosis and test_reference_and_correct_variants_pass
# assert the same, task by task.


# ---- the practice notebooks: skeletons as shipped, solutions in the book -----------------------
def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


SOLUTION = re.compile(
    r"<details><summary>Solution: <code>(?P<name>\w+)</code></summary>"
    r"\n\n```python\n(?P<code>.*?)\n```\n\n</details>",
    re.S,
)


def _solutions(path):
    out = []
    for c in _cells(path):
        if c["cell_type"] == "markdown":
            out += [m.group("code") for m in SOLUTION.finditer("".join(c["source"]))]
    return out


def test_practice_notebooks_exist():
    names = [p.name for p in PRACTICE_NOTEBOOKS]
    assert names == [
        "practice_1_absolute_relative.ipynb",
        "practice_2_rope.ipynb",
        "practice_3_alibi_scaling.ipynb",
        "practice_4_attention.ipynb",
    ]


@pytest.mark.parametrize("path", PRACTICE_NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_ships_skeletons_and_collapsed_solutions_that_pass(path):
    cells = _cells(path)
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    checks = [re.fullmatch(r'check\("(\w+)", (\w+)\)', c.strip()) for c in code]  # the task checks
    checked = [(m.group(1), m.group(2)) for m in checks if m]
    assert checked, "a practice notebook checks something"
    for _, name in checked:
        skeleton = next(c for c in code if re.search(rf"^def {name}\(", c, re.M))
        assert "raise NotImplementedError" in skeleton, f"{name}: the task cell holds the skeleton"
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert sum("not implemented yet" in json.dumps(o) for o in outputs) >= len(checked)
    solutions = _solutions(path)
    assert len(solutions) >= len(checked), "every task has its solution in a collapsed block"
    namespace: dict = {}
    exec("import math\nimport torch\nimport posenc\n", namespace)
    for src in solutions:
        exec(src, namespace)
    for task, name in checked:
        r = check(task, namespace[name])
        assert r.passed, f"{path.name}: the solution of {name} fails:\n{r}"


@pytest.mark.parametrize("path", PRACTICE_NOTEBOOKS, ids=lambda p: p.stem)
def test_hints_in_steps_collapsed_everywhere(path):
    """Each task: a nudge, then the idea, then the solution, each in raw HTML <details> (collapsed in the book,
    JupyterLab, Colab and GitHub alike; MyST dropdowns show as raw text outside the book)."""
    md = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
    assert ":::{dropdown}" not in md and "```{dropdown}" not in md
    checked = re.findall(r'^check\("(\w+)", (\w+)\)$', "\n".join("".join(c["source"]) for c in _cells(path)), re.M)
    for _, name in checked:
        block = re.search(
            rf"<details><summary>Hint 1: a nudge \(<code>{name}</code>\)</summary>\n\n.+?\n\n</details>\s*"
            rf"<details><summary>Hint 2: the idea \(<code>{name}</code>\)</summary>\n\n.+?\n\n</details>\s*"
            rf"<details><summary>Solution: <code>{name}</code></summary>",
            md,
            re.S,
        )
        assert block, f"{path.name}: {name} lacks its nudge, idea and solution in that order"
    assert md.count("<details>") == md.count("</details>") and md.count("<summary>Solution: ") == len(checked)


@pytest.mark.parametrize("path", PRACTICE_NOTEBOOKS, ids=lambda p: p.stem)
def test_every_task_links_back_to_its_chapter(path):
    md = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
    links = re.findall(r"\]\((\d\d_[a-z_]+)\.ipynb", md)
    assert links, "links back to the chapters"
    for name in links:
        assert (ROOT / "notebooks" / f"{name}.ipynb").exists(), name


if __name__ == "__main__":
    print(format_summary(summary()))


def test_keyword_inputs_changed_in_place_are_named():
    """The attention task passes cos, sin and bias by keyword: a function that writes the causal mask into the
    caller's bias fails, and the next function checked still gets the task's own, untouched inputs."""

    def masks_into_bias(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
        if bias is not None:
            n = q.shape[-2]
            bias.masked_fill_(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
        return practice.reference("attention")(
            q, k, v, cos=cos, sin=sin, bias=bias, attention_scaling=attention_scaling
        )

    r = check("attention", masks_into_bias)
    assert not r.passed and "in place" in r.diagnoses[0] and "bias" in r.diagnoses[0], str(r)
    assert check("attention", practice.reference("attention")).passed


def test_a_call_stopped_for_its_time_does_not_slow_the_next_check():
    """A stopped call keeps running in its thread; its CPU time must not count against the next function."""
    import threading
    import time

    stop = threading.Event()

    a = torch.randn(256, 256)

    def spins(x, cos, sin):  # burns CPU until told to stop (matmul releases the GIL: it runs beside the next call)
        while not stop.is_set():
            a @ a
        return posenc.apply_rope(x, cos, sin)

    def busy_but_right(x, cos, sin):  # 0.3 s of computing per call: within the limit on its own
        t0 = time.monotonic()
        while time.monotonic() - t0 < 0.3:
            a @ a
        return posenc.apply_rope(x, cos, sin)

    try:
        slow = check("apply_rope_half", spins, time_limit=0.5)
        # stopped by its CPU time, or, on a loaded machine where the spinning thread gets little CPU, by the
        # wall-clock limit (six times the CPU limit): either way the check ends and names the limit
        assert not slow.passed, str(slow)
        assert "took more than 0.5 s of CPU time" in str(slow) or "of wall-clock time" in str(slow), str(slow)
        # with the stopped call still computing beside it (on a second core), the process's CPU time grows
        # about twice as fast as this call's
        assert check("apply_rope_half", busy_but_right, time_limit=0.5).passed
    finally:
        stop.set()
        for t in threading.enumerate():
            if t.name == "posenc-practice-call":
                t.join(10)


@pytest.mark.parametrize("task", ["alibi_bias", "attention", "shaw_attention"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int64])
def test_a_result_in_the_wrong_dtype_is_named(task, dtype):
    """A right answer cast to low precision or to integers fails, and the diagnosis says the dtype."""
    ref = practice.reference(task)

    def cast(*args, **kwargs):
        return ref(*args, **kwargs).to(dtype)

    r = check(task, cast)
    kind = str(dtype).replace("torch.", "")
    assert not r.passed and kind in r.diagnoses[0], str(r)
    assert check(task, lambda *a, **k: ref(*a, **k).double()).passed  # float64 is accepted


def test_not_implemented_on_some_inputs_is_a_crash_not_a_blank_task():
    """A function that answers float32 inputs and raises NotImplementedError on others is wrong where it raises;
    only a function that raises on the first input is reported as not implemented yet."""

    def half_done(x, cos, sin):
        if x.dtype != torch.float32:
            raise NotImplementedError("TODO")
        return posenc.apply_rope(x, cos, sin)

    r = check("apply_rope_half", half_done)  # its inputs include bfloat16 and float16 x after float32 ones
    assert r.implemented and not r.passed and "NotImplementedError" in " ".join(r.diagnoses), str(r)

    def blank(x, cos, sin):
        raise NotImplementedError

    assert not check("apply_rope_half", blank).implemented
