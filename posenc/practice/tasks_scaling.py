"""The Practice tasks of the frequencies for longer contexts: ``pi_inv_freq``, ``ntk_inv_freq`` and
``yarn_inv_freq`` (with its attention scaling), compared with posenc to a relative tolerance.

References:
    Chen et al. 2023 (PI); bloc97 2023 (NTK-aware); Peng et al. 2024 (YaRN, ICLR) and Hugging Face
    ``modeling_rope_utils``.
"""

from __future__ import annotations

import math

import torch

from .. import rope_inv_freq, rope_scaled_inv_freq
from .framework import Case, _Crash, _f64, _float32, _pair, _shape, _Variant, _Wrong
from .precision import _BITS, _CURRENT, _fits
from .running import _expected
from .tasks_rope import _PRECEDENCE, _half_entries, _inv_variant


# ---- frequencies for longer contexts -----------------------------------------------------------------------
def _ref_pi(head_dim, base, factor):
    return rope_scaled_inv_freq(head_dim, base, rope_type="linear", factor=factor)[0]


def _ref_ntk(head_dim, base, factor):
    return rope_inv_freq(head_dim, base * factor ** (head_dim / (head_dim - 2)))


def _scaled_cases():
    return [
        Case(f"head_dim={d}, base={b:g}, factor={s:g}", (d, b, s), tol=3e-6 * 1)
        for d, b, s in [
            (4, 1e4, 2.0),
            (8, 1e4, 4.0),
            (16, 500.0, 8.0),
            (64, 1e4, 2.0),
            (128, 5e5, 16.0),
            (96, 1e4, 3.0),
            (8, 1e4, 2.5),  # factors need not be integers (Code Llama's 4 is one, but 2.5 or 1.5 are common)
            (32, 5e5, 1.5),
        ]
    ] + [
        # head_dim 16 called again with another base: a result cached by head_dim alone comes back
        Case(
            "head_dim=16, base=10000, factor=8 (called again with another base)",
            (16, 1e4, 8.0),
            tol=3e-6,
            repeats="head_dim=16, base=500, factor=8",
        )
    ]


