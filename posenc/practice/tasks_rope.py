"""The Practice tasks of RoPE: ``rope_inv_freq``, ``rope_cos_sin`` (half layout), ``apply_rope_half``,
``apply_rope_interleaved`` and ``apply_rope_offset`` (a decode step at positions ``offset, offset + 1,
...``).

References:
    Su et al. 2021 (RoPE) and Hugging Face ``modeling_llama.apply_rotary_pos_emb``.
"""

from __future__ import annotations

import math

import torch

from .. import apply_rope, rope_cos_sin, rope_inv_freq
from .framework import Case, _close, _Crash, _f64, _float32, _g, _pair, _shape, _tol_angles, _Variant, _Wrong
from .precision import _lowp_output, _lowp_words
from .tasks_absolute import _unit_drift

# ---- RoPE ------------------------------------------------------------------------------------------------
_LOG_BASE = (
    "the logarithm of the base taken in the wrong base (log10 or log2): base^(−2i/d) = exp(−ln(base)·2i/d) needs "
    "the natural log, or write base ** (−2i/d) directly"
)


_PRECEDENCE = (
    "operator precedence: base ** -(2i) / d is (base^(−2i))/d, since ** binds tighter than /; put the exponent "
    "in parentheses, base ** (-(2i) / d), that is base ** (-torch.arange(0, d, 2) / d)"
)


