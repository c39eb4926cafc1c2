"""The detectors of low precision: a result off from posenc by the relative error float16 or bfloat16
rounding leaves, in the angles behind cos/sin or in the frequencies, is diagnosed as "angles computed
in float16" (or bfloat16) even when no known mistake matches it exactly.
"""

from __future__ import annotations

import math

import torch

from .framework import _Crash, _f64
from .running import _expected

#: The task ``_diagnose`` is diagnosing, read by the detectors ``_lowp`` builds.
_CURRENT: list = [None]


_ANGLE_TASKS = ("sinusoidal_encoding", "rope_cos_sin")


def _lowp(kind: str, what: str = "angles", *, fixed_base: float | None = None):
    """A detector: the result is off from posenc by a relative error of float16 (2^-11 per rounding) or
    bfloat16 (2^-8) rounding, the kind of error low-precision angles or frequencies leave. With ``fixed_base``
    (angle tasks only), off by that much from the angles at that base whatever ``base`` was passed: two mistakes
    at once, the base ignored and the angles in low precision."""
    limit = {"float16": (2e-5, 1.6e-3), "bfloat16": (1.6e-3, 5e-2)}[kind]

    def detect(cases, outs, usable):
        t = _CURRENT[0]
        expected, _ = _expected(t)
        worst, nan_where_finite, n_ok = 0.0, False, 0
        for i in usable:
            if isinstance(outs[i], _Crash) or isinstance(expected[i], _Crash):
                continue
            true = _true_angles(t.name, cases[i], fixed_base)  # float64, unwrapped: p * theta itself
            if fixed_base is not None and true is None:
                return False
            ang_o = _angles_of(t.name, outs[i])
            if ang_o is None or (true is not None and true.shape != ang_o.shape):
                return False
            ang_e = true if true is not None else _angles_of(t.name, expected[i])
            lost = ~torch.isfinite(ang_o)
            if t.name not in _ANGLE_TASKS:  # float16 overflow: base ** x = inf, 1 / inf = 0
                lost |= (ang_o == 0) & (ang_e != 0)
            lost &= torch.isfinite(ang_e)
            nan_where_finite |= bool(lost.any())
            ok = ~lost & torch.isfinite(ang_o) & torch.isfinite(ang_e) & (ang_e.abs() > 1e-3)
            if t.name in _ANGLE_TASKS:  # atan2 gives the angle modulo 2 pi: the turn nearest the true angle
                diff = torch.remainder(ang_o - ang_e + math.pi, 2 * math.pi) - math.pi
            else:
                diff = ang_o - ang_e
            n_ok += int(ok.sum())
            if ok.any():
                worst = max(worst, float((diff.abs()[ok] / ang_e.abs()[ok]).max()))
        lo, hi = limit
        if n_ok == 0:  # nothing finite to compare (an all-NaN output is not a precision problem)
            return False
        if kind == "float16" and nan_where_finite:  # float16 overflow past 65504 leaves inf/NaN
            return 2.0**-14 < worst < hi
        return lo < worst < hi

    if fixed_base is not None:
        return (
            f"two mistakes together: base ignored ({fixed_base:g} hard-coded) and {what} computed in {kind}",
            detect,
        )
    return (f"{what} computed in {kind}", detect)


def _true_angles(task: str, case, fixed_base: float | None = None) -> torch.Tensor | None:
    """The exact angles p * theta_i of an angle task's input, in float64 and not wrapped: the relative error
    of the learner's angle is measured against these, never against an atan2 angle in [-pi, pi]."""
    if task == "sinusoidal_encoding":
        L, d = case.args[:2]
        base = float(case.args[2]) if len(case.args) > 2 else 10000.0
        base = base if fixed_base is None else fixed_base
        theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        return torch.arange(L, dtype=torch.float64)[:, None] * theta[None, :]
    if task == "rope_cos_sin":
        pos, d = case.args[:2]
        base = float(case.args[2]) if len(case.args) > 2 else 10000.0
        p = torch.arange(pos, dtype=torch.float64) if isinstance(pos, int) else pos.to(torch.float64)
        theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        a = p[:, None] * theta[None, :]
        return torch.cat([a, a], -1)
    return None


def _angles_of(task: str, out) -> torch.Tensor | None:
    """The quantity whose relative error reveals low precision: frequencies, or the angles behind cos/sin
    (recovered with atan2, so only modulo 2 pi; the true angle p * theta tells which turn)."""
    if task in ("rope_inv_freq", "pi_inv_freq", "ntk_inv_freq", "alibi_slopes"):
        return _f64(out)
    if task == "rope_cos_sin":
        return torch.atan2(_f64(out[1]), _f64(out[0]))
    if task == "sinusoidal_encoding":
        o = _f64(out)
        return torch.atan2(o[..., 0::2], o[..., 1::2])
    return None
