"""The Practice tasks of ALiBi: ``alibi_slopes`` (the official ``get_slopes``, any head count) and
``alibi_bias`` (causal), with the detectors of slopes linear in the head index and of a finite mask.

References:
    Press et al. 2022 (ALiBi, official ``get_slopes``).
"""

from __future__ import annotations

import math

import torch

from .. import alibi_bias, alibi_slopes, relative_positions
from .framework import Case, _Crash, _f64, _float32, _float_result, _shape, _Variant
from .precision import _CURRENT
from .running import _equal_output, _expected


# ---- ALiBi -------------------------------------------------------------------------------------------------
def _slopes_variant(
    n, *, linear=False, from_one=False, ratio="float", extra="official", order=None, negate=False, invert=False
):
    """get_slopes and the mistakes made in it, as flags that combine (:class:`_Variant`): ``linear`` (h + 1)/n;
    ``from_one`` start · ratio^i written as ratio^i (slopes start at 1); ``ratio`` "floor" 2^(−8 // m) or
    "trunc" 2^−(8 // m) for the float 2^(−8/m); ``extra`` the rule for a non-power-of-two count ("as_pow2" the
    power-of-two formula at n, "first" get_slopes(2c)[:n − c], "next_pow" the next power of two truncated,
    "from_c" the first c slopes again, "mpt_swapped" MPT's interleave with its halves swapped, "c_even"
    get_slopes(c)[0::2] repeated, "before" the extra slopes placed before the first c, "extra_reversed" the extra
    slopes in reverse order); ``order`` "sorted" or
    "reversed"; ``negate`` every slope negated; ``invert`` every slope inverted (1/m); ``extra`` "below" also
    takes a power-of-two count n as c = n / 2 plus n / 2 extra slopes."""

    def pow2(m):
        if ratio == "floor":
            r = 2.0 ** (-8 // m)
        elif ratio == "trunc":
            r = 2.0 ** -(8 // m)
        else:
            r = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [r ** (i + (0 if from_one else 1)) for i in range(m)]

    if linear:
        s = [(h + 1) / n for h in range(n)]
    elif extra == "of_8" and n < 8:  # the slopes of 8 heads, the first n
        s = pow2(8)[:n]
    elif extra == "below" and n > 1 and math.log2(n).is_integer():  # c = n / 2, strictly below n
        s = pow2(n // 2) + pow2(n)[0::2][: n // 2]
    elif math.log2(n).is_integer() or extra == "as_pow2":
        s = pow2(n)
    else:
        c = 2 ** math.floor(math.log2(n))
        if extra == "next_pow":
            s = pow2(2 * c)[:n]
        elif extra == "mpt_swapped":
            m = pow2(2 * c)
            s = (m[0::2] + m[1::2])[:n]
        elif extra == "first":
            s = pow2(c) + pow2(2 * c)[: n - c]
        elif extra == "from_c":
            s = pow2(c) + pow2(c)[: n - c]
        elif extra == "c_even":  # every other slope of c heads, repeated until there are n − c
            even = pow2(c)[0::2]
            s = pow2(c) + [even[j % len(even)] for j in range(n - c)]
        elif extra == "before":
            s = pow2(2 * c)[0::2][: n - c] + pow2(c)
        elif extra == "of_2n":  # every other slope of 2n heads instead of 2c
            s = pow2(c) + pow2(2 * n)[0::2][: n - c]
        elif extra == "extra_reversed":  # the right n − c extra slopes, in reverse order
            s = pow2(c) + pow2(2 * c)[0::2][: n - c][::-1]
        else:
            s = pow2(c) + pow2(2 * c)[0::2][: n - c]
    if order == "sorted":
        s = sorted(s, reverse=True)
    elif order == "reversed":
        s = s[::-1]
    if negate:
        s = [-v for v in s]
    if invert:
        s = [1 / v for v in s]
    return torch.tensor(s, dtype=torch.float64)


#: The known mistakes of get_slopes: (diagnosis, flags of :func:`_slopes_variant`).
_SLOPE_MISTAKES: list[tuple[str, dict]] = [
    (
        "non-power-of-two heads: the extra slopes come from 2c heads (c the closest lower power of two, then every "
        "other slope of get_slopes(2c)); yours are the power-of-two formula with ratio 2^(-8/n), as if n were a "
        "power of two",
        dict(extra="as_pow2"),
    ),
    (
        "non-power-of-two heads: the extra slopes come from 2c heads, but every other one (0::2), not the first n − c",
        dict(extra="first"),
    ),
    (
        "non-power-of-two heads: the extra slopes come from 2c heads (c the closest lower power of two); yours are "
        "the slopes of the next power of two, truncated",
        dict(extra="next_pow"),
    ),
    (
        "non-power-of-two heads: the extra slopes come from 2c heads, get_slopes(2c)[0::2]; yours repeat the "
        "first c slopes (the odd-indexed ones of 2c heads)",
        dict(extra="from_c"),
    ),
    ("slopes sorted: the official slopes for a non-power-of-two head count are not monotonic", dict(order="sorted")),
    (
        "slopes start at 1 (r^0) instead of r = 2^(-8/n): get_slopes returns start · ratio^i, with start = ratio",
        dict(from_one=True),
    ),
    (
        "heads in reverse order: your head 0 has the smallest slope and the last head the largest; head 0 "
        "should have the largest (get_slopes falls with the head index)",
        dict(order="reversed"),
    ),
    (
        "integer division in the ratio's exponent: -8 // n rounds down (to -1 from 8 heads on, so every ratio "
        "is 1/2); the ratio is 2^(-8/n), a float division",
        dict(ratio="floor"),
    ),
    (
        "integer division in the ratio's exponent: 8 // n truncates (to 0 from 9 heads on, so every slope is 1); "
        "the ratio is 2^(-8/n), a float division",
        dict(ratio="trunc"),
    ),
    (
        "MPT's interleave with its halves swapped: MPT builds the slopes of the next power of two, 2c, and takes "
        "slopes[1::2] (get_slopes(c)) first, then slopes[0::2]; yours take slopes[0::2] first",
        dict(extra="mpt_swapped"),
    ),
    (
        "non-power-of-two heads: the extra slopes placed first; get_slopes returns the c slopes of get_slopes(c) "
        "first, then the n − c extra ones, get_slopes(2c)[0::2][: n − c]",
        dict(extra="before"),
    ),
    (
        "non-power-of-two heads: the extra slopes come from 2c heads, get_slopes(2c)[0::2]; yours take every other "
        "slope of c heads, get_slopes(c)[0::2] (c the closest lower power of two): those repeat slopes of the "
        "first c heads instead of the 2c slopes that fall between them",
        dict(extra="c_even"),
    ),
    (
        "non-power-of-two heads: the extra slopes in reverse order; they are get_slopes(2c)[0::2][: n − c] as they "
        "come, falling from head c on (c the closest lower power of two), the first c slopes being get_slopes(c)",
        dict(extra="extra_reversed"),
    ),
    (
        "non-power-of-two heads: the extra slopes come from 2c heads, get_slopes(2c)[0::2][: n − c] (c the closest "
        "lower power of two); yours take them from 2n heads, get_slopes(2n)",
        dict(extra="of_2n"),
    ),
]

_SLOPE_MISTAKES.append(
    (
        "the slopes of 8 heads, the first n taken (get_slopes(max(8, n))[:n]): the slopes depend on n_heads, "
        "2^(−8(h + 1)/n) for a power of two n, so n = 1 has the single slope 2^−8, not 1/2",
        dict(extra="of_8"),
    )
)

_SLOPE_MISTAKES += [
    (
        "slopes inverted (1/m, a positive exponent 2^(+8(h + 1)/n)): the slopes are 2^(−8(h + 1)/n), below 1 and "
        "falling with the head index",
        dict(invert=True),
    ),
    (
        "a power-of-two head count handled as if it were not one: c, the closest power of two at or below n, is "
        "n itself when n is a power of two (then the slopes are get_slopes(n)); yours take c = n / 2 and add "
        "n / 2 extra slopes (a bit_length or log2(n − 1) off by one)",
        dict(extra="below"),
    ),
]

_LINEAR = "ALiBi slopes linear in the head index"


def _slopes_variants():
    """The known mistakes of ``alibi_slopes``, each a :class:`_Variant` of :func:`_slopes_variant` (two combine)."""
    return (
        [(_LINEAR, _Variant(_slopes_variant, linear=True))]
        + [(text, _Variant(_slopes_variant, **flags)) for text, flags in _SLOPE_MISTAKES]
        + [
            (
                "slopes negated: get_slopes returns positive slopes m; the minus sign belongs to the bias, "
                "−m·|j − i|, not to the slopes",
                _Variant(_slopes_variant, negate=True),
            )
        ]
    )


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


def _slopes_power(cases, outs, usable) -> str | bool:
    """Slopes that are get_slopes' raised to one power k ≠ 1 on every wrong input (the sqrt, the square, or the
    8 of 2^(−8/n) replaced by 8k), said with k and the head counts where they are wrong."""
    ks: list[float] = []
    wrong: list[int] = []
    for i in usable:
        o, n = outs[i], cases[i].args[0]
        if isinstance(o, _Crash):
            return False
        o, e = _f64(o), _f64(alibi_slopes(n))
        if o.shape != e.shape or not bool(((o > 0) & (o < 1)).all()):
            return False
        k = torch.log(o) / torch.log(e)
        if not float((k - k[0]).abs().max()) <= 1e-4 * abs(float(k[0])) or abs(float(k[0]) - 1) <= 1e-4:
            return False
        ks.append(float(k[0]))
        wrong.append(n)
    if not ks or max(ks) - min(ks) > 1e-4 * max(abs(v) for v in ks):
        return False
    power = sum(ks) / len(ks)
    where = ", ".join(map(str, wrong[:6])) + (", ..." if len(wrong) > 6 else "")
    return (
        f"for n_heads = {where} your slopes are get_slopes' raised to the power {power:.4g} "
        f"(each slope m as m^{power:.4g}): as if the 8 in 2^(−8/n) were {8 * power:.4g}, "
        f"2^(−{8 * power:.4g}(h + 1)/n) for a power of two n. The exponent is "
        "−8 for every head count, and for a non-power-of-two count the slopes are get_slopes(c) then every other "
        "slope of get_slopes(2c)"
    )


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


def _bias_variant(
    n, L, *, sign=-1, mask="upper", bloom: bool | int = False, mask_value=float("-inf"), plus_one=False, **slope_flags
):
    """ALiBi's causal bias and the mistakes made in it (flags); ``slope_flags`` are :func:`_slopes_variant`'s, so
    that a slope mistake combines with a mistake of the bias."""
    m = _slopes_variant(n, **slope_flags)
    rel = relative_positions(L).double()
    b = (m[:, None, None] * rel[None]) if bloom else sign * m[:, None, None] * (rel.abs() + int(plus_one))[None]
    if bloom:
        b = int(bloom) * m[:, None, None] * torch.arange(L, dtype=torch.float64)[None, None, :].expand(n, L, L)
    if mask == "upper":
        b = b.masked_fill(rel[None] > 0, mask_value)
    elif mask == "lower":
        b = b.masked_fill(rel[None] < 0, mask_value)
    elif mask == "diag":
        b = b.masked_fill(rel[None] >= 0, mask_value)
    return b.float()


def _bias_cases():
    out = [
        Case(f"n_heads={n}, q_len={L}", (n, L), tol=1e-5)
        for n, L in [(1, 1), (1, 3), (2, 4), (3, 5), (4, 8), (6, 7), (8, 16), (12, 10), (2, 130), (3, 6)]
    ]
    # q_len 6 called again with another head count: a result cached by q_len alone comes back
    return out + [
        Case("n_heads=5, q_len=6 (called again with another n_heads)", (5, 6), tol=1e-5, repeats=out[-1].label)
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


def _masked_like_posenc(cases, outs, usable) -> list | None:
    """(case, posenc's bias, the output), both float64, for every wrong input, when each output has posenc's shape
    and its finite entries (the −inf mask) where posenc's are; None otherwise (a crash too)."""
    pairs = []
    for i in usable:
        o = outs[i]
        if isinstance(o, _Crash):
            return None
        e, g = _f64(alibi_bias(*cases[i].args)), _f64(o)
        if g.shape != e.shape or not torch.equal(torch.isfinite(g), torch.isfinite(e)):
            return None
        pairs.append((cases[i], e, g))
    return pairs


def _bias_row_shift(cases, outs, usable) -> str | bool:
    """The bias off from posenc's by a constant in each row (query i), the −inf mask right: on every wrong input, the
    finite entries are where posenc's are, and got − expected is the same across each row's keys. Softmax over the
    keys ignores such a constant, so the attention weights are right; the bias is not."""
    pairs = _masked_like_posenc(cases, outs, usable)
    if pairs is None:
        return False
    seen = ""
    for case, e, g in pairs:
        L = case.args[1]
        if bool(torch.isnan(g).any()):
            return False
        diff = torch.where(torch.isfinite(e), g - e, torch.full_like(e, float("nan")))
        first = diff[..., :1]  # key 0 is finite in every row (causal mask)
        spread = torch.nan_to_num((diff - first).abs(), nan=0.0)
        if not float(spread.max()) <= case.tol * (1 + float(e[torch.isfinite(e)].abs().max())):
            return False
        if not seen and L >= 2:
            rows = first[0, :, 0]
            seen = f"at {case.label}, head 0's rows are shifted by {[round(float(v), 4) for v in rows[:4]]}"
    if not seen:
        return False
    return (
        "your bias equals −slope·|j − i| plus a constant in each row (query i), with the −inf mask right "
        f"({seen}): softmax over the keys ignores such a constant, so the attention weights come out the same, but "
        "a check of the bias itself does not. The task asks for −slope·|j − i| exactly, 0 on the diagonal"
    )


def _bias_row_slopes(cases, outs, usable) -> str | bool:
    """The slope indexed by the query row: on every wrong input the −inf mask is right and each row i of each head
    is −s_hi·|j − i| over its keys j ≤ i, a line through 0 on the diagonal, but s_hi changes from row to row of a
    head somewhere (m[i] for the query's row, m_h/(1 + i), ...). ALiBi's slope belongs to the head alone."""
    pairs = _masked_like_posenc(cases, outs, usable)
    if pairs is None:
        return False
    seen = ""
    for case, e, g in pairs:
        L = case.args[1]
        if float(g.diagonal(dim1=-2, dim2=-1).abs().max()) > case.tol:
            return False
        if L < 2:
            continue
        dist = (-relative_positions(L)).clamp(min=0).double()  # i − j for keys j ≤ i, 0 after the query
        slopes = -g[:, 1:, 0] / dist[1:, 0]  # row i's slope, read at key 0 (distance i)
        line = -slopes[:, :, None] * dist[None, 1:, :]
        fin = torch.isfinite(e[:, 1:])
        if not float((line - g[:, 1:])[fin].abs().max()) <= case.tol * (1 + float(e[torch.isfinite(e)].abs().max())):
            return False
        spread = (slopes - slopes[:, :1]).abs().amax(-1)  # per head: how far its rows' slopes are apart
        if not seen and float(spread.max()) > case.tol:
            h = int(spread.argmax())
            seen = (
                f"at {case.label}, head {h}'s rows 1, 2, ... have slopes "
                f"{[round(float(v), 4) for v in slopes[h, :4]]} where posenc's is {float(-e[h, 1, 0]):.4g} in every row"
            )
    if not seen:
        return False
    return (
        "the slope changes from one query row to the next: each row of your bias is −s·|j − i|, with the −inf mask "
        f"right, but with a slope s that depends on the query i ({seen}); ALiBi's slope m_h belongs to the head "
        "alone, the same in every row, so index the slopes by the head axis only (m[:, None, None] · |j − i|)"
    )


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
        (
            "bias −slope × key position (−m·j): that is +slope·|j − i| plus a constant in each row, so it favours "
            "far keys; BLOOM's key-position form is +slope·j, equal to −slope·|j − i| plus a per-row constant that "
            "softmax ignores. The task asks for the bias itself, −slope·|j − i|, 0 on the diagonal",
            mk(bloom=-1),
        ),
        (_FINITE, mk(mask_value=-1e9)),
        (
            "NaN where −inf belongs (the keys after the query): 0·(−inf) is NaN, so a −inf mask multiplied by 0 or "
            "by a 0/1 mask (mask * 0, ones.triu(1) * -inf) leaves NaN; put −inf there with "
            "bias.masked_fill(j > i, float('-inf'))",
            mk(mask_value=float("nan")),
        ),
        (
            "0 where −inf belongs (the keys after the query): a 0 there (masked_fill(..., 0), or the bias multiplied "
            "by a 0/1 causal mask such as tril) gives those keys the bias of the query's own key, so softmax still "
            "weighs them; put −inf there with bias.masked_fill(j > i, float('-inf'))",
            mk(mask_value=0.0),
        ),
        (_LINEAR, mk(linear=True)),
        (
            "distance counted from 1: −slope·(|j − i| + 1) puts −slope on the diagonal; the query's own key is at "
            "distance 0, so the bias there is 0",
            mk(plus_one=True),
        ),
    ]
    out += [(f"slopes wrong — {text}", mk(**flags)) for text, flags in _SLOPE_MISTAKES]
    return out
