"""The detectors of low precision: a result off from posenc by the relative error float16 or bfloat16
rounding leaves, in the angles behind cos/sin or in the frequencies, is diagnosed as "angles computed
in float16" (or bfloat16) even when no known mistake matches it exactly.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from .framework import _close, _Crash, _f64
from .running import _expected

#: The task ``_diagnose`` is diagnosing, read by the detectors ``_lowp`` builds.
_CURRENT: list = [None]


_ANGLE_TASKS = ("sinusoidal_encoding", "sinusoidal_concat", "rope_cos_sin")


def _theta(task: str, d: int, base: float) -> torch.Tensor:
    """The frequencies of an angle task in float64, each task's own: tensor2tensor's ω_i = base^(−i/max(d/2 − 1, 1))
    for ``sinusoidal_concat``, θ_i = base^(−2i/d) for the others."""
    if task == "sinusoidal_concat":
        half = d // 2
        return torch.exp(-math.log(base) * torch.arange(half, dtype=torch.float64) / max(half - 1, 1))
    return base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)


def _lowp(kind: str, what: str = "angles", *, fixed_base: float | None = None, flipped: bool = False):
    """A detector: the result is off from posenc by a relative error of float16 (2^-11 per rounding) or
    bfloat16 (2^-8) rounding, the kind of error low-precision angles or frequencies leave. With ``fixed_base``
    (angle tasks only), off by that much from the angles at that base whatever ``base`` was passed: two mistakes
    at once, the base ignored and the angles in low precision. With ``flipped`` (frequency tasks), the result
    read in reverse order is: two mistakes at once, the frequencies flipped and computed in low precision."""
    limit = {"float16": (2e-5, 1.6e-3), "bfloat16": (1.6e-3, 5e-2)}[kind]

    def detect(cases, outs, usable):
        t = _CURRENT[0]
        if flipped:
            outs = [o.flip(-1) if isinstance(o, torch.Tensor) else o for o in outs]
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
        grid = _grid(t.name, [outs[i] for i in usable])
        if grid is not None:  # the values themselves say which dtype computed them last
            return grid == kind and 2.0**-14 < worst < 5e-2
        if t.name == "alibi_slopes":  # slopes off by a low-precision-sized error but on no grid: no evidence
            return False
        if t.name in _FREQ_TASKS:  # else only a base or exponents rounded to that dtype are evidence of it
            said = [_rounded_inputs(t.name, cases[i], outs[i], kind) for i in usable if not isinstance(outs[i], _Crash)]
            return bool(said) and all(m for m, _ in said) and any(v for _, v in said)
        if t.name in _ANGLE_TASKS:  # angles: only positions, frequencies or products rounded to that dtype
            said = [
                _rounded_angles(t.name, cases[i], outs[i], kind, fixed_base)
                for i in usable
                if not isinstance(outs[i], _Crash)
            ]
            return bool(said) and all(m for m, _ in said) and any(v for _, v in said)
        if kind == "float16" and nan_where_finite:  # float16 overflow past 65504 leaves inf/NaN
            return 2.0**-14 < worst < hi
        return lo < worst < hi

    if fixed_base is not None:
        return (
            f"two mistakes together: base ignored ({fixed_base:g} hard-coded) and {what} computed in {kind}",
            detect,
        )
    if flipped:
        return (
            f"two mistakes together: the {what} in reverse order (flipped: θ_i must fall with i, from the largest at "
            f"i = 0) and computed in {kind}",
            detect,
        )
    return (f"{what} computed in {kind}", detect)


_FREQ_TASKS = ("rope_inv_freq", "pi_inv_freq", "ntk_inv_freq")


def _rounded_inputs(task: str, case, out, kind: str) -> tuple[bool, bool]:
    """(matches, rounding shows): a frequency task's output equals θ_i = B^(−2i/d) (divided by the factor for PI)
    with the base B, or the base argument, or the exponents 2i/d first rounded to ``kind`` (the float32
    arithmetic after that step leaves no grid to read, but the rounded inputs can be recomputed); the second
    says whether that rounding changed the frequencies on this input."""
    dt = {"float16": torch.float16, "bfloat16": torch.bfloat16}[kind]
    o = _f64(out)
    d, b = case.args[0], float(case.args[1]) if len(case.args) > 1 else 10000.0
    big = b
    if task == "pi_inv_freq":
        o = o * case.args[2]
    elif task == "ntk_inv_freq":
        s = case.args[2]
        big = b * s ** (d / (d - 2))
    if o.shape != (d // 2,):
        return False, False

    def rnd(v):
        return torch.as_tensor(v, dtype=torch.float64).to(dt).to(torch.float64)

    def near(a, b):
        return bool(((a == b) | ((a - b).abs() <= 2e-5 * b.abs())).all())

    e = torch.arange(0, d, 2, dtype=torch.float64) / d
    exact = torch.tensor(big, dtype=torch.float64) ** (-e)
    matched = False
    for base in (torch.tensor(big, dtype=torch.float64), rnd(big), rnd(b) * (big / b)):
        for ex in (e, rnd(e)):
            want = base ** (-ex)
            if near(o, want):
                matched = True
                if not near(want, exact):
                    return True, True
    return matched, False


_BITS = {"float16": 11, "bfloat16": 8}


def _rounded_angles(task: str, case, out, kind: str, fixed_base: float | None = None) -> tuple[bool, bool]:
    """An angle task's output is cos and sin of the angles p·θ_i with the positions, the frequencies or their
    product (or several of them) rounded to ``kind``: recomputed in float64 and compared modulo 2π, within float32
    rounding (and the rounding of cos and sin themselves when the output values sit on ``kind``'s grid); every
    (sin, cos) pair must keep length 1. Returns (matches, rounding shows): the second says whether that rounding
    changed some angle on this input (without it, the input is no evidence either way)."""
    dt = {"float16": torch.float16, "bfloat16": torch.bfloat16}[kind]

    def rnd(v: torch.Tensor) -> torch.Tensor:
        return v.to(dt).to(torch.float64)

    d = case.args[1]
    base = float(case.args[2]) if len(case.args) > 2 else 10000.0
    base = base if fixed_base is None else fixed_base
    theta = _theta(task, d, base)
    if task == "sinusoidal_encoding":
        p = torch.arange(case.args[0], dtype=torch.float64)
        o = _f64(out)
        parts = [(o[..., 0::2], o[..., 1::2])]  # (sin, cos)
    elif task == "sinusoidal_concat":
        p = torch.arange(case.args[0], dtype=torch.float64)
        o = _f64(out)
        parts = [(o[..., : d // 2], o[..., d // 2 :])]  # [sin | cos]
    else:
        pos = case.args[0]
        p = torch.arange(pos, dtype=torch.float64) if isinstance(pos, int) else pos.to(torch.float64)
        parts = [(_f64(out[1]), _f64(out[0]))]
    ang = _angles_of(task, out)
    if ang is None:
        return False, False
    vals = torch.cat([torch.cat([a.flatten(), b.flatten()]) for a, b in parts])
    vals = vals[torch.isfinite(vals) & (vals != 0)]
    on_grid = vals.numel() > 0 and _fits(vals, _BITS[kind])
    slack = 2.0 ** -_BITS[kind] * 2 if on_grid else 0.0
    norm = torch.cat([(a**2 + b**2).flatten() for a, b in parts])
    if not bool(((norm - 1).abs() <= 1e-4 + 4 * slack)[torch.isfinite(norm)].all()):
        return False, False
    exact = p[:, None] * theta[None, :]
    matched = False
    for p_c in (p, rnd(p)):
        for th_c in (theta, rnd(theta.float().double()), rnd(theta)):
            for last in (False, True):
                cand = p_c[:, None] * th_c[None, :]
                cand = rnd(cand) if last else cand
                if task == "rope_cos_sin":
                    cand, ref = torch.cat([cand, cand], -1), torch.cat([exact, exact], -1)
                else:
                    ref = exact
                if cand.shape != ang.shape:
                    return False, False
                fin = torch.isfinite(cand)
                if not bool((~torch.isfinite(ang))[~fin].all()):
                    continue
                tol = 1e-5 + 8 * cand.abs() * 2.0**-24 + slack
                diff = (torch.remainder(ang - cand + math.pi, 2 * math.pi) - math.pi).abs()
                if not bool((diff <= tol)[fin].all()):
                    continue
                matched = True
                moved = (torch.remainder(cand - ref + math.pi, 2 * math.pi) - math.pi).abs() > tol
                if bool((moved | ~fin).any()):
                    return True, True
    return matched, False


def _grid(task: str, outs) -> str | None:
    """The low-precision dtype whose grid holds every finite, nonzero value of a frequency task's outputs
    (a result computed in float16 or bfloat16 and then cast to float32 keeps that dtype's values): "bfloat16"
    when they all fit bfloat16's 8-bit significand, "float16" when they fit float16's 11 bits, None otherwise
    (angles, or a low-precision step followed by float32 arithmetic: then the size of the error decides).

    The relative error alone cannot tell the two apart for frequencies: base^(−2i/d) turns an error ε in the
    base or the exponent into about ε·ln(base), so float16's error at base 5e5 reaches bfloat16's band."""
    if task not in ("rope_inv_freq", "pi_inv_freq", "ntk_inv_freq", "alibi_slopes"):
        return None
    vals = [_f64(o) for o in outs if not isinstance(o, _Crash)]
    vals = [v[torch.isfinite(v) & (v != 0)] for v in vals]
    if not vals or sum(v.numel() for v in vals) < 4:
        return None
    allv = torch.cat(vals)
    if _fits(allv, 4):  # simple numbers (powers of two, 1.5, ...) sit on every grid: no evidence
        return None
    if _fits(allv, 8):
        return "bfloat16"
    if _fits(allv, 11) and bool((allv.abs() >= 2.0**-24).all() & (allv.abs() <= 65504).all()):
        return "float16"
    return None


def _lowp_words(kind: str, inputs: str, x: str = "float32 inputs") -> str:
    """The first part of a diagnosis of a computation in ``kind`` (bfloat16 or float16): which inputs were cast
    down, and the significant bits and relative rounding error that leaves."""
    bits = 8 if kind == "bfloat16" else 11
    return (
        f"computed in {kind} for {x}: {inputs} cast to {kind} keep {bits} significant bits, a relative rounding "
        f"error of up to 2^−{bits} at each step"
    )


def _lowp_output(say, bound: float | None = None):
    """A detector of a whole computation done in bfloat16 or float16 for float32 inputs: on every wrong input the
    first argument is float32 and every finite nonzero output value sits on that dtype's grid (8 or 11 significant
    bits, and not all simple numbers that sit on every grid), the same dtype on every one; said as ``say(kind)``.

    With ``bound``, the output must also stay within bound · 2^−bits · (1 + max |posenc|) of posenc's: the rounding
    error of that dtype carried through the computation, so that a wrong formula computed in bfloat16 is not called
    a precision slip only. For attention each step (the inputs, the logits, the weights, the weighted sums) rounds
    to a relative 2^−bits and the softmax turns an absolute logit error into a relative weight error: a few times
    2^−bits of the output's scale (about 1.3 · 2^−8 on the shaw_attention inputs), so a bound of 16 leaves room for
    other orders of operations, while a wrong formula moves the output by a share of its own size."""

    def detect(cases, outs, usable) -> str | bool:
        kinds = set()
        for i in usable:
            o, x = outs[i], cases[i].args[0]
            if isinstance(o, _Crash) or not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
                return False
            full = _f64(o)
            v = full[torch.isfinite(full) & (full != 0)]
            if v.numel() < 4 or _fits(v, 4):
                return False
            kind, bits = ("bfloat16", 8) if _fits(v, 8) else ("float16", 11) if _fits(v, 11) else (None, 0)
            if kind is None:
                return False
            if bound is not None:
                e = _f64(_expected(_CURRENT[0])[0][i])
                if e.shape != full.shape or not float((full - e).abs().max()) <= bound * 2.0**-bits * (
                    1 + float(e.abs().max())
                ):
                    return False
            kinds.add(kind)
        if len(kinds) != 1:
            return False
        return say(kinds.pop())

    return detect


def _lowp_computed(inputs: str):
    """``_lowp_output`` for a whole computation (attention) on float32 inputs, said with the ``inputs`` cast down
    and a bound of 16 (see there)."""
    return _lowp_output(
        lambda kind: (
            _lowp_words(kind, inputs)
            + f", and every value of your output sits on {kind}'s grid; compute in the inputs' dtype (no "
            f".to(torch.{kind}), no autocast)"
        ),
        bound=16,
    )


def _fits(v: torch.Tensor, bits: int) -> bool:
    """Every value of ``v`` has a significand of at most ``bits`` bits (the implicit leading one included)."""
    mantissa, _ = torch.frexp(v)  # v = mantissa · 2^e with 0.5 <= |mantissa| < 1
    scaled = mantissa * 2.0**bits
    return bool((scaled == scaled.round()).all())


def _true_angles(task: str, case, fixed_base: float | None = None) -> torch.Tensor | None:
    """The exact angles p * theta_i of an angle task's input, in float64 and not wrapped: the relative error
    of the learner's angle is measured against these, never against an atan2 angle in [-pi, pi]."""
    if task in ("sinusoidal_encoding", "sinusoidal_concat"):
        L, d = case.args[:2]
        base = float(case.args[2]) if len(case.args) > 2 else 10000.0
        base = base if fixed_base is None else fixed_base
        return torch.arange(L, dtype=torch.float64)[:, None] * _theta(task, d, base)[None, :]
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
    if task == "sinusoidal_concat":
        o = _f64(out)
        half = o.shape[-1] // 2
        return torch.atan2(o[..., :half], o[..., half:])
    return None


def _other_base(cases, outs, usable) -> str | bool:
    """An angle task's output that is exactly cos and sin of p·B'^(−2i/d), on every wrong input, for another base
    B' than the one passed: B' read from a row at position 1 (the angle B'^(−2i/d) itself, below π) of an input
    with that base, then checked on every row of every wrong input with that base. Said with B' on the first."""
    t = _CURRENT[0]

    def args(case):
        pos, d = case.args[0], case.args[1]
        base = float(case.args[2]) if len(case.args) > 2 else 10000.0
        p = torch.arange(pos, dtype=torch.float64) if isinstance(pos, int) else pos.to(torch.float64)
        return p, d, base

    found: dict[float, tuple[float, str]] = {}
    for i in usable:
        o, case = outs[i], cases[i]
        if isinstance(o, _Crash):
            return False
        p, d, base = args(case)
        ang = _angles_of(t.name, o)
        rows = torch.nonzero(p == 1)
        if ang is None or d < 4 or rows.numel() == 0 or base in found:
            continue
        theta = ang[int(rows[0][0]), : d // 2]
        if bool((theta > 0).all()):
            found[base] = (float(theta[1]) ** (-d / 2), case.label)
    if not found:
        return False
    for i in usable:
        o, case = outs[i], cases[i]
        p, d, base = args(case)
        if base not in found or not abs(found[base][0] / base - 1) > 1e-4:
            return False
        a = p[:, None] * (found[base][0] ** (-torch.arange(0, d, 2, dtype=torch.float64) / d))[None, :]
        if t.name == "rope_cos_sin":
            a = torch.cat([a, a], -1)
            want: Any = (a.cos(), a.sin())
        else:
            want = torch.stack([a.sin(), a.cos()], -1).reshape(a.shape[0], d)
        if _close(o, want, case.tol + 8 * float(a.abs().max()) * 2.0**-24):  # the values, not only the angles
            return False
    base, (eff, where) = next(iter(found.items()))
    return (
        f"your angles are p·B^(−2i/d) with another base, B = {eff:.6g}, where base = {base:g} was passed ({where}): "
        "the frequencies must come from the base argument, θ_i = base^(−2i/d); look at how the base reaches them"
    )
