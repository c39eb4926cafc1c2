"""Measurement helpers shared by the benchmark scripts and the book's notebooks.

Memory is counted, not sampled from the operating system: :class:`TensorMemory` (a
``TorchDispatchMode``) adds up the bytes of the tensors that torch's operators return while it is
active and subtracts them when they are freed. The count is the same on every machine, operating
system, CPU and thread count (it depends on the shapes and dtypes of the tensors only), and it needs
nothing Unix-only. What it does not count: memory an operator's kernel allocates for its own use
and frees before returning (workspaces, per-thread buffers), the Python interpreter and the
allocator's overhead. Each of :func:`shaw_peak_memory` and :func:`attention_cost` still runs in a
fresh process (``python -m posenc.bench ...``), so its median time is not disturbed by the caller.
Times are medians; report ratios.

Timings are taken by the scripts in ``benchmarks/`` only, never while the book is tested. Each
script saves what it measured, with the machine it ran on, to ``posenc/results/bench_<name>.json``
(:func:`save_results`); the chapters print those numbers (:func:`load_results`).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from ._validate import check_choice, check_int

__all__ = ["median_seconds", "TensorMemory", "tensor_peak_mib", "peak_rss_mib", "reset_peak_rss",
           "current_rss_mib", "shaw_peak_memory", "attention_cost", "matmul_flops", "machine", "save_results",
           "load_results", "describe_machine"]

MIB = 2**20
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


class TensorMemory(TorchDispatchMode):
    """Count the bytes of the tensors created while active: ``with TensorMemory() as m: ...``.

    A ``torch.utils._python_dispatch.TorchDispatchMode``: every tensor an ATen operator returns on a
    storage that did not exist before counts that storage's bytes (``storage.nbytes()``) until the
    last tensor counted on it is freed; views and in-place results count nothing new. ``m.current``
    is the bytes alive now, ``m.peak`` the most alive at once (both ints), ``m.peak_mib`` the peak
    in MiB. Tensors that existed before are not counted, so the peak is the extra memory of what ran
    inside. Not counted: what a kernel allocates and frees inside one operator (e.g. the per-thread
    buffers of PyTorch's CPU flash attention), Python objects, the allocator's overhead. The same
    count on every machine: it depends on shapes and dtypes only. Costs a Python call per operator:
    do not time code while it is active.
    """

    def __init__(self) -> None:
        super().__init__()
        self.current = 0  # bytes of the counted storages alive now
        self.peak = 0  # the most bytes alive at once since the start (or reset_peak)
        self._refs: dict[int, int] = {}  # storage address -> live tensors counted on it
        self._sizes: dict[int, int] = {}  # storage address -> its bytes

    @property
    def peak_mib(self) -> float:
        return self.peak / MIB

    def reset_peak(self) -> None:
        """Start the peak again from what is alive now."""
        self.peak = self.current

    def _release(self, key: int) -> None:
        refs = self._refs.get(key, 0) - 1
        if refs > 0:
            self._refs[key] = refs
        elif key in self._refs:
            del self._refs[key]
            self.current -= self._sizes.pop(key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        inputs = {t.untyped_storage().data_ptr() for t in tree_leaves((args, kwargs))
                  if isinstance(t, torch.Tensor) and t.layout == torch.strided}
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if not isinstance(t, torch.Tensor) or t.layout != torch.strided:
                continue
            storage = t.untyped_storage()
            key = storage.data_ptr()
            if key in self._refs:  # a view (or in-place result) of a counted tensor
                self._refs[key] += 1
            elif key in inputs or key == 0:  # a storage that existed before (or an empty one)
                continue
            else:  # a new storage: counted
                self._refs[key], self._sizes[key] = 1, storage.nbytes()
                self.current += self._sizes[key]
                self.peak = max(self.peak, self.current)
            weakref.finalize(t, self._release, key).atexit = False
        return out


def tensor_peak_mib(fn: Callable[[], object]) -> float:
    """Extra peak memory of ``fn()`` in MiB: the most bytes of tensors created by ``fn`` that were
    alive at once (:class:`TensorMemory`; the same on every machine)."""
    with TensorMemory() as counter:
        fn()
    return counter.peak_mib


#: The counter that :func:`reset_peak_rss` started (None: none active).
_GLOBAL_COUNTER = None


def reset_peak_rss() -> None:
    """Start counting the bytes of tensors created from now on (:class:`TensorMemory`), in this
    thread, until :func:`peak_rss_mib` is called; the peak starts at zero.

    Kept under its old name (it reset the process's resident-memory peak, a Linux-only ``/proc``
    write): the count is now torch's own and works on every platform.
    """
    global _GLOBAL_COUNTER
    if _GLOBAL_COUNTER is not None:
        _GLOBAL_COUNTER.__exit__(None, None, None)
    _GLOBAL_COUNTER = TensorMemory()
    _GLOBAL_COUNTER.__enter__()


def current_rss_mib() -> float:
    """MiB of the tensors created since :func:`reset_peak_rss` that are alive now (0.0 when no count
    was started)."""
    return _GLOBAL_COUNTER.current / MIB if _GLOBAL_COUNTER is not None else 0.0


def peak_rss_mib() -> float:
    """The most MiB of tensors created since :func:`reset_peak_rss` that were alive at once; stops
    that count (0.0 when none was started). The same number on every machine (see
    :class:`TensorMemory`)."""
    global _GLOBAL_COUNTER
    if _GLOBAL_COUNTER is None:
        return 0.0
    counter, _GLOBAL_COUNTER = _GLOBAL_COUNTER, None
    counter.__exit__(None, None, None)
    return counter.peak_mib


def _measure(fn: Callable[[], object], warmup: Callable[[], object], repeat: int) -> dict:
    """Extra peak memory of the first ``fn()`` after ``warmup()`` (bytes of tensors counted by
    :class:`TensorMemory`), and its median time (measured without the counter)."""
    warmup()  # caches (a bias for a shorter length) stay out of the count
    peak = tensor_peak_mib(fn)
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

    The memory is the most bytes of tensors created by the call that were alive at once, counted by
    torch's dispatcher (:class:`TensorMemory`): the same on every machine; a kernel's internal
    workspace is not included.

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
    return _run_fresh("shaw", method, args)


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

    Runs in a fresh process (batch 1, ``heads * head_dim`` model width, projections included). The
    extra peak memory is the most bytes of tensors created by the forward that were alive at once,
    counted by torch's dispatcher (:class:`TensorMemory`): the same on every machine; a kernel's
    internal workspace (e.g. the fused attention kernel's per-thread buffers) is not included. The
    time is the median of ``repeat`` calls, measured without the counter.

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
    return _run_fresh("attention", method, args)


def _run_fresh(what: str, method: str, args: list[str]) -> dict:
    """``python -m posenc.bench WHAT METHOD ARGS...`` in a fresh process; its JSON result."""
    out = subprocess.run([sys.executable, "-m", "posenc.bench", what, method, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"posenc.bench {what} {method} {' '.join(args)} failed (exit {out.returncode}):\n"
                           + out.stderr[-2000:])
    return json.loads(out.stdout)


def machine() -> dict:
    """The machine and software a measurement ran on: CPU model, cores, torch, CPU kernels, threads.

    The CPU model is Linux's ``model name`` where that can be read, otherwise what the ``platform``
    module reports (e.g. ``arm`` or ``Intel64 Family 6 ...``), otherwise ``"unknown CPU"``: it never
    fails for want of ``/proc``.
    """
    import torch

    cpu = platform.processor() or platform.machine() or "unknown CPU"
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo", encoding="utf-8") as f:
                cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
        except (OSError, StopIteration, IndexError, UnicodeDecodeError):
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
