"""Measurement helpers shared by the benchmark scripts and the book's notebooks.

Peak memory is measured in a fresh subprocess (``python -m posenc.bench ...``), so one
measurement cannot inherit another's high-water mark. Times are medians; report ratios.

Timings are taken by the scripts in ``benchmarks/`` only, never while the book is tested. Each
script saves what it measured, with the machine it ran on, to ``posenc/results/bench_<name>.json``
(:func:`save_results`); the chapters print those numbers (:func:`load_results`).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from ._validate import check_choice, check_int

__all__ = ["median_seconds", "peak_rss_mib", "reset_peak_rss", "current_rss_mib", "shaw_peak_memory",
           "attention_cost", "matmul_flops", "machine", "save_results", "load_results", "describe_machine"]

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def median_seconds(fn: Callable[[], object], *, repeat: int = 7, warmup: int = 2) -> float:
    """Median wall time in seconds of ``fn()`` over ``repeat`` runs after ``warmup`` runs."""
    repeat = check_int("repeat", repeat, min_value=1)
    for _ in range(check_int("warmup", warmup, min_value=0)):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def matmul_flops(fn: Callable[[], object]) -> int:
    """Floating-point operations of the matrix products ``fn()`` performs (``torch.utils.flop_counter``).

    A count, not a time: the same on every machine. Element-wise work (softmax, rotations) is not
    counted.
    """
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def peak_rss_mib() -> float:
    """Peak resident memory of this process, in MiB (Linux ``VmHWM``).

    Not ``getrusage``'s ``ru_maxrss``: that survives fork and exec, so a process started from a
    large one (a Jupyter kernel) would report its parent's peak.
    """
    return _status_kib("VmHWM") / 1024


def reset_peak_rss() -> None:
    """Reset the peak to the current resident memory (Linux: write 5 to ``/proc/self/clear_refs``)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def current_rss_mib() -> float:
    """Current resident memory of this process, in MiB (Linux ``/proc/self/statm``)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def _measure(fn: Callable[[], object], warmup: Callable[[], object], repeat: int) -> dict:
    """Extra peak memory of the first ``fn()`` after ``warmup()``, and its median time."""
    warmup()  # thread pool and allocator start-up stay out of the peak
    reset_peak_rss()
    before = current_rss_mib()
    fn()
    peak = peak_rss_mib() - before
    return {"peak_mib": peak, "seconds": median_seconds(fn, repeat=repeat, warmup=0)}


def _shaw_run(method: str, length: int, heads: int, head_dim: int, k: int) -> dict:
    import torch

    from .relative import shaw_attention, shaw_attention_naive

    torch.manual_seed(0)
    q, kk, v = (torch.randn(1, heads, length, head_dim) for _ in range(3))
    rk, rv = torch.randn(2 * k + 1, head_dim), torch.randn(2 * k + 1, head_dim)
    fn = shaw_attention if method == "efficient" else shaw_attention_naive
    small = [t[..., :8, :] for t in (q, kk, v)]
    with torch.inference_mode():
        return _measure(lambda: fn(q, kk, v, rk, rv), lambda: fn(*small, rk, rv), repeat=3)


def shaw_peak_memory(method: str, length: int, *, heads: int = 4, head_dim: int = 64, k: int = 16) -> dict:
    """Extra peak memory (MiB) and median time (s) of one Shaw attention call, in a fresh process.

    Args:
        method (str): ``"naive"`` (materialises ``[L, L, d]``) or ``"efficient"`` (posenc's form).
        length (int): sequence length ``L``; batch 1.
        heads, head_dim, k (int): number of heads, head dimension, clipping distance.

    Returns:
        dict: ``{"peak_mib": float, "seconds": float}``.
    """
    check_choice("method", method, ("naive", "efficient"))
    args = [str(check_int(n, v, min_value=1)) for n, v in
            (("length", length), ("heads", heads), ("head_dim", head_dim), ("k", k))]
    out = subprocess.run([sys.executable, "-m", "posenc.bench", "shaw", method, *args],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _attention_run(method: str, length: int, heads: int, head_dim: int, repeat: int) -> dict:
    import torch

    from .attention import MultiHeadAttention

    torch.manual_seed(0)
    d_model = heads * head_dim
    attn = MultiHeadAttention(d_model, heads, method, max_len=max(length, 2), shaw_max_distance=16).eval()
    x = torch.randn(1, length, d_model)
    with torch.inference_mode():
        return _measure(lambda: attn(x), lambda: attn(x[:, :8]), repeat=repeat)


def attention_cost(method: str, length: int, *, heads: int = 4, head_dim: int = 64, repeat: int = 5) -> dict:
    """Time and extra peak memory of one causal :class:`~posenc.attention.MultiHeadAttention` forward.

    Runs in a fresh process so the memory peak is this call's own (batch 1, ``heads * head_dim``
    model width, projections included).

    Args:
        method (str): a position method of :data:`posenc.position.POSITION_METHODS`.
        length (int): sequence length.
        heads, head_dim (int): number of heads and head dimension.
        repeat (int): timed repetitions (the median is reported).

    Returns:
        dict: ``{"peak_mib": float, "seconds": float}``.
    """
    from .attention import POSITION_METHODS

    check_choice("method", method, POSITION_METHODS)
    args = [str(check_int(n, v, min_value=1)) for n, v in
            (("length", length), ("heads", heads), ("head_dim", head_dim), ("repeat", repeat))]
    out = subprocess.run([sys.executable, "-m", "posenc.bench", "attention", method, *args],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def machine() -> dict:
    """The machine and software a measurement ran on: CPU model, cores, torch, CPU kernels, threads."""
    import torch

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "threads": torch.get_num_threads(), "torch": torch.__version__, "python": platform.python_version(),
            "date": datetime.date.today().isoformat()}


def describe_machine(info: dict) -> str:
    """One line naming the machine of :func:`machine`, for printing beside measured numbers."""
    threads = f"{info['threads']} thread" + ("s" if info["threads"] != 1 else "")
    return (f"{info['cpu']}, {info['cores']} cores, {info['cpu_capability']} kernels, {threads}, "
            f"torch {info['torch']}, measured {info['date']}")


def save_results(name: str, results: dict, *, settings: dict | None = None) -> Path:
    """Write ``{"machine", "settings", "results"}`` to ``posenc/results/bench_<name>.json``."""
    path = RESULTS_DIR / f"bench_{name}.json"
    payload = {"machine": machine(), "settings": settings or {}, "results": results}
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load_results(name: str) -> dict:
    """The measurements a benchmark script saved: ``{"machine", "settings", "results"}``."""
    available = sorted(p.stem[len("bench_"):] for p in RESULTS_DIR.glob("bench_*.json"))
    check_choice("name", name, tuple(available))
    return json.loads((RESULTS_DIR / f"bench_{name}.json").read_text(encoding="utf-8"))


if __name__ == "__main__":  # python -m posenc.bench {shaw|attention} METHOD LENGTH HEADS HEAD_DIM {K|REPEAT}
    _, what, method, *numbers = sys.argv
    runners = {"shaw": _shaw_run, "attention": _attention_run}
    if what not in runners:
        raise SystemExit(f"unknown measurement {what!r}; one of {sorted(runners)}")
    print(json.dumps(runners[what](method, *map(int, numbers))))
