"""The Practice tasks of ALiBi: ``alibi_slopes`` (the official ``get_slopes``, any head count) and
``alibi_bias`` (causal), with the detectors of slopes linear in the head index and of a finite mask.

References:
    Press et al. 2022 (ALiBi, official ``get_slopes``).
"""

from __future__ import annotations

import math

import torch

from .. import alibi_bias, relative_positions
from .framework import Case, _Crash, _f64, _float32, _float_result, _shape, _Variant
from .precision import _CURRENT
from .running import _equal_output, _expected


# ---- ALiBi -------------------------------------------------------------------------------------------------
def _official_pow2(n):
    start = 2 ** (-(2 ** -(math.log2(n) - 3)))
    return [start * start**i for i in range(n)]


def _official(n):
    if math.log2(n).is_integer():
        return _official_pow2(n)
    c = 2 ** math.floor(math.log2(n))
    return _official_pow2(c) + _official(2 * c)[0::2][: n - c]


def _official_from_one(n):
    """get_slopes with ``start * ratio**i`` written as ``ratio**i`` (the natural slip): slopes start at 1."""
    if math.log2(n).is_integer():
        r = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [r**i for i in range(n)]
    c = 2 ** math.floor(math.log2(n))
    return _official_from_one(c) + _official_from_one(2 * c)[0::2][: n - c]


