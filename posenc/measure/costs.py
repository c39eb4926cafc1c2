"""Costs of attention that do not depend on the machine (operation counts, bytes of tensors), and
the times measured beside them in a fresh process.

:func:`matmul_flops` counts the floating-point operations of matrix products. Each of
:func:`shaw_peak_memory` and :func:`attention_cost` runs in a fresh process
(``python -m posenc.measure ...``), so neither the caller's caches nor its memory disturb it:
the extra peak memory is counted by :class:`~posenc.measure.TensorMemory`, the time is the median
of repeated calls measured without the counter. Report ratios of times, not the times.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import torch

import posenc
from posenc._core.validate import check_choice, check_int, check_size

from .memory import tensor_peak_mib
from .timing import _check_callable, median_seconds

__all__ = ["matmul_flops", "shaw_peak_memory", "attention_cost"]


def matmul_flops(fn: Callable[[], object]) -> int:
    """Floating-point operations of the matrix products ``fn()`` performs (``torch.utils.flop_counter``).

    A count, not a time: the same on every machine. Element-wise work (softmax, rotations) is not
    counted. ``fn`` is a callable taking no arguments.
    """
    from torch.utils.flop_counter import FlopCounterMode

    _check_callable("fn", fn)
    with FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())


def _measure(fn: Callable[[], object], warmup: Callable[[], object], repeat: int) -> dict:
    """Extra peak memory of the first ``fn()`` after ``warmup()`` (bytes of tensors counted by
    :class:`TensorMemory`), and its median time (measured without the counter)."""
    warmup()  # caches (a bias for a shorter length) stay out of the count
    peak = tensor_peak_mib(fn)
    return {"peak_mib": peak, "seconds": median_seconds(fn, repeat=repeat, warmup=0)}


def _shaw_run(method: str, length: int, heads: int, head_dim: int, k: int) -> dict:
    torch.manual_seed(0)
    q, kk, v = (torch.randn(1, heads, length, head_dim) for _ in range(3))
    rk, rv = torch.randn(2 * k + 1, head_dim), torch.randn(2 * k + 1, head_dim)
    fn = posenc.shaw_attention if method == "efficient" else posenc.shaw_attention_naive
    sq, sk, sv = (t[..., :8, :] for t in (q, kk, v))  # 8 queries and keys: the warm-up call
    with torch.inference_mode():
        return _measure(lambda: fn(q, kk, v, rk, rv), lambda: fn(sq, sk, sv, rk, rv), repeat=3)


def shaw_peak_memory(method: str, length: int, *, heads: int = 4, head_dim: int = 64, k: int = 16) -> dict:
    """Extra peak memory (MiB) and median time (s) of one Shaw attention call, in a fresh process.

    The memory is the most bytes of tensors created by the call that were alive at once, counted by
    torch's dispatcher (:class:`~posenc.measure.TensorMemory`): for a given PyTorch version on the CPU, the same on
    every machine; a kernel's internal workspace is not included.

    Args:
        method (str): ``"naive"`` (materialises ``[L, L, d]``) or ``"efficient"`` (posenc's form).
        length (int): sequence length ``L``; batch 1.
        heads, head_dim, k (int): number of heads, head dimension, clipping distance.

    Returns:
        dict: ``{"peak_mib": float, "seconds": float}``.
    """
    check_choice("method", method, ("naive", "efficient"))
    numbers = {
        n: check_int(n, v, min_value=1)
        for n, v in (("length", length), ("heads", heads), ("head_dim", head_dim), ("k", k))
    }
    check_size("length", length, (heads, length, length))  # the scores, before a process starts
    check_size("length", length, (length, length, head_dim))  # the naive form's [L, L, d]
    return _run_fresh("shaw", method, numbers)


def _attention_run(method: str, length: int, heads: int, head_dim: int, repeat: int) -> dict:
    torch.manual_seed(0)
    d_model = heads * head_dim
    attn = posenc.MultiHeadAttention(d_model, heads, method, max_len=max(length, 2)).eval()
    x = torch.randn(1, length, d_model)
    with torch.inference_mode():
        return _measure(lambda: attn(x), lambda: attn(x[:, :8]), repeat=repeat)


def attention_cost(method: str, length: int, *, heads: int = 4, head_dim: int = 64, repeat: int = 5) -> dict:
    """Time and extra peak memory of one causal :class:`posenc.MultiHeadAttention` forward.

    Runs in a fresh process (batch 1, ``heads * head_dim`` model width, projections included, the
    method's default options). The extra peak memory is the most bytes of tensors created by the
    forward that were alive at once, counted by torch's dispatcher
    (:class:`~posenc.measure.TensorMemory`): for a given PyTorch version, the same on every CPU; a
    kernel's internal workspace (e.g. the fused attention kernel's per-thread buffers) is not included. The time is
    the median of ``repeat`` calls, measured without the counter.

    Args:
        method (str): a position method of :data:`posenc.POSITION_METHODS`.
        length (int): sequence length.
        heads, head_dim (int): number of heads and head dimension.
        repeat (int): timed repetitions (the median is reported).

    Returns:
        dict: ``{"peak_mib": float, "seconds": float}``.
    """
    check_choice("method", method, posenc.POSITION_METHODS)
    numbers = {
        n: check_int(n, v, min_value=1)
        for n, v in (("length", length), ("heads", heads), ("head_dim", head_dim), ("repeat", repeat))
    }
    check_size("length", length, (heads, length, length))  # a bias or score matrix, before a process starts
    return _run_fresh("attention", method, numbers)


_RUNNERS = {"shaw": _shaw_run, "attention": _attention_run}


def _run_fresh(what: str, method: str, numbers: dict) -> dict:
    """``python -m posenc.measure WHAT METHOD NUMBERS...`` in a fresh process; its JSON result."""
    args = [str(v) for v in numbers.values()]
    out = subprocess.run([sys.executable, "-m", "posenc.measure", what, method, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(
            f"posenc.measure {what} {method} {' '.join(args)} failed (exit {out.returncode}):\n" + out.stderr[-2000:]
        )
    return json.loads(out.stdout)


def _main(argv: list[str]) -> None:
    """``python -m posenc.measure {shaw|attention} METHOD LENGTH HEADS HEAD_DIM {K|REPEAT}``: one
    measurement, printed as JSON (what :func:`shaw_peak_memory` and :func:`attention_cost` run)."""
    if len(argv) != 6 or argv[0] not in _RUNNERS:
        raise SystemExit(
            f"usage: python -m posenc.measure {{{'|'.join(_RUNNERS)}}} METHOD LENGTH HEADS HEAD_DIM "
            f"{{K|REPEAT}}; got {argv}"
        )
    what, method, *numbers = argv
    print(json.dumps(_RUNNERS[what](method, *map(int, numbers))))
