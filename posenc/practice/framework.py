"""What a Practice task is made of: its inputs (:class:`Case`), the task itself (:class:`Task`: the
reference, the properties, the known mistakes), the exceptions that mark a wrong or crashed output,
and the helpers the tasks share to check a result's type and shape and to compare it with posenc
within a tolerance.

Tolerances follow float32 rounding at the positions tested, so angles computed in float32, as
Hugging Face computes them, pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

__all__ = ["Case", "Task"]


@dataclass
class Case:
    """One input of a task's sweep: its label (the input in words), the arguments, the tolerance against the
    reference, and whether ``fn`` must refuse it."""

    label: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    tol: float = 1e-5  # absolute tolerance against the reference
    expect_error: bool = False  # fn must raise (ValueError, IndexError) here
    repeats: str = ""  # the label of an earlier input this one calls again with other values of some arguments


@dataclass
class Task:
    """A Practice task: its inputs, its reference, the properties to check, its known mistakes and their
    detectors; the inputs, the reference's and the mistakes' outputs are computed on first use."""

    name: str
    signature: str
    chapter: str
    make_cases: Callable[[], list[Case]]
    reference: Callable
    properties: list[tuple[str, Callable]]  # (name, f(case, out, run) -> None or what is wrong)
    mistakes: list[tuple[str, Callable]]  # (diagnosis, wrong implementation)
    structure: Callable  # f(case, out) -> out normalised (tensors), raises _Wrong with what is wrong
    compare: Callable | None = None  # f(case, out, expected) -> None or what differs
    detectors: list = field(default_factory=list)  # (diagnosis, f(cases, outs) -> bool) for mistakes of a kind
    # the arguments a function may keep from an earlier call of the same shapes (state._stale); a tuple of names
    # in it stands for arguments kept together (cos and sin cached as a pair)
    stale: tuple = ()
    _cases: list[Case] | None = None
    _expected: list | None = None
    _mistaken: list | None = None
    _combined: dict = field(default_factory=dict)  # (mistake i, mistake j, case) -> output, filled on demand
    _mistake_wrong: dict = field(default_factory=dict)  # mistake k -> the inputs where it differs from posenc's

    def cases(self) -> list[Case]:
        if self._cases is None:
            self._cases = self.make_cases()
        return self._cases


class _Variant:
    """A known mistake written as a task's variant function with keyword flags: ``impl(*args, **kwargs,
    **flags)``. Two mistakes of one ``impl`` whose flags do not overlap combine into "two mistakes together"
    (:meth:`combine`), which the diagnosis tries when no single mistake matches."""

    def __init__(self, impl: Callable, **flags: Any) -> None:
        self.impl, self.flags = impl, flags

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.impl(*args, **kwargs, **self.flags)

    def combine(self, other: Any) -> _Variant | None:
        """The two mistakes at once, or None when they are not flags of the same variant function (or share one)."""
        if not isinstance(other, _Variant) or other.impl is not self.impl or set(self.flags) & set(other.flags):
            return None
        return _Variant(self.impl, **self.flags, **other.flags)


class _Wrong(Exception):
    """The output has the wrong type, shape or dtype."""


class _Crash(Exception):
    pass


class _Timeout(Exception):
    """The learner's function ran past the per-call time limit."""


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _clone(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (tuple, list)):
        return type(value)(_clone(v) for v in value)
    if isinstance(value, dict):  # keyword arguments: the learner gets copies of bias, cos, sin too
        return {k: _clone(v) for k, v in value.items()}
    return value


def _arg_names(signature: str) -> list[str]:
    """The parameter names of a task's signature text, ``"fn(x, cos, sin) -> ..."`` -> ``["x", "cos", "sin"]``."""
    inside = signature[signature.index("(") + 1 : signature.index(")")]
    return [p.split("=")[0].strip() for p in inside.split(",") if p.strip()]


def _show_value(value: Any) -> str:
    """An argument as a learner would type it: numbers as they are, small tensors in full, large ones by shape."""
    if isinstance(value, torch.Tensor):
        kind = str(value.dtype).replace("torch.", "")
        if value.numel() <= 8:
            return f"torch.tensor({value.tolist()}, dtype=torch.{kind})"
        return f"a {kind} tensor of shape {list(value.shape)}"
    if isinstance(value, float):
        return repr(value)
    return repr(value)