def _scaled_structure(case, out):
    _half_entries(out, case.args[0])
    return _float32(_shape(out, (case.args[0] // 2,)))


def _rel_compare(case, out, expected):
    """None when ``out`` agrees with ``expected`` to a relative 2e-5 everywhere. NaN-safe: a NaN or an
    infinity fails unless ``expected`` has the same one at that index (so two wrong outputs can match)."""
    o, e = _f64(out), _f64(expected)
    if o.shape != e.shape:
        return f"shape {list(o.shape)} instead of {list(e.shape)}"
    special = ~torch.isfinite(o) | ~torch.isfinite(e)
    same = (torch.isnan(o) & torch.isnan(e)) | (torch.isinf(o) & torch.isinf(e) & (o.sign() == e.sign()))
    bad = special & ~same
    if bool(bad.any()):
        i = int(torch.nonzero(bad)[0][0])
        return f"{float(o[i]):.4g} at pair {i} where posenc has {float(e[i]):.4g}"
    rel = ((o - e).abs() / e.abs().clamp(min=1e-30)).masked_fill(same, 0)
    err = float(rel.max()) if rel.numel() else 0.0
    if not err <= 2e-5:
        i = int(rel.argmax())
        return f"relative difference {err:.3g} at pair {i} (tolerance 2e-5)"
    return None


def _scaled_variant(
    d,
    b,
    s,
    *,
    base_exp=None,
    exp_scale=2.0,
    div_power=0.0,
    int_factor=False,
    fixed_base=None,
    sign=-1,
    flip=False,
    precedence=False,
    denom_minus=0,
    start=0,
):
    """RoPE frequencies with a changed base and divided by a power of the factor: PI is ``div_power=1``,
    NTK-aware is ``base_exp="ntk"`` (base·s^(d/(d−2))); the other values are the mistakes' bases."""
    s = int(s) if int_factor else s
    b = float(b if fixed_base is None else fixed_base)
    inv = _inv_variant(
        d,
        _new_base(base_exp, d, b, s),
        exp_scale=exp_scale,
        sign=sign,
        flip=flip,
        precedence=precedence,
        denom_minus=denom_minus,
        start=start,
    )
    return (_f64(inv) / s**div_power).float()


def _new_base(base_exp: str | None, d: int, b: float, s: float) -> float:
    """The base each form of ``base_exp`` puts in place of RoPE's (``"ntk"``: NTK-aware's base·s^(d/(d−2)))."""
    h = d // 2
    return {
        None: lambda: b,
        "ntk": lambda: b * s ** (d / (d - 2)),
        "over_s": lambda: b / s,
        "one": lambda: b * s,
        "int": lambda: b * s ** (d // (d - 2)),
        "inv": lambda: b * s ** ((d - 2) / d),
        "d-1": lambda: b * s ** (d / (d - 1)),
        "pairs": lambda: b * s ** (h / (h - 2)) if h > 2 else b * s,
        "power": lambda: b**s,
        "divide": lambda: b / s ** (d / (d - 2)),
        "on_base": lambda: b ** (d / (d - 2)) * s,
        "paren": lambda: (b * s) ** (d / (d - 2)),
        "dynamic": lambda: b * (s * s - (s - 1)) ** (d / (d - 2)),
    }[base_exp]()


def _pi_impl(d, b, s, **flags):
    return _scaled_variant(d, b, s, **{"div_power": 1.0, **flags})


def _ntk_impl(d, b, s, **flags):
    return _scaled_variant(d, b, s, **{"base_exp": "ntk", **flags})


_NOT_NEGATED = "the sign of the exponent lost: base^(+2i/d) (wavelength factors) instead of base^(−2i/d)"
_REVERSED = (
    "frequencies in reverse order (flipped): θ_i = base^(−2i/d) falls with i, from θ_0 = 1 (the fastest pair) to "
    "the slowest"
)

#: The exponent over d − 2 (torch.linspace(0, 1, d/2) makes it too): the last pair turns at 1/base.
_EXP_D2 = (
    "exponent 2i/(d−2) (a linspace to 1) instead of 2i/d: the slowest pair turns at 1/base, where "
    "base^(−2i/d) with i up to d/2 − 1 stops at base^(−(d−2)/d)"
)

_BASE_IGNORED = "base ignored: 10000 hard-coded (the sweep passes other bases: use the base argument)"


def _pi_mistakes():
    def mk(**kw):
        return _Variant(_pi_impl, **kw)

    return [
        (
            "frequencies multiplied by the factor instead of divided (positions sped up, not interpolated)",
            mk(div_power=-1.0),
        ),
        (
            "base multiplied by the factor (a change of base, NTK-style) instead of frequencies divided by it",
            mk(base_exp="one", div_power=0.0),
        ),
        (
            "NTK-aware base used: base·s^(d/(d−2)) belongs to the NTK task, PI divides every frequency by s",
            mk(base_exp="ntk", div_power=0.0),
        ),
        (
            "only the first frequency divided by the factor",
            lambda d, b, s: torch.cat([rope_inv_freq(d, b)[:1] / s, rope_inv_freq(d, b)[1:]]),
        ),
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", mk(exp_scale=1.0)),
        ("frequencies divided by the factor squared", mk(div_power=2.0)),
        ("factor ignored: these are plain RoPE frequencies; PI divides every one by the factor", mk(div_power=0.0)),
        (
            "only the slower half of the frequencies divided by the factor (YaRN's idea, not PI's): PI divides "
            "every frequency by s",
            lambda d, b, s: torch.cat([rope_inv_freq(d, b)[: d // 4], rope_inv_freq(d, b)[d // 4 :] / s]),
        ),
        ("frequencies divided by √factor: PI divides them by the factor itself", mk(div_power=0.5)),
        (
            "only the fastest pair (θ_0 = 1) left undivided: PI divides every frequency by the factor, θ_0 too",
            lambda d, b, s: torch.cat([rope_inv_freq(d, b)[:1], rope_inv_freq(d, b)[1:] / s]),
        ),
        (_TRUNCATED, mk(int_factor=True)),
        (
            "frequencies floor-divided by the factor (θ // s rounds every quotient down to a whole number, most "
            "of them to 0): divide with /",
            lambda d, b, s: rope_inv_freq(d, b) // s,
        ),
        (
            "the exponent divided by the factor, base^(−2i/(d·s)), instead of the frequency: PI divides θ_i "
            "itself by s",
            lambda d, b, s: (
                torch.tensor(float(b), dtype=torch.float64) ** (-torch.arange(0, d, 2).double() / d / s)
            ).float(),
        ),
        (
            "the factor put into the exponent, base^(−2i·s/d), instead of dividing the frequency: that makes the "
            "frequencies fall s times faster (as if the base were base^s), and θ_0 stays 1; PI divides θ_i "
            "itself by s, base^(−2i/d) / s",
            lambda d, b, s: (
                torch.tensor(float(b), dtype=torch.float64) ** (-torch.arange(0, d, 2).double() * s / d)
            ).float(),
        ),
        (_BASE_IGNORED, mk(fixed_base=1e4)),
        (
            "base divided by the factor, θ_i = (base/s)^(−2i/d), and the frequencies not divided: that changes how "
            "fast they fall, and θ_0 stays 1; PI keeps the base and divides every frequency by the factor, θ_i/s",
            mk(base_exp="over_s", div_power=0.0),
        ),
        (
            "factor / θ_i: the frequency turned upside down (s·base^(+2i/d) grows with i) where PI divides it by "
            "the factor, θ_i / s = base^(−2i/d) / s",
            lambda d, b, s: (s * _f64(_inv_variant(d, b, sign=1))).float(),
        ),
        (_NOT_NEGATED + "; PI's θ_i/s = base^(−2i/d)/s falls from 1/s", mk(sign=1)),
        (
            "frequencies divided by factor − 1: PI divides every frequency by the factor itself, θ_i / s",
            lambda d, b, s: (_f64(rope_inv_freq(d, b)) / (s - 1)).float(),
        ),
        (_EXP_D2 + "; PI then divides each frequency by the factor", mk(denom_minus=2)),
        (_REVERSED + "; PI divides each by the factor", mk(flip=True)),
        ("frequency index starts at 1: base^(-2(i+1)/d), then divided by the factor; θ_0 must be 1/s", mk(start=1)),
        (_PRECEDENCE, mk(precedence=True)),
    ]


#: The diagnosis of a factor passed through int(): right for whole factors, wrong for 2.5 or 1.5.
_TRUNCATED = (
    "factor truncated to an integer (int(factor)): the factor is a float, 2.5 or 1.5 as often as a whole "
    "number; use it as it is"
)


def _ntk_mistakes():
    def mk(**kw):
        return _Variant(_ntk_impl, **kw)

    return [
        (
            "integer division d // (d − 2) in the exponent: it is 1 for every d > 4, so the base is only multiplied "
            "by s; divide as floats, base·s^(d/(d−2))",
            mk(base_exp="int"),
        ),
        (
            "exponent h/(h−2) with h = d/2 (the number of pairs) used as d: NTK-aware uses base·s^(d/(d−2)) with "
            "d = head_dim",
            mk(base_exp="pairs"),
        ),
        (
            "base multiplied by the factor; NTK-aware uses base·s^(d/(d−2)) so the last pair is interpolated by "
            "exactly s",
            mk(base_exp="one"),
        ),
        ("exponent (d−2)/d instead of d/(d−2)", mk(base_exp="inv")),
        ("frequencies divided by the factor (that is PI, not NTK-aware)", mk(base_exp=None, div_power=1.0)),
        ("base raised to the factor (base^s) instead of multiplied by s^(d/(d−2))", mk(base_exp="power")),
        ("base divided by s^(d/(d−2)) instead of multiplied", mk(base_exp="divide")),
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", mk(exp_scale=1.0)),
        (
            "factor ignored: these are plain RoPE frequencies; NTK-aware changes the base to base·s^(d/(d−2))",
            mk(base_exp=None),
        ),
        (
            "the exponent d/(d−2) put on the base (base^(d/(d−2))·s) instead of on the factor: base·s^(d/(d−2))",
            mk(base_exp="on_base"),
        ),
        ("exponent d/(d−1) instead of d/(d−2): base·s^(d/(d−2))", mk(base_exp="d-1")),
        (
            "the NTK-aware base and PI's division both: NTK-aware only changes the base, it does not divide by s",
            mk(div_power=1.0),
        ),
        (_TRUNCATED, mk(int_factor=True)),
        (
            "the exponent d/(d−2) put on the product, (base·s)^(d/(d−2)), instead of on the factor alone: "
            "base·s^(d/(d−2))",
            mk(base_exp="paren"),
        ),
        (
            "Hugging Face's dynamic NTK base (_compute_dynamic_ntk_parameters in modeling_rope_utils.py), "
            "base·(s·ℓ/L − (s − 1))^(d/(d−2)), taken at a sequence length ℓ = s·L: that puts s² − s + 1 where "
            "this task's static NTK-aware base puts the factor s itself",
            mk(base_exp="dynamic"),
        ),
        (_BASE_IGNORED, mk(fixed_base=1e4)),
        (_NOT_NEGATED + ", with NTK-aware's base·s^(d/(d−2)) in place of base", mk(sign=1)),
        (
            _EXP_D2 + "; your base, NTK-aware's base·s^(d/(d−2)), is right: only the exponent's denominator is wrong",
            mk(denom_minus=2),
        ),
        (_REVERSED + ", with NTK-aware's base", mk(flip=True)),
        ("frequency index starts at 1: base^(-2(i+1)/d), with NTK-aware's base; θ_0 must be 1", mk(start=1)),
        (_PRECEDENCE, mk(precedence=True)),
    ]


def _ntk_effective_base(cases, outs, usable) -> str | bool:
    """RoPE frequencies θ_i = B^(−2i/d) from θ_0 = 1 on every wrong input, with another base B than NTK-aware's
    base·s^(d/(d−2)): said with B read back on the smallest input, NTK-aware's base there, and the factor x that
    B = base·x^(d/(d−2)) puts in place of s (a known mistake's base is named as that mistake; base·s^d/(d − 2),
    the precedence slip in base * factor ** d / (d - 2), is said as such). An input whose base is past float32's
    range (every θ_i but θ_0 is 0) says nothing either way."""
    seen = []
    for i in usable:
        o, (d, b, s) = outs[i], cases[i].args
        if isinstance(o, _Crash) or d < 4:
            continue
        o = _f64(o)
        if not (bool(torch.isfinite(o).all()) and bool((o >= 0).all()) and abs(float(o[0]) - 1) <= 1e-6):
            return False
        if not float(o[1]) > 0:
            if bool((o[1:] == 0).all()):  # a base past float32's range: base ** x is inf, every θ_i but θ_0 is 0
                continue
            return False
        eff = float(o[1]) ** (-d / 2)
        geo = eff ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        tiny = geo < 1e-30  # a huge base: float32 frequencies underflow to 0 (or a subnormal) there
        if not (bool((o[tiny] <= 1e-30).all()) and float(((o - geo) / geo).abs()[~tiny].max()) <= 1e-4):
            return False
        x = (eff / b) ** ((d - 2) / d)
        if not abs(x / s - 1) > 1e-4:  # NTK-aware's own base: the output is wrong some other way
            return False
        seen.append((d, b, s, eff, x))
    if not seen:
        return False
    known = [
        text
        for text, fn in _ntk_mistakes()
        if isinstance(fn, _Variant)
        and set(fn.flags) == {"base_exp"}
        and all(abs(e / _new_base(fn.flags["base_exp"], d, b, s) - 1) <= 1e-3 for d, b, s, e, _ in seen)
    ]
    d, b, s, eff, x = min(seen)  # the smallest input: the base there has the fewest digits
    want = b * s ** (d / (d - 2))
    # B^(−2i/(d−2)) is RoPE's form with base B^(d/(d−2)): the exponent's denominator, not the base, is wrong
    exp_bases = [(e ** ((dd - 2) / dd), dd, bb, ss) for dd, bb, ss, e, _ in seen]
    for name, form in (("NTK-aware's base·s^(d/(d−2))", "ntk"), ("the base argument itself", None)):
        if all(abs(B / _new_base(form, dd, bb, ss) - 1) <= 1e-3 for B, dd, bb, ss in exp_bases):
            return (
                f"{_EXP_D2}; your frequencies are B^(−2i/(d−2)) with B = {exp_bases[0][0]:.6g} at head_dim="
                f"{exp_bases[0][1]}, base={exp_bases[0][2]:g}, factor={exp_bases[0][3]:g}, {name}: divide the "
                "exponent by d, not d − 2"
                + ("" if form == "ntk" else "; NTK-aware also changes the base to base·s^(d/(d−2))")
            )
    if known:  # a known mistake's base, though its float32 frequencies underflow otherwise than the mistake's
        return (
            f"{known[0]} (your base is {eff:.6g} at head_dim={d}, base={b:g}, factor={s:g}; NTK-aware's is "
            f"base·s^(d/(d−2)) = {want:.6g})"
        )
    precedence = b * s**d / (d - 2)
    hint = (
        f" Here {eff:.6g} = base·s^d/(d − 2): ** binds tighter than /, so factor ** d / (d - 2) is s^d divided by "
        "d − 2; write factor ** (d / (d - 2))."
        if abs(eff / precedence - 1) <= 1e-3
        else ""
    )
    return (
        f"your frequencies are RoPE's with another base: your base is {eff:.6g} at head_dim={d}, base={b:g}, "
        f"factor={s:g}: expected base·s^(d/(d−2)) = {want:.6g}, that is base·x^(d/(d−2)) with x = {x:.4g}, where "
        f"NTK-aware puts the factor itself, x = s = {s:g}.{hint} Check what multiplies the base"
    )


def _pi_divisor(cases, outs, usable) -> str | bool:
    """RoPE's frequencies all divided by one number c on every wrong input, c not the factor: said with c read
    back on the smallest input (and c = s − 1, s + 1 named when they fit)."""
    seen = []
    for i in usable:
        o, (d, b, s) = outs[i], cases[i].args
        if isinstance(o, _Crash):
            continue
        ratio = _f64(rope_inv_freq(d, b)) / _f64(o)
        if not (bool(torch.isfinite(ratio).all()) and float(ratio.min()) > 0):
            return False
        c = float(ratio[0])
        if not float((ratio / c - 1).abs().max()) <= 1e-4 or not abs(c / s - 1) > 1e-4:
            return False
        seen.append((d, b, s, c))
    if not seen:
        return False
    d, b, s, c = min(seen)
    named = [
        text
        for text, f in (("factor − 1", lambda s: s - 1), ("factor + 1", lambda s: s + 1))
        if all(abs(cc / f(ss) - 1) <= 1e-4 for _, _, ss, cc in seen)
    ]
    also = f" (that is {named[0]})" if named else ""
    return (
        f"your frequencies are RoPE's θ_i all divided by one number c, but c = {c:.4g}{also} at head_dim={d}, "
        f"base={b:g}, factor={s:g}: PI divides every frequency by the factor itself, c = s = {s:g}"
    )


def _prop_pi_last(case, out, run):
    d, b, s = case.args
    if not abs(float(out[0]) * s - 1) <= 1e-5:
        return f"θ_0 = {float(out[0]):.4g}; PI divides every frequency by the factor, so θ_0 = 1/s = {1 / s:.4g}"
    return None


def _prop_ntk_first(case, out, run):
    d, b, s = case.args
    if not abs(float(out[0]) - 1) <= 1e-6:
        return f"θ_0 = {float(out[0]):.4g}: NTK-aware keeps the fastest pair at 1 rad per position"
    return None


def _prop_ntk_last(case, out, run):
    d, b, s = case.args
    want = float(rope_inv_freq(d, b)[-1]) / s
    if not abs(float(out[-1]) / want - 1) <= 1e-4:
        return f"the slowest pair turns at {float(out[-1]):.4g}; NTK-aware interpolates it by s: {want:.4g}"
    return None


def _yarn_ref(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return rope_scaled_inv_freq(
        head_dim,
        base,
        rope_type="yarn",
        factor=factor,
        original_max_position_embeddings=original_max_position_embeddings,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
    )


def _yarn_variant(
    d,
    base,
    factor,
    L0,
    beta_fast=32.0,
    beta_slow=1.0,
    *,
    reverse=False,
    swap_betas=False,
    no_round=False,
    interp_mul=False,
    mscale="ok",
    full_ramp=False,
    half_ramp_dim=False,
    guard=True,
    no_clip=False,
    half_d_cdim=False,
    turn_ramp=False,
    high_half=False,
    high_cap=None,
    int_factor=False,
    low_unclipped=False,
    no_two_pi=False,
    no_two=False,
    both_floor=False,
    rounding=None,
    pi_only=False,
    att_in_freq=False,
    not_negated=False,
    flip=None,
    lowp=None,
    no_low=False,
    cdim_log=None,
    ramp_plus=0,
    pos_lowp=None,
):
    if swap_betas:
        beta_fast, beta_slow = beta_slow, beta_fast
    if int_factor:
        factor = int(factor)

    def cdim(r):
        dd = d / 2 if half_d_cdim else d
        turn = 1 if no_two_pi else math.pi if pi_only else 2 * math.pi
        top = bottom = math.log
        if cdim_log is not None:  # (which side, the wrong logarithm): log10 or log2 on one side only
            top, bottom = (cdim_log[1], math.log) if cdim_log[0] == "num" else (math.log, cdim_log[1])
        return (dd * top(L0 / (r * turn))) / ((1 if no_two else 2) * bottom(base))

    low, high = cdim(beta_fast), cdim(beta_slow)
    if rounding == "round":  # Python's round(): to the nearest integer (ties to even)
        low, high = round(low), round(high)
    elif rounding == "ceil":
        low, high = math.ceil(low), math.ceil(high)
    elif both_floor:
        low, high = math.floor(low), math.floor(high)
    elif not no_round:
        low, high = math.floor(low), math.ceil(high)
    cap = high_cap(d) if high_cap is not None else (d // 2 - 1) if high_half else d - 1
    low, high = (low if low_unclipped else max(low, 0)), min(high, cap)
    if low == high and guard:
        high += 0.001
    i = torch.arange(d // 2, dtype=torch.float64)
    ramp = ((i - (0 if no_low else low)) / (high - low + ramp_plus)).clamp(0, 1)
    if half_ramp_dim:
        ramp = ((2 * i - low) / (high - low)).clamp(0, 1)
    if no_clip:
        ramp = (i - low) / (high - low)
    if turn_ramp:  # Peng et al.'s gamma(r), linear in the turns r = L_orig / wavelength, not in the pair index
        turns = L0 * base ** (-2 * i / d) / (2 * math.pi)
        ramp = 1 - ((turns - beta_slow) / (beta_fast - beta_slow)).clamp(0, 1)
    keep = ramp if reverse else 1 - ramp
    pos_freq = base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    if not_negated:  # θ_i = base^(+2i/d): the exponent's sign lost
        pos_freq = 1.0 / pos_freq
    if pos_lowp is not None:  # pos_freqs = base^(2i/d) rounded to float16 or bfloat16 (inf past float16's range)
        pos_freq = pos_freq.float().to(pos_lowp).double()
    if flip == "theta":  # θ in reverse order, then blended
        pos_freq = pos_freq.flip(0)
    extra = 1.0 / pos_freq
    inter = (factor / pos_freq) if interp_mul else 1.0 / (factor * pos_freq)
    inv = inter * (1 - keep) + extra * keep
    if flip == "out":  # the blended frequencies in reverse order
        inv = inv.flip(0)
    if lowp is not None:  # float32 frequencies rounded to float16 or bfloat16
        inv = inv.float().to(lowp).double()
    m = 0.1 * math.log(factor) + 1 if factor > 1 else 1.0
    att = {
        "ok": m,
        "none": 1.0,
        "square": m * m,
        "sqrt": math.sqrt(m),
        "no_tenth": math.log(factor) + 1,
        "no_one": 0.1 * math.log(factor) if factor > 1 else 1.0,
        "deepseek": 0.1 * 0.707 * math.log(factor) + 1 if factor > 1 else 1.0,
        "log10": 0.1 * math.log10(factor) + 1 if factor > 1 else 1.0,
        "log2": 0.1 * math.log2(factor) + 1 if factor > 1 else 1.0,
        "inverse": 1.0 / m,
    }[mscale]
    if att_in_freq:
        inv = inv * att
    return inv.float(), att


def _yarn_cases():
    # (8, 1e4, 4.0, 4) and (16, 1e4, 2.0, 8): both correction dimensions round to 0, low == high, the case
    # Hugging Face guards with high += 0.001 (the attention task's L_orig = 4 is one)
    specs = [
        (8, 1e4, 4.0, 4),
        (8, 1e4, 2.0, 64),
        (16, 1e4, 2.0, 8),
        (16, 1e4, 4.0, 256),
        (32, 1e4, 4.0, 2048),
        (64, 1e4, 8.0, 4096),
        (64, 5e5, 2.0, 1024),
        (128, 1e4, 16.0, 4096),
        (128, 1e6, 40.0, 4096, 16.0, 2.0),
        (128, 1e4, 16.0, 65536),  # the beta_slow correction dimension (65) exceeds d/2 - 1 = 63
        (32, 1e4, 2.5, 2048),  # factors need not be integers
        (64, 1e4, 1.5, 4096),
    ]
    out = []
    for sp in specs:
        d, b, s, L0 = sp[:4]
        betas = sp[4:] or (32.0, 1.0)
        out.append(
            Case(
                f"head_dim={d}, base={b:g}, factor={s:g}, original_max_position_embeddings={L0}, "
                f"beta_fast={betas[0]:g}, beta_slow={betas[1]:g}",
                (d, b, s, L0, *betas),
                tol=2e-5,
            )
        )
    return out


def _yarn_structure(case, out):
    inv, att = _pair(out, ("inv_freq", "attention_scaling"))
    inv = _float32(_shape(inv, (case.args[0] // 2,), "inv_freq"), "inv_freq")
    if isinstance(att, bool) or not isinstance(att, (int, float)):
        raise _Wrong(
            f"attention_scaling is a {type(att).__name__}, not a Python float: return a number (math.log, or "
            "float(...) around a tensor)"
        )
    return inv, float(att)


def _yarn_compare(case, out, expected):
    msg = _rel_compare(case, out[0], expected[0])
    if msg:
        return "inv_freq: " + msg
    a, e = out[1], expected[1]
    if not (abs(a - e) <= 1e-5 or (math.isnan(a) and math.isnan(e))):
        return f"attention_scaling {a:.6g} instead of {e:.6g}"
    return None


#: The relative tolerance of YaRN's property rows: wider than bfloat16's rounding (2^−8 relative), so frequencies
#: computed in low precision fail only the match row (the diagnosis names the precision), never a ramp property.
_PROP_REL = 5e-3
#: ... and float16's spacing below its smallest normal number (2^−24), where its rounding error is absolute.
_PROP_ABS = 2.0**-24


def _prop_yarn_ends(case, out, run):
    d, b, s, L0 = case.args[:4]
    beta_slow = case.args[5] if len(case.args) > 5 else 1.0
    high = math.ceil(d * math.log(L0 / (beta_slow * 2 * math.pi)) / (2 * math.log(b)))
    if high > d // 2 - 1:  # the ramp ends past the last pair: it is only partly interpolated
        return None
    o = _f64(out[0])
    plain = _f64(rope_inv_freq(d, b))
    want = float(plain[-1]) / s
    if not abs(float(o[-1]) - want) <= _PROP_REL * want + _PROP_ABS:
        return "the slowest pair (fewer than beta_slow turns over L_orig) must be interpolated: θ/factor"
    return None


def _prop_yarn_between(case, out, run):
    d, b, s = case.args[:3]
    o, plain = _f64(out[0]), _f64(rope_inv_freq(d, b))
    high, low = plain * (1 + _PROP_REL) + _PROP_ABS, plain / s * (1 - _PROP_REL) - _PROP_ABS
    if not (bool((o <= high).all()) and bool((o >= low).all())):
        return "every frequency must lie between θ/factor (interpolated) and θ (kept)"
    return None


def _yarn_mistakes():
    def mk(**kw):
        return _Variant(_yarn_variant, **kw)

    return [
        ("YaRN ramp reversed: the fast pairs are interpolated and the slow ones kept", mk(reverse=True)),
        ("beta_fast and beta_slow swapped", mk(swap_betas=True)),
        ("correction range not rounded: Hugging Face floors the low and ceils the high dimension", mk(no_round=True)),
        ("interpolated frequencies multiplied by the factor instead of divided", mk(interp_mul=True)),
        ("attention scaling missing: return 0.1·ln(factor) + 1, which multiplies cos and sin", mk(mscale="none")),
        (
            "correction range rounded down at both ends (int() or floor for high too): Hugging Face floors the low "
            "dimension and ceils the high one",
            mk(both_floor=True),
        ),
        (
            "the attention factor multiplied into the frequencies as well: it scales cos and sin (the logits), "
            "never inv_freq; return the frequencies without it",
            mk(att_in_freq=True),
        ),
        (
            "attention scaling squared: you returned (0.1·ln s + 1)², the factor the logits end up with. Return "
            "0.1·ln s + 1 itself: it multiplies both cos and sin, so the logits get its square",
            mk(mscale="square"),
        ),
        (
            "low == high (the correction range is empty) and the ramp (i − low)/(high − low) divides 0 by 0: NaN. "
            "When low == high, add 0.001 to high, as Hugging Face does",
            mk(guard=False),
        ),
        ("attention scaling is √(0.1·ln s + 1): the factor 0.1·ln s + 1 multiplies cos and sin", mk(mscale="sqrt")),
        ("attention scaling ln(s) + 1: the factor is 0.1·ln(s) + 1", mk(mscale="no_tenth")),
        ("attention scaling 0.1·ln(s) without the + 1: the factor is 0.1·ln(s) + 1", mk(mscale="no_one")),
        (
            "the 2 missing in the correction dimension's denominator: find_correction_dim is "
            "d·ln(L_orig/(2π·β))/(2·ln base)",
            mk(no_two=True),
        ),
        ("ramp indexed by the dimension 2i instead of the pair index i", mk(half_ramp_dim=True)),
        (
            "ramp divided by high − low + 1 (the number of pairs from low to high) instead of high − low: the ramp "
            "(i − low)/(high − low) reaches 1 at i = high",
            mk(ramp_plus=1),
        ),
        (
            "attention scaling 0.1·0.707·ln s + 1: 0.707 is DeepSeek's mscale (its config sets mscale = mscale_all_dim "
            "= 0.707, and Hugging Face divides the two factors); plain YaRN returns 0.1·ln s + 1",
            mk(mscale="deepseek"),
        ),
        (
            "ramp not clipped to [0, 1]: pairs below low or above high extrapolate past θ or θ/factor; clamp "
            "(i − low)/(high − low) to [0, 1]",
            mk(no_clip=True),
        ),
        (
            "correction dimension computed with d/2 instead of d: find_correction_dim is "
            "d·ln(L_orig/(2π·β))/(2·ln base), a pair index",
            mk(half_d_cdim=True),
        ),
        (
            "ramp linear in the turn count r = L_orig·θ/(2π) between beta_slow and beta_fast (Peng et al.'s γ(r), "
            "chapter 7): the task follows Hugging Face, whose ramp is linear in the pair index between the rounded "
            "correction dimensions",
            mk(turn_ramp=True),
        ),
        (
            "high clipped to d/2 − 1 instead of d − 1: Hugging Face clips the correction range to [0, d − 1], and "
            "when L_orig > 2π·base^(1 − 2/d)·beta_slow the high dimension passes d/2 − 1, so the ramp ends later",
            mk(high_half=True),
        ),
        (
            "high clipped to d/2 instead of d − 1: Hugging Face clips the correction range to [0, d − 1], and "
            "when L_orig > 2π·base^(1 − 2/d)·beta_slow the high dimension passes d/2, so the ramp ends later",
            mk(high_cap=lambda d: d // 2),
        ),
        (_TRUNCATED, mk(int_factor=True)),
        (
            "low not clipped at 0: when L_orig is short, the beta_fast correction dimension is negative and Hugging "
            "Face clips the range to [0, d − 1] before the ramp",
            mk(low_unclipped=True),
        ),
        (
            "2π missing in the correction dimension: d·ln(L_orig/(2π·β))/(2·ln base), β turns of 2π radians each",
            mk(no_two_pi=True),
        ),
        (
            "attention factor with the wrong logarithm (log10 or log2): 0.1·ln(s) + 1 uses the natural log",
            mk(mscale="log10"),
        ),
        (
            "attention factor with the wrong logarithm (log10 or log2): 0.1·ln(s) + 1 uses the natural log",
            mk(mscale="log2"),
        ),
        (
            "attention scaling inverted, 1/(0.1·ln s + 1): the factor is 0.1·ln(s) + 1 itself (above 1 for s > 1), "
            "which multiplies cos and sin",
            mk(mscale="inverse"),
        ),
        (
            "ramp i/(high − low) without − low: the ramp is (i − low)/(high − low), clamped to [0, 1], so it is 0 up "
            "to pair low and rises to 1 at pair high",
            mk(no_low=True),
        ),
        (
            "correction range rounded to the nearest integer (round()): Hugging Face floors the low dimension and "
            "ceils the high one (math.floor, math.ceil)",
            mk(rounding="round"),
        ),
        (
            "correction range rounded up at both ends (ceil for low too): Hugging Face floors the low dimension "
            "and ceils the high one",
            mk(rounding="ceil"),
        ),
        (
            "π instead of 2π in the correction dimension: d·ln(L_orig/(2π·β))/(2·ln base), β turns of 2π radians "
            "each (a wavelength is 2π/θ)",
            mk(pi_only=True),
        ),
        *(
            (
                f"correction dimension with the wrong logarithm ({name}) in its {where}: find_correction_dim is "
                "d·ln(L_orig/(2π·β))/(2·ln base), natural logs in the numerator and the denominator (one base on "
                "both sides cancels out; a mix does not)",
                mk(cdim_log=(side, log)),
            )
            for side, where in (("num", "numerator"), ("den", "denominator"))
            for name, log in (("log10", math.log10), ("log2", math.log2))
        ),
        (_YARN_LOWP.format(kind="float16"), mk(lowp=torch.float16)),
        (_YARN_LOWP.format(kind="bfloat16"), mk(lowp=torch.bfloat16)),
        *(
            (
                f"pos_freqs = base^(2i/d) computed in {kind} before the blend: each θ_i = 1/pos_freqs is off by "
                f"{kind}'s rounding (relative 2^−{bits})"
                + (", and past 65504 pos_freqs overflows to inf, so θ_i becomes 0" if kind == "float16" else "")
                + "; compute pos_freqs in float32 (a float tensor from torch.arange, not .half())",
                mk(pos_lowp=dt),
            )
            for kind, bits, dt in (("float16", 11, torch.float16), ("bfloat16", 8, torch.bfloat16))
        ),
        (_NOT_NEGATED + " in θ, so θ and θ/factor both grow with i", mk(not_negated=True)),
        (_REVERSED + " (θ flipped before the ramp blends θ and θ/factor)", mk(flip="theta")),
        (_REVERSED + " (the blended frequencies flipped)", mk(flip="out")),
    ]


_YARN_LOWP = (
    "frequencies computed in {kind}: inv_freq is on {kind}'s grid, each value off from posenc's by {kind}'s "
    "rounding (a relative error far below any ramp mistake); compute and return inv_freq in float32"
)


def _yarn_lowp(kind: str):
    """A detector: on every wrong input the attention scaling is right and inv_freq is on ``kind``'s grid, within
    that rounding of posenc's (relative 2^−8 for bfloat16, 2^−11 for float16, with float32 slack, and 2^−25 below
    float16's smallest normal number): frequencies
    computed or stored in ``kind`` somewhere, whatever the arithmetic before."""
    bits = _BITS[kind]

    def detect(cases, outs, usable):
        t = _CURRENT[0]
        expected, _ = _expected(t)
        for i in usable:
            o, e = outs[i], expected[i]
            if isinstance(o, _Crash) or isinstance(e, _Crash) or abs(o[1] - e[1]) > 1e-5:
                return False
            inv, ref = _f64(o[0]), _f64(e[0])
            keep = (ref != 0) & torch.isfinite(ref)
            if not bool(torch.isfinite(inv).all()) or not _fits(inv[inv != 0], bits):
                return False
            slack = (2.0**-bits * 1.01 + 2e-5) * ref.abs() + (2.0**-25 if kind == "float16" else 0.0)
            if not bool(((inv - ref).abs() <= slack)[keep].all()):
                return False
        return True

    return (_YARN_LOWP.format(kind=kind), detect)
