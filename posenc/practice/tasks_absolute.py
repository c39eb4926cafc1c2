"""The Practice tasks of the absolute encodings: ``sinusoidal_encoding`` (sin/cos interleaved),
``sinusoidal_concat`` (tensor2tensor's ``[sin | cos]``) and ``learned_lookup`` (a learned table, which
must refuse positions past it).

References:
    Vaswani et al. 2017 (sinusoidal); tensor2tensor ``common_attention.get_timing_signal_1d``.
"""

from __future__ import annotations

import math

import torch

from .. import sinusoidal_encoding
from .framework import Case, _close, _Crash, _f64, _float32, _g, _shape, _tol_angles, _Variant, _Wrong
from .precision import _CURRENT
from .running import _expected


# ---- sinusoidal -------------------------------------------------------------------------------------
def _ref_sin(seq_len, d_model, base=10000.0):
    return sinusoidal_encoding(seq_len, d_model, base)


def _sin_variant(
    seq_len,
    d_model,
    base=10000.0,
    *,
    exp_scale=2.0,
    start=0,
    layout="interleaved",
    dtype=torch.float64,
    swap=False,
    multiply=False,
    denom_minus=0,
    per_column=False,
    fixed_base=None,
    no_denom=False,
    flip=False,
    stack0=False,
    sin_only=False,
    abs_cos=False,
):
    base = base if fixed_base is None else fixed_base
    i = torch.arange(d_model // 2, dtype=torch.float64)
    denom = 1 if no_denom else max(d_model - denom_minus, 1)
    freq = (base ** (-exp_scale * i / denom)) if not multiply else base ** (exp_scale * i / denom)
    if flip:  # the frequencies in reverse order: the slowest pair first
        freq = freq.flip(0)
    pos = torch.arange(start, start + seq_len, dtype=torch.float64)
    ang = (pos.to(dtype)[:, None] * freq.to(dtype)[None, :]).to(torch.float64)
    s, c = torch.sin(ang), torch.cos(ang)
    if per_column:  # column j uses base^(-j/d): the odd (cos) columns get base^(-(2i+1)/d)
        c = torch.cos(pos[:, None] * base ** (-(2 * i + 1) / denom)[None, :])
    if swap:
        s, c = c, s
    if sin_only:  # the sine written into both columns of each pair
        c = s
    if abs_cos:  # cos as √(1 − sin²) = |cos|, in float32 as a learner computes it: the sign of cos is lost
        s32 = torch.sin(pos.float()[:, None] * freq.float()[None, :])
        s, c = s32.double(), (1 - s32 * s32).clamp(min=0).sqrt().double()
    if layout == "concat":
        return torch.cat([s, c], dim=-1).float()
    if stack0:  # stacked on a new first axis [2, L, d/2], then reshaped: rows of sin, then rows of cos
        return torch.stack([s, c], dim=0).reshape(seq_len, d_model).float()
    return torch.stack([s, c], dim=-1).reshape(seq_len, d_model).float()


def _sin_cases():
    out = []
    for L, d, base in [
        (1, 2, 10000.0),
        (1, 8, 10000.0),
        (5, 6, 10000.0),
        (16, 32, 10000.0),
        (50, 64, 100.0),
        (200, 128, 10000.0),
        (4096, 16, 10000.0),
    ]:
        out.append(Case(f"seq_len={L}, d_model={d}, base={base:g}", (L, d, base), tol=_tol_angles(L)))
    return out + _again_with_another_base(4, 10)


def _again_with_another_base(L, d):
    """Two inputs of one shape, base 500 then 10000, the second calling the first again: a result cached by
    shape alone, ignoring the base, comes back for the second (500 is no base a function hard-codes)."""
    first = Case(f"seq_len={L}, d_model={d}, base=500", (L, d, 500.0), tol=_tol_angles(L))
    again = Case(
        f"seq_len={L}, d_model={d}, base=10000 (the shape called again with another base)",
        (L, d, 10000.0),
        tol=_tol_angles(L),
        repeats=first.label,
    )
    return [first, again]


def _sin_structure(case, out):
    L, d = case.args[:2]
    return _float32(_shape(out, (L, d)))


def _prop_row0(case, out, run):
    want = torch.zeros(case.args[1])
    want[1::2] = 1
    if _close(out[0], want, 1e-6):
        return "row 0 (position 0) is not [sin 0, cos 0, ...] = [0, 1, 0, 1, ...]"
    return None


def _prop_unit_pairs_interleaved(case, out, run):
    o = _f64(out)
    r = o[..., 0::2] ** 2 + o[..., 1::2] ** 2
    if not float((r - 1).abs().max()) <= 1e-4:
        return _unit_drift((r - 1).abs().amax(-1), torch.arange(r.shape[0]), "sin² + cos²") or (
            "columns (2i, 2i+1) are not a (sin, cos) pair: sin² + cos² ≠ 1"
        )
    return None


def _unit_drift(dev: torch.Tensor, positions: torch.Tensor, what: str, tol: float = 1e-4) -> str | None:
    """When ``what`` (sin² + cos², per row) is within ``tol`` of 1 at the first 8 positions or more and then
    drifts away, staying off at most later positions: the message saying so, else None."""
    order = torch.argsort(positions)
    dev, positions = dev[order], positions[order]
    bad = dev > tol
    if dev.numel() < 16 or not bool(bad.any()):
        return None
    first = int(torch.nonzero(bad)[0][0])
    if first < 8 or not float(bad[first:].double().mean()) >= 0.5:
        return None
    return (
        f"{what} drifts away from 1 as the position grows: within {tol:g} of 1 up to position "
        f"{int(positions[first - 1])}, off by {float(dev[-1]):.2g} at position {int(positions[-1])}. Rounding that "
        "piles up does this: a row built from the previous one (an angle-addition recurrence) in float32 adds an "
        "error at every step; compute each angle p·θ_i directly"
    )


def _sin_mistakes():
    def mk(**kw):
        return _Variant(_sin_variant, **kw)

    return [
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", mk(exp_scale=1.0)),
        ("exponent 4i/d: arange(0, d, 2) already holds 2i, and it was doubled again", mk(exp_scale=4.0)),
        ("positions start at 1", mk(start=1)),
        (
            "sin and cos concatenated [sin | cos] (tensor2tensor's layout) instead of interleaved",
            mk(layout="concat"),
        ),
        ("sin and cos swapped: cos in the even columns, sin in the odd ones", mk(swap=True)),
        (
            "sine in every column: the odd columns 2i+1 hold cos(p·θ_i), yours repeat the sine of the even column",
            mk(sin_only=True),
        ),
        (
            "cos computed as √(1 − sin²): that is |cos|, so the sign is lost wherever the angle lies between π/2 "
            "and 3π/2 (mod 2π); take torch.cos of the angle itself",
            mk(abs_cos=True),
        ),
        ("positions multiplied by base^(+2i/d) (wavelengths) instead of divided", mk(multiply=True)),
        ("base ignored: 10000 hard-coded", mk(fixed_base=10000.0)),
        ("exponent 2i/(d−2) (a linspace to 1) instead of 2i/d", mk(denom_minus=2)),
        ("exponent 2i/(d−1) instead of 2i/d: the denominator is d_model itself", mk(denom_minus=1)),
        (
            "integer division: torch.arange(0, d, 2) // d is 0 for every pair, so every frequency is 1; divide "
            "as floats (torch.arange(0, d, 2).float() / d)",
            mk(exp_scale=0.0),
        ),
        ("angles computed in float16", mk(dtype=torch.float16)),
        ("angles computed in bfloat16", mk(dtype=torch.bfloat16)),
        (
            "a per-column exponent base^(-j/d): the cos in column 2i + 1 must share the sin's frequency "
            "base^(-2i/d), not use base^(-(2i+1)/d)",
            mk(per_column=True),
        ),
        (
            "exponent 2i instead of 2i/d: without the division by d_model the frequencies base^(−2i) fall by a "
            "factor base² from one pair to the next; they are base^(−2i/d), torch.arange(0, d, 2) / d",
            mk(no_denom=True),
        ),
        (
            "frequencies in reverse order (flipped): θ_i = base^(-2i/d) falls with i, from θ_0 = 1 (the fastest "
            "pair, columns 0 and 1) to the slowest",
            mk(flip=True),
        ),
        (
            "sin and cos stacked on a new first axis, torch.stack([sin, cos], 0).reshape(L, d): that puts all the "
            "rows of sin before all the rows of cos, so each output row mixes the values of other positions; stack "
            "on the last axis, torch.stack([sin, cos], -1).reshape(L, d), to interleave each position's (sin, cos)",
            mk(stack0=True),
        ),
    ]


def _rows_drift(cases, outs, usable) -> str | bool:
    """An angle task's output right at the first positions and wrong from some position on, on every wrong input
    (of 8 rows or more): the error grows with the position, as rounding that piles up along a recurrence does."""
    t = _CURRENT[0]
    expected, _ = _expected(t)
    seen = []
    for i in usable:
        o, e, case = outs[i], expected[i], cases[i]
        if isinstance(o, _Crash) or isinstance(e, _Crash):
            return False
        parts = [(_f64(a), _f64(b)) for a, b in (zip(o, e) if isinstance(o, tuple) else [(o, e)])]
        err = torch.stack([(a - b).abs().amax(-1) for a, b in parts]).amax(0)  # per row
        pos = case.args[0]
        pos = torch.arange(err.numel()) if isinstance(pos, int) else pos
        if err.numel() < 8:
            return False
        order = torch.argsort(pos)
        err, pos = err[order], pos[order]
        bad = err > case.tol
        first = int(torch.nonzero(bad)[0][0]) if bool(bad.any()) else None
        if first is None or first < 8 or not float(bad[first:].double().mean()) >= 0.5:
            return False
        tail = err.numel() - max(1, err.numel() // 8)  # the last eighth of the rows
        worst = tail + int(err[tail:].argmax())
        if not float(err[worst]) >= float(err[first]):
            return False
        seen.append((int(pos[-1]), int(pos[first]), float(err[worst]), int(pos[worst]), case.label))
    if not seen:
        return False
    _, p0, e_worst, p_worst, where = max(seen)
    theta, stated = _STATED_FREQUENCY.get(t.name, _STATED_FREQUENCY["sinusoidal_encoding"])
    return (
        f"your values drift away from posenc's as the position grows: right up to position {p0 - 1}, then off by "
        f"more and more ({e_worst:.2g} at position {p_worst}, {where}). An error that grows with the position comes "
        f"from a frequency a little off (the angle p·{theta} multiplies its error by p) or from rounding that piles "
        "up along a recurrence (each row built from the previous one in float32): compute each angle "
        f"p·{theta} directly, with {stated} exactly as stated"
    )


#: Each angle task's frequency as its statement gives it: (symbol, formula), quoted by :func:`_rows_drift`.
_STATED_FREQUENCY = {
    "sinusoidal_encoding": ("θ_i", "θ_i = base^(−2i/d)"),
    "sinusoidal_concat": ("ω_i", "tensor2tensor's ω_i = base^(−i/max(d/2 − 1, 1)) = exp(−i·ln(base)/(d/2 − 1))"),
    "rope_cos_sin": ("θ_i", "θ_i = base^(−2i/d) (d = head_dim)"),
}


def _ref_sin_concat(seq_len, d_model, base=10000.0):
    half = d_model // 2
    inc = math.log(base) / max(half - 1, 1)
    inv = torch.exp(torch.arange(half, dtype=torch.float32) * -inc)
    ang = torch.arange(seq_len, dtype=torch.float32)[:, None] * inv[None, :]
    return torch.cat([torch.sin(ang), torch.cos(ang)], dim=-1)


def _concat_variant(
    L,
    d,
    base=1e4,
    *,
    denom=None,
    layout="concat",
    start=0,
    dtype=torch.float64,
    swap=False,
    log10=False,
    pad=False,
    i_start=0,
    vaswani=False,
    fixed_base=None,
    floor_inc=False,
    flip=False,
    floor_exp=False,
    multiply=False,
    all_d=False,
):
    base = base if fixed_base is None else fixed_base
    half = d if all_d else d // 2  # all_d: d frequencies over d − 1 steps, the sines kept by [:, :d]
    denom = half if vaswani else max(half - 1, 1) if denom is None else denom
    log_base = math.log10(base) if log10 else math.log(base)
    if floor_exp:  # i // (d/2 - 1): 0 for every pair but the last
        inv = torch.exp(-log_base * torch.div(torch.arange(half), denom, rounding_mode="floor").double())
    elif floor_inc:  # math.log(base) // (d/2 - 1): the increment rounded down to a whole number
        inv = torch.exp(-float(log_base // denom) * torch.arange(half, dtype=torch.float64))
    else:
        inv = torch.exp(-log_base * torch.arange(i_start, i_start + half, dtype=torch.float64) / denom)
    if multiply:  # exp(+ln(base)·i/(d/2 − 1)): the timescales base^(i/(d/2−1)) themselves, positions multiplied
        # computed in ``dtype`` throughout: the angles reach p·base, where float32's rounding moves sin and cos
        inv = torch.exp(torch.arange(half, dtype=dtype) * (log_base / denom)).double()
    if flip:  # the frequencies in reverse order: the slowest first
        inv = inv.flip(0)
    ang = (torch.arange(start, start + L, dtype=torch.float64).to(dtype)[:, None] * inv.to(dtype)[None, :]).double()
    s, c = torch.sin(ang), torch.cos(ang)
    if swap:
        s, c = c, s
    if layout == "interleaved":
        return torch.stack([s, c], -1).reshape(L, d).float()
    out = torch.cat([s, c], -1)[:, :d].float()
    if pad:
        out[0] = 0
    return out


def _concat_mistakes():
    def mk(**kw):
        return _Variant(_concat_variant, **kw)

    return [
        ("frequencies base^(-2i/d) (Vaswani's) instead of tensor2tensor's base^(-i/(d/2−1))", mk(vaswani=True)),
        (
            "sin and cos interleaved (Vaswani's layout) instead of concatenated [sin | cos]",
            mk(layout="interleaved"),
        ),
        ("positions start at 1", mk(start=1)),
        (
            "d frequencies instead of d/2 (exp(−ln(base)·i/(d − 1)), i up to d − 1), so [sin | cos] has 2d columns "
            "and [:, :d] keeps only the sines: the concat layout has d/2 frequencies exp(−ln(base)·i/(d/2 − 1)), "
            "their sines in the first half and their cosines in the second",
            mk(all_d=True),
        ),
        (
            "frequency index starts at 1: exp(-ln(base)·(i+1)/(d/2−1)); i runs 0, 1, ..., d/2 − 1, so the first "
            "frequency is 1",
            mk(i_start=1),
        ),
        ("[cos | sin] instead of [sin | cos]", mk(swap=True)),
        ("angles computed in float16", mk(dtype=torch.float16)),
        ("angles computed in bfloat16", mk(dtype=torch.bfloat16)),
        ("base ignored: 10000 hard-coded", mk(fixed_base=10000.0)),
        ("log10(base) where the exponent needs the natural log: exp(-ln(base)·i/(d/2−1))", mk(log10=True)),
        (
            "positions start at 2 (fairseq's padding_idx + 1 with padding_idx = 1): the task's positions are "
            "0, 1, ..., seq_len − 1",
            mk(start=2),
        ),
        (
            "row 0 zeroed, as fairseq's get_embedding does for its padding row: here position 0 is an ordinary "
            "position, [sin 0 | cos 0] = [0, ..., 0, 1, ..., 1]",
            mk(pad=True),
        ),
        (
            "two mistakes together: row 0 zeroed (fairseq's padding row) and the positions shifted by one (a zero "
            "row prepended, so row p holds position p − 1): here row p holds position p and row 0 is "
            "[sin 0 | cos 0] = [0, ..., 0, 1, ..., 1]",
            lambda L, d, b=1e4: _concat_variant(L, d, b, start=-1, pad=True),
        ),
        (
            "floor division in the log increment: math.log(base) // (d/2 − 1) rounds ln(base)/(d/2 − 1) down to a "
            "whole number (to 0 once d/2 − 1 > ln(base)); divide with /",
            mk(floor_inc=True),
        ),
        (
            "integer (floor) division in the exponent: i // (d/2 − 1) is 0 for every pair but the last, so those "
            "frequencies are all 1 (and the last is 1/base); divide with / on a float tensor, "
            "exp(−ln(base)·i/(d/2 − 1))",
            mk(floor_exp=True),
        ),
        (
            "frequencies in reverse order (flipped): exp(-ln(base)·i/(d/2−1)) falls with i, from 1 in column 0 "
            "(the fastest) to 1/base in column d/2 − 1 (the slowest)",
            mk(flip=True),
        ),
        (
            "positions multiplied by the timescales base^(i/(d/2−1)) instead of divided: exp(+ln(base)·i/(d/2−1)) "
            "grows with i; the frequencies are their inverses, exp(−ln(base)·i/(d/2−1)), from 1 down to 1/base",
            mk(multiply=True),
        ),
        (
            "positions multiplied by the timescales base^(i/(d/2−1)) instead of divided: exp(+ln(base)·i/(d/2−1)) "
            "grows with i; the frequencies are their inverses, exp(−ln(base)·i/(d/2−1)), from 1 down to 1/base",
            mk(multiply=True, dtype=torch.float32),
        ),
    ]


def _concat_cases():
    return [
        Case(f"seq_len={L}, d_model={d}, base={b:g}", (L, d, b), tol=_tol_angles(L))
        for L, d, b in [(1, 4, 1e4), (3, 6, 1e4), (16, 32, 1e4), (50, 64, 100.0), (4096, 16, 1e4)]
    ] + _again_with_another_base(4, 10)


def _prop_row0_concat(case, out, run):
    d = case.args[1]
    want = torch.cat([torch.zeros(d // 2), torch.ones(d // 2)])
    if _close(out[0], want, 1e-6):
        return "row 0 (position 0) is not [sin 0 ... | cos 0 ...] = [0, ..., 0, 1, ..., 1]"
    return None


# ---- learned table lookup ------------------------------------------------------------------------
def _ref_learned(table, positions):
    positions = torch.as_tensor(positions)
    if positions.numel() and (int(positions.min()) < 0 or int(positions.max()) >= table.shape[0]):
        raise IndexError("position outside the table")
    return table[positions]


def _learned_cases():
    g = _g(11)
    table, second = torch.randn(8, 4, generator=g), torch.randn(8, 4, generator=g)
    out = [
        Case("table [8, 4], positions [0]", (table, torch.tensor([0]))),
        Case("table [8, 4], positions [3, 0, 7]", (table, torch.tensor([3, 0, 7]))),
        Case("table [8, 4], positions [[1, 2], [5, 6]]", (table, torch.tensor([[1, 2], [5, 6]]))),
        Case("table [8, 4], positions 5 (a 0-d tensor: one position)", (table, torch.tensor(5))),
        Case("table [8, 4], positions [] (none: an empty int64 tensor)", (table, torch.tensor([], dtype=torch.long))),
        Case("table [8, 4], positions [7, 8] (8 is past the table)", (table, torch.tensor([7, 8])), expect_error=True),
        Case("table [8, 4], positions [12]", (table, torch.tensor([12])), expect_error=True),
        Case("table [8, 4], positions [-1]", (table, torch.tensor([-1])), expect_error=True),
        # a negative position at every place of the input, 0-d and 2-D included: a check of positions[0] only,
        # of the last position only, or of 1-D positions only lets -1 read the last row
        Case("table [8, 4], positions [-1, 2, 5] (-1 first)", (table, torch.tensor([-1, 2, 5])), expect_error=True),
        Case(
            "table [8, 4], positions [2, -1, 5] (-1 in the middle)",
            (table, torch.tensor([2, -1, 5])),
            expect_error=True,
        ),
        Case("table [8, 4], positions [2, 5, -1] (-1 last)", (table, torch.tensor([2, 5, -1])), expect_error=True),
        Case("table [8, 4], positions -1 (a 0-d tensor)", (table, torch.tensor(-1)), expect_error=True),
        Case(
            "table [8, 4], positions [[1, 2], [-1, 5]] (2-D, with -1)",
            (table, torch.tensor([[1, 2], [-1, 5]])),
            expect_error=True,
        ),
        Case(
            "a second table [8, 4], positions [3, 0, 7]",
            (second, torch.tensor([3, 0, 7])),
            repeats="table [8, 4], positions [3, 0, 7]",
        ),
        Case("a float64 table [8, 4], positions [3, 0, 7]", (second.double(), torch.tensor([3, 0, 7]))),
    ]
    return out


def _learned_structure(case, out):
    table, pos = case.args
    d = table.shape[1]
    if pos.dim() == 0 and isinstance(out, torch.Tensor) and tuple(out.shape) == (1, d):
        raise _Wrong(
            f"for a 0-d positions tensor (one position) the result has shape [1, {d}], expected [{d}]: the result's "
            "shape is positions.shape + (d,), as table[positions] gives; torch.atleast_1d or reshape(-1) adds a "
            "dimension"
        )
    out = _shape(out, tuple(pos.shape) + (d,))
    if out.dtype != table.dtype:
        kind, want = (str(t).replace("torch.", "") for t in (out.dtype, table.dtype))
        raise _Wrong(
            f"the rows are returned in {kind}: return them in the table's dtype ({want}), as table[positions] does; "
            "a cast such as .float(), .double() or .to(torch.float32) changes it"
        )
    return out


def _learned_mistakes():
    def clamp(t, p):
        return t[p.clamp(0, t.shape[0] - 1)]

    def wrap(t, p):
        return t[p % t.shape[0]]

    def negative(t, p):
        if p.numel() and int(p.max()) >= t.shape[0]:
            raise IndexError("past")
        return t[p]

    def off_by_one(t, p):
        if p.numel() and (int(p.max()) >= t.shape[0] - 1 or int(p.min()) < 0):
            raise IndexError("past")
        return t[p]

    def shifted(t, p):
        return _raise_past(t, p, 1)

    def arange(t, p):
        _raise_past(t, p, 0)
        return t[: p.numel()].reshape(*p.shape, t.shape[1])

    def checked(which):  # the range check on some positions only: the others index freely (-1 is the last row)
        def f(t, p):
            seen = {"first": p.reshape(-1)[:1], "last": p.reshape(-1)[-1:]}.get(which, p)
            skipped = {"0-d": p.dim() == 0, "2-D": p.dim() > 1, "1-D": p.dim() != 1}.get(which, False)
            if not skipped:
                _raise_past(t, seen, 0)
            return t[p]

        return f

    every = "check every position, whatever positions' shape: positions.min() < 0 or positions.max() >= max_len"
    return [
        *(
            (
                f"the range check looks only at the {which} position ({how}): a negative position elsewhere reads "
                f"from the end of the table (-1 is the last row); {every}",
                checked(which),
            )
            for which, how in (("first", "positions[0]"), ("last", "positions[-1]"))
        ),
        (
            "the range check is skipped for a 0-d positions tensor (one position): tensor(-1) reads the last row; "
            + every,
            checked("0-d"),
        ),
        (
            "the range check is skipped for positions of two or more dimensions: in a 2-D positions tensor a "
            "negative position reads from the end of the table (-1 is the last row); " + every,
            checked("2-D"),
        ),
        (
            "the range check is made only for 1-D positions: in a 0-d or 2-D positions tensor a negative position "
            "reads from the end of the table (-1 is the last row); " + every,
            checked("1-D"),
        ),
        ("positions past the table clamped to the last row instead of refused", clamp),
        ("positions past the table wrap around (p mod max_len) instead of refused", wrap),
        ("negative positions accepted (Python indexing reads from the end)", negative),
        ("refuses the last trained position max_len − 1 (off by one)", off_by_one),
        ("rows read one position later (positions start at 1)", shifted),
        ("returns rows 0..n−1 whatever the positions", arange),
    ]


def _raise_past(t, p, shift):
    if p.numel() and (int(p.min()) < 0 or int(p.max()) >= t.shape[0]):
        raise IndexError("past")
    return t[(p + shift).clamp(max=t.shape[0] - 1)]


def _tables_of(cases, outs, usable) -> list:
    """(output, input, seq_len, d_model) of each wrong input of a sinusoidal task; none if one of them raised."""
    if any(isinstance(outs[i], _Crash) for i in usable):
        return []
    return [(outs[i], cases[i], *cases[i].args[:2]) for i in usable]


def _rows_at_positions(cases, outs, usable) -> str | bool:
    """A sinusoidal table whose rows are right rows at the wrong positions, on every wrong input: each output
    row equals posenc's row of some position 0 .. L + 7, but not row r at r. Said with the positions: shifted
    by k (fairseq's tables start at padding_idx + 1 = 2), reversed, or the list."""
    t = _CURRENT[0]
    found = None
    for o, case, L, d in _tables_of(cases, outs, usable):
        if not 3 <= L <= 256:  # too few rows to tell, or too many to compare with every position
            continue
        table = _f64(t.reference(L + 8, d, *case.args[2:]))
        close = (_f64(o)[:, None, :] - table[None, :, :]).abs().amax(-1) <= case.tol  # [row, position]
        if not bool(close.any(1).all()):
            return False
        pos = close.double().argmax(1)
        if bool((pos == torch.arange(L)).all()):
            return False
        found = found or (pos, case.label, L)
    if found is None:
        return False
    pos, where, L = found
    if bool((pos == torch.arange(L) + pos[0]).all()):
        k = int(pos[0])
        how = f"shifted by {k}: row r holds position r + {k}" + (
            " (fairseq's tables start at padding_idx + 1 = 2)" if k == 2 else ""
        )
    elif bool((pos == torch.arange(L - 1, -1, -1)).all()):
        how = "in reverse order: row r holds position L − 1 − r (a flip)"
    else:
        how = f"rows at positions {[int(p) for p in pos[:8]]}{' ...' if L > 8 else ''}"
    return (
        f"your rows are right rows at the wrong positions, {how} (first at {where}): row r must hold "
        "position r, with positions torch.arange(seq_len) from 0"
    )


def _read_frequencies(cases, outs, usable) -> str | bool:
    """A sinusoidal table that is sin and cos of p·θ_i for frequencies θ other than posenc's, on every wrong input:
    θ read from the row at position 1 (each angle below π), then checked on every row. Said with the frequencies
    of the smallest such input and how they are spaced: geometric with posenc's ratio raised to a whole power (an
    exponent k times too large), timescales 1/θ_i evenly spaced (linear instead of geometric), or the list."""
    from .precision import _angles_of

    t = _CURRENT[0]
    found = None
    for o, case, L, d in _tables_of(cases, outs, usable):
        if L < 2 or d < 4:
            continue
        angles = _angles_of(t.name, o)
        if angles is None:
            return False
        theta = angles[1]
        if not bool((theta > 0).all()):
            return False
        a = torch.arange(L, dtype=torch.float64)[:, None] * theta[None, :]
        s, c = a.sin(), a.cos()
        want = torch.cat([s, c], -1) if t.name == "sinusoidal_concat" else torch.stack([s, c], -1).reshape(L, d)
        if _close(o, want, case.tol + 8 * float(a.abs().max()) * 2.0**-24):  # True: not within the tolerance
            return False
        ref_angles = _angles_of(t.name, t.reference(2, d, *case.args[2:]))
        if ref_angles is None:
            return False
        ref = ref_angles[1]
        if bool(((theta - ref).abs() <= 1e-6 * (1 + ref)).all()):
            return False
        if found is None or d < found[0]:
            found = (d, theta, ref, case.label)
    if found is None:
        return False
    d, theta, ref, where = found
    ratio, ref_ratio = theta[1:] / theta[:-1], float(ref[1] / ref[0])
    power = math.log(float(ratio.mean())) / math.log(ref_ratio)
    scales = 1 / theta
    if bool(((ratio / ratio.mean() - 1).abs() < 1e-3).all()) and abs(power - round(power)) < 0.02 and round(power) > 1:
        how = (
            f"they fall geometrically with posenc's ratio to the power {round(power)} per frequency: the exponent "
            f"is {round(power)} times too large"
        )
    elif bool(((scales.diff() / scales.diff().mean() - 1).abs() < 1e-2).all()):
        how = "their timescales 1/θ_i are evenly spaced (linear, torch.linspace) instead of geometric"
    else:
        how = "they are not posenc's geometric sequence"
    show = ", ".join(f"{float(v):.4g}" for v in theta[:6]) + (", ..." if len(theta) > 6 else "")
    right = ", ".join(f"{float(v):.4g}" for v in ref[:6]) + (", ..." if len(ref) > 6 else "")
    return (
        f"your frequencies are not posenc's: read from the row at position 1 of {where}, θ = [{show}] where "
        f"posenc's are [{right}]; {how} (posenc's fall geometrically, from 1 down to 1/base)"
    )