def _show_args(signature: str, case: Case) -> str:
    """The call of a case written out: ``fn(positions=3 (an int), head_dim=4, base=10000.0)``; a tensor of more
    than 8 entries by its dtype and shape, followed by the case's label."""
    names = _arg_names(signature)
    parts = []
    for name, value in zip(names, case.args):
        kind = " (an int)" if type(value) is int and name in ("positions", "offset") else ""
        parts.append(f"{name}={_show_value(value)}{kind}")
    parts += [f"{k}={_show_value(v)}" for k, v in case.kwargs.items()]
    big = any(isinstance(v, torch.Tensor) and v.numel() > 8 for v in (*case.args, *case.kwargs.values()))
    return "fn(" + ", ".join(parts) + ")" + (f" ({case.label})" if big else "")


def _modified(signature: str, case: Case, passed: tuple, passed_kw: dict) -> list[str]:
    """The names of the tensor arguments the call changed (compared with the case's own, untouched copies)."""
    names = _arg_names(signature)
    out = []
    for i, (orig, given) in enumerate(zip(case.args, passed)):
        if isinstance(orig, torch.Tensor) and not _same(orig, given):
            out.append(names[i] if i < len(names) else f"argument {i + 1}")
    for k, orig in case.kwargs.items():
        if isinstance(orig, torch.Tensor) and not _same(orig, passed_kw.get(k)):
            out.append(k)
    return out


def _same(a: torch.Tensor, b: Any) -> bool:
    if not isinstance(b, torch.Tensor) or a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(torch.equal(a, b)) or bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())


def _tensor(out: Any, name: str = "the result") -> torch.Tensor:
    if not isinstance(out, torch.Tensor):
        raise _Wrong(f"{name} is a {type(out).__name__}, not a torch.Tensor")
    return out


def _shape(out: Any, shape: tuple, name: str = "the result") -> torch.Tensor:
    out = _tensor(out, name)
    if tuple(out.shape) != tuple(shape):
        raise _Wrong(f"{name} has shape {list(out.shape)}, expected {list(shape)}")
    return out


def _float32(out: torch.Tensor, name: str = "the result") -> torch.Tensor:
    """Refuse a float16/bfloat16 result where the task returns float32: checked before any diagnosis of
    low-precision angles, since a float32 table cast at the end is a different mistake."""
    if out.dtype in (torch.float16, torch.bfloat16):
        kind = str(out.dtype).replace("torch.", "")
        verb = "are" if name.endswith("slopes") else "is"
        raise _Wrong(
            f"{name} {verb} returned in {kind}: the task returns float32; compute in float32 and cast only "
            "where the result is used"
        )
    return out


def _float_result(out: torch.Tensor, name: str = "the result") -> torch.Tensor:
    """A float32 task's tensor result: refuse low precision (:func:`_float32`) and a non-floating dtype."""
    out = _float32(out, name)
    if not out.dtype.is_floating_point:
        kind = str(out.dtype).replace("torch.", "")
        raise _Wrong(f"{name} is returned as {kind}: the task returns float32 (float64 is accepted)")
    return out


def _pair(out: Any, names=("cos", "sin")) -> tuple:
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise _Wrong(f"return a pair ({names[0]}, {names[1]}), got {type(out).__name__}")
    return tuple(out)


def _f64(t: Any) -> torch.Tensor:
    if isinstance(t, torch.Tensor):
        return t.detach().to("cpu", torch.float64)
    return torch.as_tensor(t, dtype=torch.float64)


def _close(a: Any, b: Any, tol: float) -> str | None:
    """None when a and b agree within ``tol`` (absolute, on every element; inf and nan must agree)."""
    if isinstance(b, (tuple, list)):
        if not isinstance(a, (tuple, list)) or len(a) != len(b):
            return "not the same structure"
        for x, y in zip(a, b):
            msg = _close(x, y, tol)
            if msg:
                return msg
        return None
    a, b = _f64(a), _f64(b)
    if a.shape != b.shape:
        return f"shape {list(a.shape)} instead of {list(b.shape)}"
    same_special = (torch.isinf(a) & torch.isinf(b) & (a.sign() == b.sign())) | (torch.isnan(a) & torch.isnan(b))
    if bool(((torch.isinf(a) | torch.isnan(a) | torch.isinf(b) | torch.isnan(b)) & ~same_special).any()):
        return "infinities or NaNs where posenc has finite values (or the reverse)"
    diff = (a - b).abs().masked_fill(same_special, 0)
    err = float(diff.max()) if diff.numel() else 0.0
    if not err <= tol:
        idx = tuple(int(i) for i in torch.nonzero(diff == diff.max())[0])
        return f"max |difference| {err:.3g} at index {list(idx)} (tolerance {tol:.1g})"
    return None


def _tol_angles(max_angle: float, extra: float = 1e-5) -> float:
    """Tolerance for cos/sin of float32 angles up to ``max_angle``: float32 rounding of the angle
    (a few ulps) plus ``extra``."""
    return extra + 4 * max_angle * 2.0**-23