def _slopes_variants():
    def as_pow2(n):  # the power-of-two formula for any n
        r = 2 ** (-8 / n)
        return torch.tensor([r ** (i + 1) for i in range(n)])

    def first_extra(n):
        if math.log2(n).is_integer():
            return torch.tensor(_official(n))
        c = 2 ** math.floor(math.log2(n))
        return torch.tensor(_official_pow2(c) + _official_pow2(2 * c)[: n - c])

    def next_pow_trunc(n):
        c = 2 ** math.ceil(math.log2(n))
        return torch.tensor(_official_pow2(c)[:n])

    def from_c(n):
        if math.log2(n).is_integer():
            return torch.tensor(_official(n))
        c = 2 ** math.floor(math.log2(n))
        return torch.tensor(_official_pow2(c) + _official_pow2(c)[: n - c])

    def floor_exponent(n):  # the official rule with -8 // n (floor division) in the ratio's exponent
        def p2(m):
            r = 2.0 ** (-8 // m)
            return [r ** (i + 1) for i in range(m)]

        if math.log2(n).is_integer():
            return torch.tensor(p2(n))
        c = 2 ** math.floor(math.log2(n))
        return torch.tensor(p2(c) + p2(2 * c)[0::2][: n - c])

    def truncated_exponent(n):  # the ratio written 2 ** -(8 // n): 8 // n truncates, to 0 from 9 heads on
        def p2(m):
            r = 2.0 ** -(8 // m)
            return [r ** (i + 1) for i in range(m)]

        if math.log2(n).is_integer():
            return torch.tensor(p2(n))
        c = 2 ** math.floor(math.log2(n))
        return torch.tensor(p2(c) + p2(2 * c)[0::2][: n - c])

    def mpt_swapped(n):
        c2 = 2 ** math.ceil(math.log2(n))
        m = _official_pow2(c2)
        return torch.tensor(m if c2 == n else (m[0::2] + m[1::2])[:n])

    return [
        (
            "non-power-of-two heads: the extra slopes come from 2c heads (c the closest lower power of two, then every "
            "other slope of get_slopes(2c)); yours are the power-of-two formula with ratio 2^(-8/n), as if n were a "
            "power of two",
            as_pow2,
        ),
        (
            "non-power-of-two heads: the extra slopes come from 2c heads, but every other one (0::2), not the first "
            "n − c",
            first_extra,
        ),
        (
            "non-power-of-two heads: the extra slopes come from 2c heads (c the closest lower power of two); yours are "
            "the slopes of the next power of two, truncated",
            next_pow_trunc,
        ),
        (
            "non-power-of-two heads: the extra slopes come from 2c heads, get_slopes(2c)[0::2]; yours repeat the "
            "first c slopes (the odd-indexed ones of 2c heads)",
            from_c,
        ),
        (
            "slopes sorted: the official slopes for a non-power-of-two head count are not monotonic",
            lambda n: torch.tensor(sorted(_official(n), reverse=True)),
        ),
        (
            "slopes start at 1 (r^0) instead of r = 2^(-8/n): get_slopes returns start · ratio^i, with start = ratio",
            lambda n: torch.tensor(_official_from_one(n)),
        ),
        ("heads in reverse order: head 0 has the largest slope", lambda n: torch.tensor(_official(n)[::-1])),
        (
            "integer division in the ratio's exponent: -8 // n rounds down (to -1 from 8 heads on, so every ratio "
            "is 1/2); the ratio is 2^(-8/n), a float division",
            floor_exponent,
        ),
        (
            "integer division in the ratio's exponent: 8 // n truncates (to 0 from 9 heads on, so every slope is 1); "
            "the ratio is 2^(-8/n), a float division",
            truncated_exponent,
        ),
        (
            "MPT's interleave with its halves swapped: MPT builds the slopes of the next power of two, 2c, and takes "
            "slopes[1::2] (get_slopes(c)) first, then slopes[0::2]; yours take slopes[0::2] first",
            mpt_swapped,
        ),
    ]


def _slopes_cases():
    return [Case(f"n_heads={n}", (n,), tol=1e-6) for n in [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 40, 64, 96]]


def _slopes_structure(case, out):
    return _float32(_shape(out, (case.args[0],)), "the slopes")


def _prop_slopes_positive(case, out, run):
    if not bool((out > 0).all()):
        return "slopes must be positive (the bias is −slope·|Δ|)"
    return None


def _prop_slopes_geometric(case, out, run):
    n = case.args[0]
    if not math.log2(n).is_integer() or n < 2:
        return None
    o = _f64(out)
    want = 2 ** (-8 / n)
    if not (abs(float(o[0]) - want) <= 1e-6 and float((o[1:] / o[:-1] - want).abs().max()) <= 1e-5):
        return (
            f"for a power-of-two count the slopes are the geometric sequence r, r², ... with r = 2^(-8/n) = {want:.4g}"
        )
    return None


def _slopes_geometric(cases, outs, usable) -> str | bool:
    """Slopes that are one geometric sequence a·r^h on every wrong input (of two heads or more), said with the
    first slope and the ratio compared with get_slopes': r = 2^(-8/n) and a = r for a power of two n."""
    seen: list[tuple[int, float, float]] = []
    for i in usable:
        o, n = outs[i], cases[i].args[0]
        if isinstance(o, _Crash) or n < 2:
            continue
        o = _f64(o)
        k = int((o > 1e-30).cumprod(0).sum())  # float32 underflows a steep sequence to 0 in its tail
        if k < 2 or not bool((o[k:] >= 0).all() & (o[k:] <= 1e-30).all()):
            return False
        ratios = o[1:k] / o[: k - 1]
        if not float((ratios / ratios[0] - 1).abs().max()) <= 1e-4:
            return False
        seen.append((n, float(o[0]), float(ratios[0])))
    if not seen:
        return False

    def near(a: float, b: float) -> bool:
        return abs(a / b - 1) <= 1e-4

    parts = []
    if all(near(r, 2 ** (-n / 8)) and not near(r, 2 ** (-8 / n)) for n, _, r in seen):
        parts.append("the ratio is inverted: 2^(−n/8) instead of 2^(−8/n)")
    elif not all(near(r, 2 ** (-8 / n)) for n, _, r in seen):
        n, _, r = seen[0]
        parts.append(f"for n_heads={n} the ratio is {r:.4g} instead of 2^(−8/n) = {2 ** (-8 / n):.4g}")
    if all(near(a, 1.0) for _, a, _ in seen):
        parts.append("the slopes start at 1 (r^0, ..., r^(n−1)) instead of r (r^1, ..., r^n)")
    elif not all(near(a, r) for _, a, r in seen):
        n, a, r = seen[0]
        parts.append(f"for n_heads={n} the first slope is {a:.4g}, not the ratio r: get_slopes returns r, r², ...")
    if any(not math.log2(n).is_integer() for n, _, _ in seen):
        n = next(n for n, _, _ in seen if not math.log2(n).is_integer())
        parts.append(
            f"for n_heads={n}, not a power of two, yours are one geometric sequence: get_slopes takes the slopes of "
            "c heads (c the closest lower power of two) and then every other slope of get_slopes(2c)"
        )
    return bool(parts) and "your slopes are geometric, a·r^h, but " + "; ".join(parts)


def _is_linear(out):
    o = _f64(out)
    if o.numel() < 3:
        return False
    diff = o[1:] - o[:-1]
    return (
        float((diff - diff[0]).abs().max()) < 1e-5 * (abs(float(diff[0])) + 1e-9) + 1e-8 and abs(float(diff[0])) > 1e-9
    )


# ---- ALiBi bias ---------------------------------------------------------------------------------------------
def _ref_bias(n, L):
    return alibi_bias(n, L)


def _bias_variant(n, L, *, slopes=None, sign=-1, mask="upper", bloom=False, mask_value=float("-inf")):
    m = torch.tensor(_official(n), dtype=torch.float64) if slopes is None else slopes(n).double()
    rel = relative_positions(L).double()
    b = (m[:, None, None] * rel[None]) if bloom else sign * m[:, None, None] * rel.abs()[None]
    if bloom:
        b = m[:, None, None] * torch.arange(L, dtype=torch.float64)[None, None, :].expand(n, L, L)
    if mask == "upper":
        b = b.masked_fill(rel[None] > 0, mask_value)
    elif mask == "lower":
        b = b.masked_fill(rel[None] < 0, mask_value)
    elif mask == "diag":
        b = b.masked_fill(rel[None] >= 0, mask_value)
    return b.float()


def _bias_cases():
    return [
        Case(f"n_heads={n}, q_len={L}", (n, L), tol=1e-5)
        for n, L in [(1, 1), (1, 3), (2, 4), (3, 5), (4, 8), (6, 7), (8, 16), (12, 10)]
    ]


def _bias_structure(case, out):
    n, L = case.args
    return _float_result(_shape(out, (n, L, L)), "the bias")


def _prop_causal_inf(case, out, run):
    L = case.args[1]
    future = relative_positions(L) > 0
    o = out.float()
    if bool((~torch.isneginf(o[:, future])).any()):
        return "entries with key after the query (j > i) must be −inf"
    if bool(torch.isneginf(o[:, ~future]).any()):
        return "−inf where the key is not after the query (j ≤ i)"
    return None


def _prop_bias_diag(case, out, run):
    if bool((out.float().diagonal(dim1=-2, dim2=-1) != 0).any()):
        return "the diagonal (a query and its own key, distance 0) must be 0"
    return None


def _slopes_linear(cases, outs, usable) -> bool:
    seqs = [outs[i] for i in usable if not isinstance(outs[i], _Crash) and outs[i].numel() >= 3]
    return bool(seqs) and all(_is_linear(o) for o in seqs)


def _bias_linear(cases, outs, usable) -> bool:
    seqs = [
        -_f64(outs[i])[:, 1, 0]
        for i in usable
        if not isinstance(outs[i], _Crash) and outs[i].shape[0] >= 3 and outs[i].shape[1] >= 2
    ]
    return bool(seqs) and all(_is_linear(o) for o in seqs)


_FINITE = "masked with a large finite number instead of −inf"


def _bias_finite_mask(cases, outs, usable) -> str | bool:
    """Keys after the query get a large finite negative number (-1e9, finfo.min) instead of -inf. With −inf put
    there, the output is posenc's (said as is), or a known mistake's (said as two mistakes), or still wrong
    elsewhere (said too)."""
    seen = False
    fixed = {}
    for i in usable:
        o, L = outs[i], cases[i].args[1]
        if isinstance(o, _Crash):
            return False
        future = relative_positions(L) > 0
        if L >= 2:
            masked = o.float()[:, future]
            if not (bool(torch.isfinite(masked).all()) and bool((masked <= -1e4).all())):  # NaN-safe
                return False
            seen = True
        fixed[i] = o.double().masked_fill(future, float("-inf"))
    if not seen:
        return False
    t = _CURRENT[0]
    expected, mistaken = _expected(t)
    if all(_equal_output(t, cases[i], fixed[i], expected[i]) for i in usable):
        return _FINITE
    for text, m_outs in mistaken:
        if text != _FINITE and all(_equal_output(t, cases[i], fixed[i], m_outs[i]) for i in usable):
            return f"two mistakes together: {_FINITE}; and {text}"
    return f"{_FINITE}; and with −inf there, other entries still differ from posenc's"


def _bias_mistakes():
    def mk(**kw):
        return _Variant(_bias_variant, **kw)

    variants = _slopes_variants()
    linear = lambda n: torch.tensor([(h + 1) / n for h in range(n)]) * 1.0  # noqa: E731
    out = [
        ("bias positive: +slope·|Δ| added instead of −slope·|Δ|", mk(sign=1)),
        ("no causal mask: keys after the query are not −inf", mk(mask="none")),
        ("mask on the wrong side: −inf below the diagonal (keys before the query)", mk(mask="lower")),
        ("the diagonal is masked too: a query cannot see its own key", mk(mask="diag")),
        (
            "bias is slope × key position (the key-position form of Press et al.'s code, which BLOOM copies): equal up "
            "to a per-row shift that softmax ignores under a causal mask, but not "
            "the −slope·|j − i| asked for",
            mk(bloom=True),
        ),
        (_FINITE, mk(mask_value=-1e9)),
        (
            "NaN where −inf belongs (the keys after the query): 0·(−inf) is NaN, so a −inf mask multiplied by 0 or "
            "by a 0/1 mask (mask * 0, ones.triu(1) * -inf) leaves NaN; put −inf there with "
            "bias.masked_fill(j > i, float('-inf'))",
            mk(mask_value=float("nan")),
        ),
        ("ALiBi slopes linear in the head index", mk(slopes=linear)),
    ]
    out += [(f"slopes wrong — {text}", mk(slopes=f)) for text, f in variants]
    return out
