"""The detectors of low precision: a result off from posenc by the relative error float16 or bfloat16
rounding leaves, in the angles behind cos/sin or in the frequencies, is diagnosed as "angles computed
in float16" (or bfloat16) even when no known mistake matches it exactly.
"""

from __future__ import annotations

import math

import torch

from .framework import _Crash, _f64
from .running import _expected


#: The task :func:`_diagnose` is diagnosing, read by the detectors :func:`_lowp` builds.
_CURRENT: list = [None]


_ANGLE_TASKS = ("sinusoidal_encoding", "rope_cos_sin")


def _lowp(kind: str, what: str = "angles"):
    """A detector: the result is off from posenc by a relative error of float16 (2^-11 per rounding) or
    bfloat16 (2^-8) rounding, the kind of error low-precision angles or frequencies leave."""
    limit = {"float16": (2e-5, 1.6e-3), "bfloat16": (1.6e-3, 5e-2)}[kind]

    def detect(cases, outs, usable):
        t = _CURRENT[0]
        expected, _ = _expected(t)
        worst, nan_where_finite, n_ok = 0.0, False, 0
        for i in usable:
            if isinstance(outs[i], _Crash) or isinstance(expected[i], _Crash):
                continue
            ang_o, ang_e = _angles_of(t.name, outs[i]), _angles_of(t.name, expected[i])
            if ang_o is None:
                return False
            lost = ~torch.isfinite(ang_o)
            if t.name not in _ANGLE_TASKS:  # float16 overflow: base ** x = inf, 1 / inf = 0
                lost |= (ang_o == 0) & (ang_e != 0)
            lost &= torch.isfinite(ang_e)
            nan_where_finite |= bool(lost.any())
            ok = ~lost & torch.isfinite(ang_o) & torch.isfinite(ang_e) & (ang_e.abs() > 1e-3)
            if t.name in _ANGLE_TASKS:  # compare angles modulo 2 pi, relative to the angle itself
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

    return (f"{what} computed in {kind}", detect)


def _angles_of(task: str, out) -> torch.Tensor | None:
    """The quantity whose relative error reveals low precision: frequencies, or the angles behind cos/sin
    (recovered with atan2, so only modulo 2 pi; the expected angle p * theta tells which turn)."""
    if task in ("rope_inv_freq", "pi_inv_freq", "ntk_inv_freq", "alibi_slopes"):
        return _f64(out)
    if task == "rope_cos_sin":
        return torch.atan2(_f64(out[1]), _f64(out[0]))
    if task == "sinusoidal_encoding":
        o = _f64(out)
        return torch.atan2(o[..., 0::2], o[..., 1::2])
    return None