def _inv_variant(
    d,
    base=10000.0,
    *,
    exp_scale=2.0,
    start=0,
    sign=-1,
    dtype=torch.float64,
    denom=None,
    denom_minus=0,
    fixed_base=None,
    flip=False,
    odd=False,
    ones=False,
    linear=False,
    cycles=False,
    precedence=False,
):
    base = base if fixed_base is None else fixed_base
    if linear:  # torch.linspace(1, 1/base, d/2): evenly spaced instead of geometric
        return torch.linspace(1.0, 1.0 / float(base), d // 2, dtype=torch.float64).float()
    i = torch.arange(start, start + d // 2, dtype=torch.float64) + (0.5 if odd else 0.0)  # odd: (2i+1)/d
    denom = max(d - denom_minus, 1) if denom is None else denom
    out = (torch.tensor(float(base), dtype=dtype) ** (sign * exp_scale * i.to(dtype) / denom)).float()
    if precedence:  # base ** -(2i) / d: ** binds tighter than /, so this is base^(−2i) divided by d
        out = ((torch.tensor(float(base), dtype=dtype) ** (sign * exp_scale * i.to(dtype))) / denom).float()
    if ones:  # integer division: every exponent 0
        out = torch.ones(d // 2)
    if cycles:  # turns per position instead of radians
        out = (out.double() / (2 * math.pi)).float()
    return out.flip(0) if flip else out


def _inv_cases():
    out = [
        Case(f"head_dim={d}, base={b:g}", (d, b), tol=2e-6 if d > 2 else 1e-7)
        for d, b in [(2, 1e4), (4, 1e4), (6, 1e4), (8, 500.0), (10, 1e4), (64, 1e4), (128, 5e5), (96, 1e6), (12, 500.0)]
    ]
    # head_dim 12 called again with another base: a result cached by head_dim alone comes back
    return out + [
        Case("head_dim=12, base=10000 (called again with another base)", (12, 1e4), tol=2e-6, repeats=out[-1].label)
    ]


def _half_entries(out, d: int) -> None:
    """A frequency result with d entries where d/2 belong: said in words (one frequency per pair)."""
    if isinstance(out, torch.Tensor) and tuple(out.shape) == (d,) and d > 1:
        raise _Wrong(
            f"the result has shape [{d}], expected [{d // 2}]: d entries instead of d/2, one frequency per pair "
            "(i = 0 .. d/2 − 1, the exponents torch.arange(0, d, 2) / d); duplicating them to d is the cos/sin "
            "tables' job, cat([a, a])"
        )


def _inv_structure(case, out):
    _half_entries(out, case.args[0])
    return _float32(_shape(out, (case.args[0] // 2,)))


def _prop_first_one(case, out, run):
    if not abs(float(out[0]) - 1) <= 1e-6:
        return f"θ_0 = {float(out[0]):.4g}; the first pair must turn at 1 rad per position (base^0)"
    return None


def _prop_geometric(case, out, run):
    o = _f64(out)
    if o.numel() < 2:
        return None
    ratio = o[1:] / o[:-1]
    d, base = case.args
    want = base ** (-2 / d)
    if not float((ratio - want).abs().max()) <= 1e-4 * want + 1e-7:
        return f"consecutive ratios {float(ratio.min()):.6g}..{float(ratio.max()):.6g}, want base^(-2/d) = {want:.6g}"
    return None


def _inv_mistakes():
    def mk(**kw):
        return _Variant(_inv_variant, **kw)

    return [
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", mk(exp_scale=1.0)),
        ("exponent 4i/d: arange(0, d, 2) already holds 2i, and it was doubled again", mk(exp_scale=4.0)),
        ("frequency index starts at 1: base^(-2(i+1)/d)", mk(start=1)),
        (
            "odd exponents (2i+1)/d: torch.arange(1, d, 2) holds 1, 3, 5, ...; the exponents are the even "
            "numbers 0, 2, 4, ... over d (torch.arange(0, d, 2)), so that θ_0 = 1",
            mk(odd=True),
        ),
        ("base^(+2i/d) (wavelength factors) instead of base^(-2i/d): the sign of the exponent", mk(sign=1)),
        ("exponent 2i/(d−2) (a linspace to 1) instead of 2i/d", mk(denom_minus=2)),
        ("base ignored: 10000 hard-coded", mk(fixed_base=1e4)),
        (
            "frequencies in reverse order (flipped): θ_i = base^(-2i/d) falls with i, from θ_0 = 1 (the fastest "
            "pair) to the slowest",
            mk(flip=True),
        ),
        (
            "integer division: torch.arange(0, d, 2) // d is 0 for every pair, so every frequency is 1; divide "
            "as floats (torch.arange(0, d, 2).float() / d)",
            mk(ones=True),
        ),
        (
            _LOG_BASE,
            lambda d, b=1e4: (2.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d * math.log10(b))).float(),
        ),
        (_LOG_BASE, lambda d, b=1e4: _inv_variant(d, 10.0 ** (math.log10(b) / math.log(10.0)))),
        (_LOG_BASE, lambda d, b=1e4: torch.exp(-math.log2(b) * torch.arange(0, d, 2, dtype=torch.float64) / d).float()),
        ("frequencies computed in float16", mk(dtype=torch.float16)),
        ("frequencies computed in bfloat16", mk(dtype=torch.bfloat16)),
        (
            "frequencies spaced evenly from 1 to 1/base (torch.linspace(1, 1/base, d/2)): RoPE's fall geometrically, "
            "θ_i = base^(−2i/d), each the one before times base^(−2/d), from θ_0 = 1 to base^(−(d−2)/d); use "
            "base ** (-torch.arange(0, d, 2) / d)",
            mk(linear=True),
        ),
        (
            "frequencies divided by 2π (turns per position instead of radians): θ_i = base^(−2i/d) is an angle in "
            "radians per position, θ_0 = 1, and cos and sin take radians",
            mk(cycles=True),
        ),
        (_PRECEDENCE, mk(precedence=True)),
    ]


def _pos_tensor(positions):
    if isinstance(positions, int):
        return torch.arange(positions)
    return positions


def _cs_variant(
    positions,
    d,
    base=10000.0,
    *,
    exp_scale=2.0,
    start=0,
    layout="half",
    dtype=torch.float32,
    swap=False,
    sin_sign=1,
    ignore_positions=False,
    inv_dtype=None,
    pos_dtype=None,
    sort=False,
    fixed_base=None,
    int_as_one=False,
    neg_half=None,
    flip_half=False,
    divide=False,
):
    base = base if fixed_base is None else fixed_base
    pos = torch.tensor([positions]) if int_as_one and isinstance(positions, int) else _pos_tensor(positions)
    if ignore_positions:
        pos = torch.arange(pos.numel())
    if sort:
        pos = pos.sort().values
    pos = pos + start
    inv = _inv_variant(d, base, exp_scale=exp_scale)
    if inv_dtype is not None:
        inv = inv.to(inv_dtype)
    if pos_dtype is not None:
        pos = pos.to(pos_dtype).float()
    ang = (pos.to(dtype)[:, None] * inv.to(dtype)[None, :]).float()
    if divide:  # p / θ_i: the positions divided by the frequencies (multiplied by the wavelengths / 2π)
        ang = (pos.to(dtype)[:, None] / inv.to(dtype)[None, :]).float()
    if layout == "half":
        ang = torch.cat([ang, ang.flip(-1) if flip_half else ang], -1)
    else:
        ang = ang.repeat_interleave(2, -1)
    c, s = ang.cos(), sin_sign * ang.sin()
    h = c.shape[-1] // 2
    if neg_half == "sin":  # rotate_half's minus baked into the table: cat([sin a, −sin a])
        s = torch.cat([s[..., :h], -s[..., h:]], -1)
    elif neg_half == "sin_first":
        s = torch.cat([-s[..., :h], s[..., h:]], -1)
    elif neg_half == "cos":
        c = torch.cat([c[..., :h], -c[..., h:]], -1)
    return (s, c) if swap else (c, s)


def _cs_case(pos, d, b, again="", repeats=""):
    lab, maxp = (f"positions={pos}", pos - 1) if isinstance(pos, int) else (f"positions={pos.tolist()}", int(pos.max()))
    tail = f" (called again with {again})" if again else ""
    return Case(f"{lab}, head_dim={d}, base={b:g}{tail}", (pos, d, b), tol=_tol_angles(maxp), repeats=repeats)


def _cs_cases():
    specs = [
        (1, 2, 1e4),
        (3, 4, 1e4),
        (8, 8, 1e4),
        (torch.tensor([5, 0, 17]), 8, 1e4),
        (64, 16, 500.0),
        (torch.tensor([1000, 2047, 3001]), 32, 1e4),
        (torch.tensor([4095, 4097, 8191, 15962]), 64, 1e4),
        (torch.tensor([70000, 131071]), 128, 5e5),
    ]
    out = [_cs_case(*spec) for spec in specs]
    # shapes called again with another base, then with other positions: a result cached by shape comes back
    ints, tensor = _cs_case(7, 12, 500.0), _cs_case(torch.tensor([9, 2, 30, 4, 7, 1]), 12, 500.0)
    return out + [
        ints,
        _cs_case(7, 12, 1e4, "another base", ints.label),
        tensor,
        _cs_case(tensor.args[0], 12, 1e4, "another base", tensor.label),
        _cs_case(torch.tensor([3, 17, 0, 8, 5, 11]), 12, 500.0, "other positions", tensor.label),
    ]


def _cs_structure(case, out):
    pos, d = case.args[:2]
    n = pos if isinstance(pos, int) else pos.numel()
    c, s = _pair(out)
    if isinstance(c, torch.Tensor) and tuple(c.shape) == (n, d // 2):
        raise _Wrong(
            f"cos has shape {list(c.shape)}, expected {[n, d]}: the half layout duplicates the d/2 angles "
            "as cat([a, a])"
        )
    return (_float32(_shape(c, (n, d), "cos"), "cos"), _float32(_shape(s, (n, d), "sin"), "sin"))


def _prop_unit(case, out, run):
    c, s = _f64(out[0]), _f64(out[1])
    dev = (c**2 + s**2 - 1).abs()
    if not float(dev.max()) <= 1e-4:
        return _unit_drift(dev.amax(-1), _pos_tensor(case.args[0]), "cos² + sin²") or "cos² + sin² ≠ 1"
    return None


def _prop_halves(case, out, run):
    d = case.args[1]
    for name, t in zip(("cos", "sin"), out):
        if not torch.equal(t[:, : d // 2], t[:, d // 2 :]) and _close(t[:, : d // 2], t[:, d // 2 :], 1e-6):
            return f"{name}[:, :d/2] ≠ {name}[:, d/2:]: the half layout duplicates the angles as cat([a, a])"
    return None


def _cs_mistakes():
    def mk(**kw):
        return _Variant(_cs_variant, **kw)

    return [
        (
            "angles repeated per pair (interleaved layout) instead of duplicated as cat([a, a]) (half layout)",
            mk(layout="interleaved"),
        ),
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", mk(exp_scale=1.0)),
        ("exponent 4i/d: arange(0, d, 2) already holds 2i, and it was doubled again", mk(exp_scale=4.0)),
        ("positions start at 1", mk(start=1)),
        (
            "angle p / θ_i instead of p · θ_i: inv_freq θ_i = base^(−2i/d) is already the inverse of a wavelength "
            "(over 2π), so the angle is the position times it",
            mk(divide=True),
        ),
        ("positions tensor ignored: arange(len(positions)) used", mk(ignore_positions=True)),
        ("cos and sin swapped", mk(swap=True)),
        ("sin negated: the tables rotate clockwise (R_{-m})", mk(sin_sign=-1)),
        ("base ignored: 10000 hard-coded", mk(fixed_base=1e4)),
        (
            "positions sorted: row r of cos and sin belongs to positions[r], in the order given",
            mk(sort=True),
        ),
        (
            "an int positions = n taken as the single position n (torch.as_tensor(n).reshape(-1) is [n]): an int n "
            "stands for the positions 0, 1, ..., n − 1, torch.arange(n); only a tensor lists the positions "
            "themselves",
            mk(int_as_one=True),
        ),
        (
            "sin table cat([sin a, −sin a]): rotate_half's minus baked into the table; rotate_half(x) = cat([−x2, "
            "x1]) already carries it, and the table is cat([sin a, sin a])",
            mk(neg_half="sin"),
        ),
        (
            "sin table cat([−sin a, sin a]): rotate_half's minus baked into the table; rotate_half(x) = cat([−x2, "
            "x1]) already carries it, and the table is cat([sin a, sin a])",
            mk(neg_half="sin_first"),
        ),
        ("cos table cat([cos a, −cos a]): the table is cat([cos a, cos a]), both halves alike", mk(neg_half="cos")),
        (
            "second half of the tables reversed, cat([a, a.flip(−1)]): column d/2 + i must hold the angle of pair i, "
            "the same as column i, so the tables are cat([a, a]) without a flip",
            mk(flip_half=True),
        ),
        ("angles computed in float16", mk(dtype=torch.float16)),
        ("angles computed in bfloat16", mk(dtype=torch.bfloat16)),
        ("angles computed in float16", mk(inv_dtype=torch.float16)),
        ("angles computed in bfloat16", mk(inv_dtype=torch.bfloat16)),
        ("angles computed in float16", mk(pos_dtype=torch.float16)),
        ("angles computed in bfloat16", mk(pos_dtype=torch.bfloat16)),
    ]


def _ref_cs(positions, head_dim, base=10000.0):
    return rope_cos_sin(positions, head_dim, base)


# apply RoPE
def _rot_half(x):
    x1, x2 = x.chunk(2, -1)
    return torch.cat([-x2, x1], -1)


def _apply_variant(
    x,
    cos,
    sin,
    *,
    layout="half",
    sign=1,
    swap=False,
    no_minus=False,
    concat_back=False,
    first_half_only=False,
    keep_dtype=True,
    plain_sin=False,
    sin_is_cos=False,
    wrong_partner=False,
    flip_partner=False,
    twice=False,
    complex_swap=False,
    row=None,
    second_sign=1,
    rows_flip=False,
    sin_for_cos=None,
    square_t=False,
    rot_axis=-1,
    half_angle=False,
    no_sin=None,
):
    dt = x.dtype
    if square_t and cos.shape[-1] == cos.shape[-2]:  # square tables taken as [d, L] and transposed
        cos, sin = cos.transpose(-1, -2), sin.transpose(-1, -2)
    if rows_flip:  # the tables' rows (positions) in reverse order: both, or "cos" or "sin" only
        cos = cos if rows_flip == "sin" else cos.flip(-2)
        sin = sin if rows_flip == "cos" else sin.flip(-2)
    if row is not None:  # one row of the tables (cos[0] or cos[-1]) for every position
        cos, sin = cos[..., row, :], sin[..., row, :]
    if twice:  # the rotation applied to its own result: angle 2·m·θ
        once = _apply_variant(x.double(), cos, sin, layout=layout)
        return _apply_variant(once, cos, sin, layout=layout).to(dt)
    xf, c, s = x.double(), cos.double(), sin.double()
    if sin_is_cos:  # a copy-paste slip: cos where sin belongs
        s = c
    if swap:
        c, s = s, c
    if half_angle:  # the half-angle forms: cos(a/2) and sin(a/2), up to sign, from cos a
        c, s = ((1 + c) / 2).sqrt(), torch.sign(s) * ((1 - c).clamp(min=0) / 2).sqrt()
    s = sign * s
    if layout == "half":
        x1, x2 = xf.chunk(2, -1)
        rh = torch.cat([x2 if no_minus else -x2, x1], -1)
        if wrong_partner:  # each half paired with itself: cat([-x1, x2])
            rh = torch.cat([-x1, x2], -1)
        if flip_partner:  # partner taken with a flip: coordinate i paired with d − 1 − i
            rh = torch.cat([-x2.flip(-1), x1.flip(-1)], -1)
        if rot_axis != -1:  # rotate_half's chunk and cat along another axis (the positions, dim −2)
            y1, y2 = xf.chunk(2, rot_axis)
            rh = torch.cat([-y2, y1], rot_axis)
        if plain_sin:
            rh = xf
        out = xf * c + rh * s
        if second_sign == -1:  # x2' = x2·cos − x1·sin: the second half rotated backwards
            h = xf.shape[-1] // 2
            out = torch.cat([out[..., :h], (xf * c - torch.cat([-x2, x1], -1) * s)[..., h:]], -1)
        if sin_for_cos is not None:  # cos replaced by sin in one half: x·sin + rotate_half(x)·sin there
            h = xf.shape[-1] // 2
            alt = xf * s + rh * s
            out = torch.cat([alt[..., :h], out[..., h:]] if sin_for_cos == 0 else [out[..., :h], alt[..., h:]], -1)
        if first_half_only:
            out = torch.cat([out[..., : xf.shape[-1] // 2], x2], -1)
        if no_sin is not None:  # one half of each pair without its sin term: x·cos there
            h = xf.shape[-1] // 2
            bare = xf * c
            out = torch.cat([bare[..., :h], out[..., h:]] if no_sin == 0 else [out[..., :h], bare[..., h:]], -1)
    else:
        x0, x1 = xf[..., 0::2], xf[..., 1::2]
        if complex_swap:  # torch.complex(x[..., 1::2], x[..., 0::2]): the odd coordinate taken as the real part
            x0, x1 = x1, x0
        c0, s0 = c[..., 0::2], s[..., 0::2]
        r0 = x0 * c0 - (-x1 if no_minus else x1) * s0
        r1 = x0 * s0 * second_sign + x1 * c0
        if plain_sin:
            r0, r1 = x0 * c0 + x0 * s0, x1 * c0 + x1 * s0
        if sin_for_cos == 0:  # cos replaced by sin in the even coordinate
            r0 = x0 * s0 - x1 * s0
        elif sin_for_cos == 1:  # cos replaced by sin in the odd coordinate
            r1 = x0 * s0 * second_sign + x1 * s0
        if no_sin == 0:  # the even coordinate without its sin term
            r0 = x0 * c0
        elif no_sin == 1:  # the odd coordinate without its sin term
            r1 = x1 * c0
        out = torch.cat([r0, r1], -1) if concat_back else torch.stack([r0, r1], -1).flatten(-2)
        if first_half_only:
            out = torch.stack([r0, x1], -1).flatten(-2)
    return out.to(dt) if keep_dtype else out.float()


def _apply_cases(layout):
    specs = [
        ((1, 2), [0], torch.float32),
        ((2, 4), [0, 1], torch.float32),
        ((5, 8), list(range(5)), torch.float32),
        ((3, 6), [7, 2, 40], torch.float32),
        ((2, 3, 4, 16), [0, 1, 2, 100], torch.float32),
        ((2, 6, 64), [0, 5, 300, 2047, 4096, 8000], torch.float32),
        ((4, 32), [0, 10, 500, 3000], torch.bfloat16),
        ((4, 32), [0, 10, 500, 3000], torch.float16),
        ((5, 8), [9, 3, 0, 12, 6], torch.float32),  # a shape called again: two results must not share a buffer
        # square tables (L == d): cos.T has their shape too. Not [4, 4]: the relative property calls with [4, d]
        ((6, 6), [0, 1, 2, 3, 4, 5], torch.float32),
    ]
    out = []
    for i, (shape, pos, dt) in enumerate(specs):
        g = _g(200 + i)
        x = torch.randn(*shape, generator=g)
        c, s = rope_cos_sin(torch.tensor(pos), shape[-1], layout=layout)
        tol = (2e-5 * (1 + float(x.abs().max()))) if dt == torch.float32 else 2e-2 * (1 + float(x.abs().max()))
        head = f"x {list(shape)} {str(dt).replace('torch.', '')}, "
        label = f"{head}positions {pos}"
        again = [c.label for c in out if c.label.startswith(head)]
        out.append(
            Case(
                label,
                (x.to(dt), c.to(dt), s.to(dt)),
                tol=tol,
                repeats=again[0] if again else "",
            )
        )
    return out


def _apply_structure(case, out):
    x = case.args[0]
    out = _shape(out, tuple(x.shape))
    if out.dtype != x.dtype:
        raise _Wrong(
            f"dtype {str(out.dtype).replace('torch.', '')} for {str(x.dtype).replace('torch.', '')} "
            "input: return x's dtype (Hugging Face casts cos/sin to q's dtype and returns q's dtype)"
        )
    return out


def _prop_norm(layout):
    def prop(case, out, run):
        x = case.args[0]
        if x.dtype != torch.float32:
            return None
        xf, of = _f64(x), _f64(out)
        if layout == "half":
            pairs = lambda t: t[..., : t.shape[-1] // 2] ** 2 + t[..., t.shape[-1] // 2 :] ** 2  # noqa: E731
        else:
            pairs = lambda t: t[..., 0::2] ** 2 + t[..., 1::2] ** 2  # noqa: E731
        if not float((pairs(xf) - pairs(of)).abs().max()) <= 1e-4 * (1 + float(pairs(xf).max())):
            what = "(i, i + d/2)" if layout == "half" else "(2i, 2i+1)"
            return f"the length of each pair {what} changed: a rotation keeps it"
        return None

    return prop


def _prop_relative(layout):
    def prop(case, out, run):
        x = case.args[0]
        if x.dtype != torch.float32 or x.dim() != 2 or x.shape[0] < 2:
            return None
        d = x.shape[-1]
        g = _g(300)
        q, k = torch.randn(d, generator=g), torch.randn(d, generator=g)
        pos = torch.tensor([3, 10, 3 + 25, 10 + 25])  # (m, n) and (m + s, n + s)
        c, s = rope_cos_sin(pos, d, layout=layout)
        o = _f64(run(torch.stack([q, k, q, k]), c, s))
        a, b = float(o[0] @ o[1]), float(o[2] @ o[3])
        if not abs(a - b) <= 1e-4 * (1 + abs(a)):
            return f"q_m·k_n changes when both positions shift by 25 ({a:.4g} vs {b:.4g}): it must depend on n − m only"
        return None

    return prop


def _lowp_apply(kind: str) -> str:
    return (
        _lowp_words(kind, "x, cos and sin", "a float32 x")
        + "; compute in x's dtype (cast cos and sin to x.dtype, not x to a lower precision)"
    )


def _apply_in(dt, layout):
    def impl(x, cos, sin):  # the rotation computed in a lower precision than x's, cast back to x's dtype
        xl, c, s = x.to(dt), cos.to(dt), sin.to(dt)
        if layout == "half":
            return (xl * c + _rot_half(xl) * s).to(x.dtype)
        x0, x1 = xl[..., 0::2], xl[..., 1::2]
        c0, s0 = c[..., 0::2], s[..., 0::2]
        return torch.stack([x0 * c0 - x1 * s0, x0 * s0 + x1 * c0], -1).flatten(-2).to(x.dtype)

    return impl


#: The rotation computed in bfloat16 or float16 for float32 inputs: on every wrong input x is float32, and every
#: finite nonzero output value sits on that dtype's grid (8 or 11 significant bits) where x's values do not.
_apply_grid = _lowp_output(_lowp_apply)


#: Sign vectors a learner multiplies a rolled x by: (words, f(d) -> the signs).
_ROLL_SIGNS = {
    "half": ("[−1]·(d/2) + [1]·(d/2)", lambda d: torch.cat([-torch.ones(d // 2), torch.ones(d - d // 2)])),
    "half+": ("[1]·(d/2) + [−1]·(d/2)", lambda d: torch.cat([torch.ones(d // 2), -torch.ones(d - d // 2)])),
    "alt": ("[−1, 1]·(d/2)", lambda d: torch.tensor([-1.0, 1.0] * (d // 2))),
    "alt+": ("[1, −1]·(d/2)", lambda d: torch.tensor([1.0, -1.0] * (d // 2))),
}


def _rolled(x, c, s, *, shift, signs):
    """x·cos + torch.roll(x, shift, −1)·signs(d)·sin (a roll by d // 2 when ``shift`` is None), in float64."""
    d = x.shape[-1]
    rolled = torch.roll(x.double(), d // 2 if shift is None else shift, -1) * signs(d).double()
    return (x.double() * c.double() + rolled * s.double()).to(x.dtype)


def _rolled_partner(layout):
    """A detector: on every wrong input the output is x·cos + torch.roll(x, s, −1)·signs·sin, the rotated partner
    built with a roll by s ∈ {1, −1, d/2} and a sign vector of halves or alternating signs (said with s and the
    signs). In the half layout a roll by d/2 with signs [−1]·(d/2) + [1]·(d/2) is rotate_half itself: posenc's
    answer, so never a wrong input."""
    partner = (
        "rotate_half's partner of coordinate i is −x[i + d/2] in the first half and x[i − d/2] in the second: "
        "torch.roll(x, d // 2, -1) with signs [−1]·(d/2) + [1]·(d/2), or cat([−x2, x1])"
        if layout == "half"
        else "the partner of coordinate 2i is −x[2i+1] and that of 2i+1 is x[2i]: a roll moves every coordinate the "
        "same way, so no roll swaps neighbours; use torch.stack((−x[..., 1::2], x[..., 0::2]), −1).flatten(−2)"
    )

    def detect(cases, outs, usable) -> str | bool:
        from .precision import _CURRENT
        from .running import _equal_output

        t = _CURRENT[0]
        for shift, shift_words in ((1, "1"), (-1, "−1"), (None, "d // 2")):
            for words, signs in _ROLL_SIGNS.values():
                if all(
                    _equal_output(t, cases[i], outs[i], _rolled(*cases[i].args, shift=shift, signs=signs))
                    for i in usable
                ):
                    return (
                        f"the rotated partner built with torch.roll(x, {shift_words}, -1) times the signs {words}: "
                        f"{partner}"
                    )
        return False

    return detect


def _signed_partner(layout):
    """A detector: on every wrong input the output is x·cos + P(x)·sin, P(x) a coordinate of x with a sign for each
    output coordinate (a signed permutation other than rotate_half's or rotate_every_two's), read from the output
    coordinate by coordinate: the partner of coordinate i is the one ±x[j] with rest[..., i] = ±x[..., j]·sin[..., i]
    (rest = output − x·cos) on every row, where the sin column is not all 0. Read on the float32 inputs (in bfloat16
    or float16 several partners fit within the tolerance). Said with the partners read on the smallest wrong
    input."""

    def right(d):
        h = d // 2
        if layout == "half":
            return [(-1, i + h) if i < h else (1, i - h) for i in range(d)]
        return [(-1, i + 1) if i % 2 == 0 else (1, i - 1) for i in range(d)]

    def words(m):
        return "[" + ", ".join(f"{'−' if sign < 0 else ''}x{j}" for sign, j in m) + "]"

    def detect(cases, outs, usable) -> str | bool:
        from .framework import _Crash

        found = None
        for i in usable:
            if isinstance(outs[i], _Crash):
                return False
            x, c, s = (a.double() for a in cases[i].args[:3])
            d = x.shape[-1]
            if d < 2 or x.numel() > 1 << 14 or cases[i].args[0].dtype not in (torch.float32, torch.float64):
                continue  # too large to compare every pair of columns, or too coarse to tell the partners apart
            rest = (_f64(outs[i]) - x * c).reshape(-1, d)
            xs, ss = x.reshape(-1, d), torch.broadcast_to(s, x.shape).reshape(-1, d)
            tol = cases[i].tol
            mapping: list[tuple[int, int] | None] = []
            for col in range(d):
                cand = [
                    (sign, j)
                    for j in range(d)
                    for sign in (-1, 1)
                    if bool(((rest[:, col] - sign * xs[:, j] * ss[:, col]).abs() <= tol).all())
                ]
                if len(cand) == 2 * d:  # a sin column of 0 (position 0 only): any partner fits
                    mapping.append(None)
                elif len(cand) == 1:
                    mapping.append(cand[0])
                else:
                    return False
            if None not in mapping and mapping != right(d) and (found is None or d < found[0]):
                found = (d, mapping, cases[i].label)
        if found is None:
            return False
        d, mapping, where = found
        fix = "rotate_half: cat([−x2, x1])" if layout == "half" else "rotate_every_two: pairs (2i, 2i+1)"
        return (
            f"the rotated partner of each coordinate is another signed coordinate of x: yours is {words(mapping)} "
            f"on {where}, where {fix} gives {words(right(d))} (output = x·cos + partner·sin)"
        )

    return detect


def _partial_rotary(layout):
    """A detector: on every wrong input only a leading block of r < d coordinates is rotated (GPT-NeoX's
    rotary_pct, GPT-J's rotary_dim) and the rest passed through unchanged; the block rotated with the first r/2
    angles of the tables (cos[..., :r/2] twice in the half layout, cos[..., :r] in both). Said with r and d of the
    first wrong input."""

    def rotate(x, c, s, r, half_twice):
        xr = x[..., :r].double()
        if layout == "half":
            cr, sr = (
                (torch.cat([c[..., : r // 2]] * 2, -1), torch.cat([s[..., : r // 2]] * 2, -1))
                if half_twice
                else (c[..., :r], s[..., :r])
            )
            rot = _apply_variant(xr, cr, sr, layout="half")
        else:
            rot = _apply_variant(xr, c[..., :r], s[..., :r], layout="interleaved")
        return torch.cat([rot.to(x.dtype), x[..., r:]], -1)

    def detect(cases, outs, usable) -> str | bool:
        from .precision import _CURRENT
        from .running import _equal_output

        t = _CURRENT[0]
        found = []
        for i in usable:
            x, c, s = cases[i].args
            d = x.shape[-1]
            r = next(
                (
                    r
                    for r in range(0, d, 2)
                    for twice in ((True, False) if layout == "half" else (False,))
                    if _equal_output(t, cases[i], outs[i], rotate(x, c, s, r, twice))
                ),
                None,
            )
            if r is None:
                return False
            found.append((r, d, cases[i].label))
        r, d, label = found[0]
        if not any(r > 0 for r, _, _ in found):
            return False
        return (
            f"only the first {r} of the {d} coordinates rotated (on {label}), the rest passed through: a partial "
            "rotary (GPT-NeoX's rotary_pct, GPT-J's rotary_dim) that this task does not use; rotate all d "
            "coordinates, x·cos + rotate(x)·sin over the whole last axis"
        )

    return detect


def _scaled_output(ref):
    """The right output times one constant c ≠ 1 on every wrong input (an extra factor: a scale left in, an
    attention factor applied where none belongs), said with c. c is measured on the float32/float64 inputs (a
    bfloat16 or float16 output rounds it away) and must hold, within each input's tolerance, on every one."""

    def detect(cases, outs, usable) -> str | bool:
        pairs, cs = [], []
        for i in usable:
            o = outs[i]
            if isinstance(o, _Crash) or not isinstance(o, torch.Tensor):
                return False
            o, e = _f64(o), _f64(ref(*cases[i].args))
            if o.shape != e.shape or float((e * e).sum()) == 0:
                return False
            pairs.append((i, o, e))
            if cases[i].args[0].dtype in (torch.float32, torch.float64):
                cs.append(float((o * e).sum() / (e * e).sum()))
        if not cs or max(cs) - min(cs) > 1e-4 * max(abs(c) for c in cs):
            return False
        c = sum(cs) / len(cs)
        if abs(c - 1) <= 1e-6 or not all(float((o - c * e).abs().max()) <= cases[i].tol for i, o, e in pairs):
            return False
        return (
            f"your output is the right one times {c:.6g} on every input where it is wrong: an extra constant factor "
            "(a rotation keeps each pair's length, so x·cos + rotate(x)·sin needs no scale; drop the factor)"
        )

    return detect


def _apply_mistakes(layout):
    def impl(x, c, s, **flags):
        return _apply_variant(x, c, s, **{"layout": layout, **flags})

    def mk(**kw):
        return _Variant(impl, **kw)

    other = "interleaved" if layout == "half" else "half"
    common = [
        ("your rotation is clockwise (R_{-m}): x·cos − rotate(x)·sin", mk(sign=-1)),
        ("cos and sin swapped", mk(swap=True)),
        ("the minus sign of the rotation is lost (pairs mixed without −sin)", mk(no_minus=True)),
        ("sin multiplies x itself instead of the rotated partner", mk(plain_sin=True)),
        ("the sin term is missing: x·cos alone does not rotate, add rotate(x)·sin", lambda x, c, s: x * c),
        (
            "the rotation applied twice (to its own result): that turns each pair by 2·m·θ_i; apply "
            "x·cos + rotate(x)·sin once",
            mk(twice=True),
        ),
        (
            "the angle of the first row (cos[0], sin[0]) used for every position: row r of cos and sin belongs to "
            "row r of x (position r); multiply by the whole tables, x·cos + rotate(x)·sin",
            mk(row=0),
        ),
        (
            "the angle of the last row (cos[−1], sin[−1]) used for every position: row r of cos and sin belongs to "
            "row r of x (position r); multiply by the whole tables, x·cos + rotate(x)·sin",
            mk(row=-1),
        ),
        (
            "the tables' rows reversed (cos.flip(0)): row r of x (position r) must rotate with row r of cos and "
            "sin, in the order given; multiply by the tables as they are",
            mk(rows_flip=True),
        ),
        *(
            (
                f"{one}'s rows reversed ({one}.flip(0)) while {other}'s are not: row r of x (position r) must rotate "
                f"with row r of cos and of sin, in the order given; use both tables as they are",
                mk(rows_flip=one),
            )
            for one, other in (("sin", "cos"), ("cos", "sin"))
        ),
        (
            "cos and sin transposed when they are square (L == d): the tables are [L, d] whatever their shape, row r "
            "for position r and column j for coordinate j; a shape test cannot tell [L, d] from [d, L] when L == d, "
            "so use them as given",
            mk(square_t=True),
        ),
        (_lowp_apply("bfloat16"), _apply_in(torch.bfloat16, layout)),
        (_lowp_apply("float16"), _apply_in(torch.float16, layout)),
        (
            (
                "the second half's sign wrong: x2' = x2·cos − x1·sin, where the rotation gives x2·cos + x1·sin "
                "(your first half, x1·cos − x2·sin, is right)"
            )
            if layout == "half"
            else (
                "the odd coordinate's sign wrong: x_2i+1' = x_2i+1·cos − x_2i·sin, where the rotation gives "
                "x_2i+1·cos + x_2i·sin (your even coordinate, x_2i·cos − x_2i+1·sin, is right)"
            ),
            mk(second_sign=-1),
        ),
        (
            (
                "cos replaced by sin in the first half: x1' = x1·sin − x2·sin, where the rotation gives "
                "x1·cos − x2·sin; each half is x·cos + rotate_half(x)·sin"
            )
            if layout == "half"
            else (
                "cos replaced by sin in the even coordinate: x_2i' = x_2i·sin − x_2i+1·sin, where the rotation gives "
                "x_2i·cos − x_2i+1·sin"
            ),
            mk(sin_for_cos=0),
        ),
        (
            (
                "cos replaced by sin in the second half: x2' = x2·sin + x1·sin, where the rotation gives "
                "x2·cos + x1·sin; each half is x·cos + rotate_half(x)·sin"
            )
            if layout == "half"
            else (
                "cos replaced by sin in the odd coordinate: x_2i+1' = x_2i·sin + x_2i+1·sin, where the rotation "
                "gives x_2i·sin + x_2i+1·cos"
            ),
            mk(sin_for_cos=1),
        ),
        *(
            (
                (
                    f"the {which} half without its sin term: each half is x·cos + rotate_half(x)·sin, "
                    f"and yours is only x·cos in the {which} half"
                )
                if layout == "half"
                else (
                    f"the {which} coordinate of each pair without its sin term: the rotation gives "
                    f"{formula}, and yours is only x·cos there"
                ),
                mk(no_sin=n),
            )
            for n, which, formula in (
                (0, "first" if layout == "half" else "even", "x_2i' = x_2i·cos − x_2i+1·sin"),
                (1, "second" if layout == "half" else "odd", "x_2i+1' = x_2i+1·cos + x_2i·sin"),
            )
        ),
        (
            "rotated by half the angle: √((1 + cos)/2) and ±√((1 − cos)/2) are cos(a/2) and sin(a/2) (half-angle "
            "forms, up to sign); cos and sin already hold the angle m·θ_i, so multiply by them as given",
            mk(half_angle=True),
        ),
    ]
    if layout == "half":
        common.append(
            (
                "rotate_half along the positions axis: x.chunk(2, -2) and torch.cat(..., -2) split and swap the rows "
                "(tokens); rotate_half pairs coordinates i and i + d/2 of each token, so chunk and cat along the "
                "last axis (dim=-1)",
                mk(rot_axis=-2),
            )
        )

    def gptj_every_two(x, c, s):  # GPT-J: x * cos + rotate_every_two(x) * sin, fed the half-layout tables
        xf = x.double()
        rot = torch.stack((-xf[..., 1::2], xf[..., 0::2]), -1).flatten(-2)
        return (xf * c.double() + rot * s.double()).to(x.dtype)

    if layout == "half":
        return [
            (
                "your function is written for the interleaved layout (pairs (2i, 2i+1), angle of pair i from "
                "cos[..., 2i]); apply_rope_half pairs coordinate i with i + d/2 and reads the angle of pair i from "
                "cos[..., i] (the tables are cat([a, a]))",
                mk(layout=other),
            ),
            (
                "GPT-J's rotate_every_two (pairs 2i, 2i+1) used with half-layout tables: x·cos + "
                "rotate_every_two(x)·sin needs interleaved tables; with cat([a, a]) tables use rotate_half, which "
                "pairs i with i + d/2",
                gptj_every_two,
            ),
            ("only the first half x[..., :d/2] rotated; the second half passed through", mk(first_half_only=True)),
            (
                "cos where sin belongs: x·cos + rotate_half(x)·cos; the rotated partner is multiplied by sin",
                mk(sin_is_cos=True),
            ),
            (
                "rotate_half built from the wrong halves: cat([−x1, x2]) multiplies each half by sin itself; "
                "rotate_half(x) is cat([−x2, x1]), each half's partner from the other half",
                mk(wrong_partner=True),
            ),
            (
                "rotate_half's partner taken with a flip, cat([−x2.flip(−1), x1.flip(−1)]): that pairs coordinate i "
                "with d − 1 − i; the half layout pairs i with i + d/2, rotate_half(x) = cat([−x2, x1]) without flips",
                mk(flip_partner=True),
            ),
        ] + common

    def half_tables(x, c, s):  # the interleaved rotation, but angles read as from half-layout tables
        d = x.shape[-1] // 2
        return _apply_variant(
            x, c[..., :d].repeat_interleave(2, -1), s[..., :d].repeat_interleave(2, -1), layout="interleaved"
        )

    def half_code(x, c, s):  # a whole half-layout function: pairs (i, i + d/2), angles from cos[..., :d/2]
        h = x.shape[-1] // 2
        xf, cf, sf = x.double(), c[..., :h].double(), s[..., :h].double()
        x1, x2 = xf[..., :h], xf[..., h:]
        return torch.cat([x1 * cf - x2 * sf, x2 * cf + x1 * sf], -1).to(x.dtype)

    def half_pairs(x, c, s):  # pairs (i, i + d/2), e.g. x.reshape(..., 2, d/2), with the right angles cos[..., 2i]
        h = x.shape[-1] // 2
        xf, cf, sf = x.double(), c[..., 0::2].double(), s[..., 0::2].double()
        x1, x2 = xf[..., :h], xf[..., h:]
        return torch.cat([x1 * cf - x2 * sf, x1 * sf + x2 * cf], -1).to(x.dtype)

    def pair_swapped(x, c, s):  # each rotated pair written back in the wrong order: (x0', x1') as (x1', x0')
        xf, cf, sf = x.double(), c[..., 0::2].double(), s[..., 0::2].double()
        x0, x1 = xf[..., 0::2], xf[..., 1::2]
        return torch.stack([x0 * sf + x1 * cf, x0 * cf - x1 * sf], -1).flatten(-2).to(x.dtype)

    def half_pairs_back(x, c, s):  # pairs (i, i + d/2) by x.reshape(..., 2, d/2), written back interleaved
        h = x.shape[-1] // 2
        xf, cf, sf = x.double(), c[..., 0::2].double(), s[..., 0::2].double()
        x1, x2 = xf[..., :h], xf[..., h:]
        return torch.stack([x1 * cf - x2 * sf, x1 * sf + x2 * cf], -1).flatten(-2).to(x.dtype)

    return [
        ("interleaved pairs applied with the half layout (rotate_half pairs i with i + d/2)", mk(layout=other)),
        (
            "your pairs are the half layout's (i, i + d/2), as x.reshape(..., 2, d/2) gives, and the rotated pairs "
            "are written back interleaved: apply_rope_interleaved pairs neighbours (2i, 2i+1), x[..., 0::2] with "
            "x[..., 1::2], or x.reshape(..., d/2, 2)",
            half_pairs_back,
        ),
        (
            "your pairs are the half layout's (i, i + d/2), as x.reshape(..., 2, d/2) gives: apply_rope_interleaved "
            "pairs neighbours (2i, 2i+1), x[..., 0::2] with x[..., 1::2], or x.reshape(..., d/2, 2)",
            half_pairs,
        ),
        (
            "your function is written for the half layout (pairs (i, i + d/2), angles from cos[..., :d/2]); "
            "apply_rope_interleaved pairs coordinates (2i, 2i+1) and reads the angle of pair i from cos[..., 2i]",
            half_code,
        ),
        (
            "interleaved tables read as half-layout ones (cos[..., :d/2]): pair i's angle is in columns 2i and 2i+1",
            half_tables,
        ),
        ("rotated pairs written back concatenated [x0' | x1'] instead of interleaved", mk(concat_back=True)),
        ("only the even coordinates rotated; the odd ones passed through", mk(first_half_only=True)),
        (
            "each rotated pair written back in the wrong order: coordinate 2i gets x_2i·cos − x_2i+1·sin and "
            "coordinate 2i+1 gets x_2i·sin + x_2i+1·cos; yours has them swapped",
            pair_swapped,
        ),
        ("the sine read from the cos table (s = cos[..., 0::2]): take it from sin", mk(sin_is_cos=True)),
        (
            "real and imaginary parts swapped: torch.complex(x[..., 1::2], x[..., 0::2]) takes the odd coordinate "
            "as the real part; pair i is the complex number x_2i + i·x_2i+1, torch.complex(x[..., 0::2], "
            "x[..., 1::2]) (or torch.view_as_complex(x.reshape(..., d/2, 2)))",
            mk(complex_swap=True),
        ),
    ] + common


def _ref_apply(layout):
    return lambda x, cos, sin: apply_rope(x, cos, sin, layout=layout)


# RoPE with an offset (a KV cache)
def _ref_offset(x, offset, base=10000.0):
    L = x.shape[-2]
    c, s = rope_cos_sin(torch.arange(offset, offset + L), x.shape[-1], base)
    return apply_rope(x, c.to(x.dtype), s.to(x.dtype))


def _offset_variant(
    x,
    offset,
    base=1e4,
    *,
    shift=0,
    sign=1,
    layout="half",
    rot_sign=1,
    ang_dtype=torch.float32,
    pos_in_x_dtype=False,
    short_table=False,
    from_end=False,
    x_dtype_from=None,
    fixed_base=None,
    same_pos=False,
    square_t=False,
    pos_flip=False,
    inv_round=None,
    exp_axis=-1,
):
    base = base if fixed_base is None else fixed_base
    L, d = x.shape[-2], x.shape[-1]
    pos = torch.arange(L) + sign * offset + shift - (L - 1 if from_end else 0)
    if pos_flip:  # the right positions in reverse order: offset + L − 1 first
        pos = pos.flip(0)
    if pos_in_x_dtype:
        pos = pos.to(x.dtype).float()
    if same_pos:  # every new token at position offset
        pos = torch.full((L,), offset)
    if short_table:  # a table of L rows, sliced at offset
        pos = torch.arange(L)[offset : offset + L]
    inv = rope_inv_freq(d, base)
    if exp_axis != -1:  # the exponent's head_dim read from another axis of x: base^(−2i/x.shape[axis])
        inv = 1.0 / base ** (torch.arange(0, d, 2).float() / x.shape[exp_axis])
    if inv_round is not None:  # the frequencies rounded to a low precision, whatever x's dtype
        inv = inv.to(inv_round).float()
    if x_dtype_from == "inv":  # the frequencies rounded to x's dtype, the product in float32
        inv = inv.to(x.dtype).float()
    if x_dtype_from == "all":  # positions, frequencies and angles in x's dtype
        ang = pos.to(x.dtype)[:, None] * inv.to(x.dtype)[None]
    else:
        ang = (pos.to(ang_dtype)[:, None] * inv.to(ang_dtype)[None]).float()
    if x_dtype_from == "angles":  # float32 angles cast to x's dtype before cos and sin
        ang = ang.to(x.dtype)
    ang = torch.cat([ang, ang], -1) if layout == "half" else ang.repeat_interleave(2, -1)
    return _apply_variant(
        x, ang.cos().to(x.dtype), ang.sin().to(x.dtype), layout=layout, sign=rot_sign, square_t=square_t
    )


def _offset_cases():
    specs = [
        ((1, 4), 0, 1e4, torch.float32),
        ((1, 4), 5, 1e4, torch.float32),
        ((3, 8), 0, 1e4, torch.float32),
        ((3, 8), 7, 1e4, torch.float32),
        ((3, 8), 7, 1e4, torch.bfloat16),
        ((2, 2, 4, 16), 100, 1e4, torch.float32),
        ((3, 16), 50, 5e5, torch.float32),
        ((1, 32), 4095, 1e4, torch.float32),
        ((4, 32), 3000, 1e4, torch.float16),
        ((2, 64), 20000, 1e4, torch.float32),
        ((2, 64), 20000, 1e4, torch.bfloat16),
        ((2, 128), 131000, 5e5, torch.float32),
        ((6, 6), 2, 1e4, torch.float32),  # square tables (L == d): cos.T has their shape too
    ]
    out = []
    for i, (shape, off, base, dt) in enumerate(specs):
        x = torch.randn(*shape, generator=_g(400 + i))
        big = 1 + float(x.abs().max())
        if dt == torch.float32:
            tol = 2e-5 * big + 8 * (off + shape[-2]) * 2.0**-23 * big
        else:
            tol = 2e-2 * big
        kind = str(dt).replace("torch.", "")
        out.append(Case(f"x {list(shape)} {kind}, offset={off}, base={base:g}", (x.to(dt), off, base), tol=tol))
    return out


def _offset_mistakes():
    def mk(**kw):
        return _Variant(_offset_variant, **kw)

    return [
        ("offset ignored: positions start at 0 for every new token", mk(sign=0)),
        ("offset subtracted instead of added", mk(sign=-1)),
        ("positions start at offset + 1 (off by one)", mk(shift=1)),
        (
            "every new token at position offset: the L new tokens sit at offset, offset + 1, ..., offset + L − 1, "
            "torch.arange(offset, offset + L)",
            mk(same_pos=True),
        ),
        (
            "your cos and sin tables transposed when they are square (L == d): rope_cos_sin gives [L, d] whatever "
            "the shape, row r for the token at offset + r; a shape test cannot tell [L, d] from [d, L] when L == d, "
            "so use the tables as built",
            mk(square_t=True),
        ),
        ("positions start at offset − 1 (off by one): the new tokens sit at offset, offset + 1, ...", mk(shift=-1)),
        (
            "positions offset − L + 1 .. offset (the offset taken as the last position): the L new tokens sit at "
            "offset, offset + 1, ..., offset + L − 1",
            mk(from_end=True),
        ),
        ("your rotation is clockwise (R_{-m})", mk(rot_sign=-1)),
        ("interleaved pairs instead of the half layout", mk(layout="interleaved")),
        ("base ignored: 10000 hard-coded", mk(fixed_base=1e4)),
        (
            "positions built in x's dtype: bfloat16 holds integers exactly only up to 256 and float16 up to 2048, "
            "so position 20000 becomes a multiple of 128. Build the positions and angles in float32 and cast only "
            "cos and sin to x's dtype",
            mk(pos_in_x_dtype=True),
        ),
        (
            "a cos/sin table of L rows sliced at offset: positions offset .. offset + L − 1 need a table of "
            "offset + L rows (or build the angles for those positions directly)",
            mk(short_table=True),
        ),
        ("angles computed in float16", mk(ang_dtype=torch.float16)),
        ("angles computed in bfloat16", mk(ang_dtype=torch.bfloat16)),
        (
            "positions in reverse order: row r of x is the token at offset + r, so its angle is (offset + r)·θ_i; "
            "yours gives row 0 the last position offset + L − 1",
            mk(pos_flip=True),
        ),
        (
            "head_dim in the frequencies' exponent taken from the wrong axis: θ_i = base^(−2i/d) with d the head "
            "dimension, x.shape[-1]; yours divides 2i by x.shape[-2], the number of positions",
            mk(exp_axis=-2),
        ),
        *(
            (
                f"frequencies computed in {name}: inv_freq rounded to {name}'s grid moves each θ_i by up to "
                f"{bits} of itself, and the angle (offset + r)·θ_i carries that error; compute inv_freq and the "
                "angles in float32",
                mk(inv_round=dt),
            )
            for name, dt, bits in (("float16", torch.float16, "2^−11"), ("bfloat16", torch.bfloat16, "2^−8"))
        ),
        (
            "positions, frequencies and angles computed in x's dtype: bfloat16 and float16 cannot hold large "
            "positions or their angles; compute them in float32 and cast only cos and sin to x's dtype",
            mk(x_dtype_from="all"),
        ),
        (
            "angles cast to x's dtype before cos and sin: an angle of 20000 rad in bfloat16 is off by up to 64 rad; "
            "take cos and sin of the float32 angles, then cast cos and sin to x's dtype",
            mk(x_dtype_from="angles"),
        ),
        (
            "inv_freq cast to x's dtype before the angles: rounding moves each frequency by up to 2^−8 of itself in "
            "bfloat16 (2^−11 in float16, more below its smallest normal number 6.1e-5), and the angle offset · θ_i "
            "carries that error (radians off at large positions); multiply positions and inv_freq in float32 and "
            "cast only cos and sin to x's dtype",
            mk(x_dtype_from="inv"),
        ),
    ]


def _offset_positions(cases, outs, usable) -> str | bool:
    """The positions the learner rotated to, read from the output: on every wrong input (float32 x), each row
    equals x's row rotated by RoPE at some whole position, in the half layout with the right base, but not at
    offset + row. Said with the positions found, and with the wrap when they are offset mod a power of two."""
    seen = []
    for i in usable:
        o, (x, off, base) = outs[i], cases[i].args
        if isinstance(o, _Crash) or x.dtype != torch.float32:
            return False
        L, d = x.shape[-2], x.shape[-1]
        xs, os_ = _f64(x).reshape(-1, L, d), _f64(o).reshape(-1, L, d)
        h = d // 2
        inv = _f64(rope_inv_freq(d, base))
        x1, x2, o1, o2 = xs[..., :h], xs[..., h:], os_[..., :h], os_[..., h:]
        # the slowest pair turns least: its angle p·θ stays below π for the positions the sweep uses
        ang = torch.atan2((x1 * o2 - x2 * o1)[..., -1], (x1 * o1 + x2 * o2)[..., -1])[0]
        pos = torch.round(ang / float(inv[-1])).long()
        c, s = rope_cos_sin(pos, d, base)
        if _close(o, apply_rope(x, c, s), cases[i].tol) or torch.equal(pos, torch.arange(off, off + L)):
            return False
        seen.append((off, L, pos.tolist(), cases[i].label))
    if not seen:
        return False
    off, L, used, where = max(seen, key=lambda v: v[0])
    said = f"{used[0]} .. {used[-1]}" if used == list(range(used[0], used[0] + L)) else str(used)
    msg = (
        f"your function rotates the rows to positions {said} at {where}: the new tokens sit at offset, offset + 1, "
        f"..., here {off} .. {off + L - 1}"
    )
    wraps = [k for k in range(8, 33) if used[0] == off % 2**k and off >= 2**k]
    if wraps:
        k = wraps[-1]
        msg += (
            f". {used[0]} is offset mod 2^{k} = {2**k}: the offset wrapped around, as an unsigned {k}-bit counter "
            f"or a ring of {2**k} cache slots does; the positions must keep counting past it"
        )
    return msg


def _offset_structure(case, out):
    return _apply_structure(case, out)


def _prop_offset_consistent(case, out, run):
    x, off, base = case.args
    if x.dim() != 2 or x.shape[0] < 2:
        return None
    tail = run(x[1:], off + 1, base)
    if _close(tail, out[1:], case.tol):
        return (
            "rotating rows 1.. with offset + 1 differs from rows 1.. of the whole: a cached decode step must "
            "match the full sequence"
        )
    return None
