"""The Practice tasks of the relative encodings: ``shaw_relative_index``, ``shaw_attention``,
``t5_relative_bucket`` and ``t5_causal_bucket`` (the decoder's buckets).

References:
    Shaw et al. 2018; Raffel et al. 2020 and Hugging Face ``T5Attention._relative_position_bucket``.
"""

from __future__ import annotations

import math

import torch

from .. import relative_positions, shaw_attention, t5_relative_bucket
from .framework import Case, _close, _Crash, _float_result, _g, _shape, _Variant, _Wrong
from .precision import _CURRENT, _lowp_computed
from .running import _expected


# ---- Shaw ----------------------------------------------------------------------------------------------
def _shaw_cases():
    out = [
        Case(f"q_len={L}, max_distance={k}", (L, k), tol=0)
        for L, k in [(1, 1), (1, 3), (2, 1), (4, 2), (5, 7), (9, 3), (16, 4), (6, 2)]
    ]
    # q_len 6 called again with another max_distance: a result cached by q_len alone comes back
    return out + [
        Case("q_len=6, max_distance=3 (called again with another max_distance)", (6, 3), tol=0, repeats=out[-1].label)
    ]


def _shaw_structure(case, out):
    L = case.args[0]
    out = _shape(out, (L, L))
    if out.dtype != torch.int64:
        raise _Wrong(f"dtype {out.dtype}; an index into the table must be int64 (torch.long)")
    return out


def _prop_shaw_range(case, out, run):
    k = case.args[1]
    if out.numel() and (int(out.min()) < 0 or int(out.max()) > 2 * k):
        return f"indices outside [0, 2k] = [0, {2 * k}] (the table has 2k+1 rows)"
    return None


def _prop_toeplitz(case, out, run):
    L = case.args[0]
    if L > 1 and not torch.equal(out[1:, 1:], out[:-1, :-1]):
        return "the index is not constant along diagonals: it must depend on j − i only"
    return None


def _shaw_shift_clip(cases, outs, usable) -> str | bool:
    """An index of the form clip(±(j − i) + a, lo, hi) on every wrong input, but with another sign, shift a or
    other bounds than Shaw's clip(j − i, −k, k) + k = clip(j − i + k, 0, 2k): said with them on the largest
    such input."""
    for sign, rel_text in ((1, "j − i"), (-1, "i − j")):
        seen = []
        for i in usable:
            o, (L, k) = outs[i], cases[i].args
            if isinstance(o, _Crash) or L < 2:
                continue
            rel = sign * relative_positions(L).long()
            o = o.long()
            lo, hi = int(o.min()), int(o.max())
            shifts = [a for a in range(lo - L, hi + L + 1) if torch.equal((rel + a).clamp(lo, hi), o)]
            if not shifts:
                break
            seen.append((L, k, shifts[0], lo, hi))
        else:
            if not seen:
                return False
            L, k, a, lo, hi = max(seen)
            sign_text = (
                ""
                if sign == 1
                else " It uses i − j (query − key) where Shaw's uses j − i (key − query): the key after the query "
                "gets the larger index."
            )
            return (
                f"your index is clip({rel_text} + {a}, {lo}, {hi}) at q_len={L}, max_distance={k}: shifted by {a} and "
                f"clipped to [{lo}, {hi}]; Shaw's is clip(j − i, −k, k) + k = clip(j − i + {k}, 0, {2 * k}): shift by "
                f"k = max_distance, then clip to [0, 2k] (or clip j − i to [−k, k] first, then add k).{sign_text}"
            ).rstrip()
    return False


def _shaw_variant(
    L,
    k,
    *,
    sign=1,
    no_shift=False,
    shift_plus=0,
    no_clip=False,
    lo_plus=0,
    hi_plus=0,
    abs_=False,
    clip_positions=False,
    future_zero=False,
    wrap=False,
    unsigned=False,
):
    """Shaw's index clip(j − i, −k, k) + k and the mistakes made in it (flags)."""
    p = torch.arange(L)
    if clip_positions:  # each position clipped to k before the difference
        p = p.clamp(max=k)
    rel = sign * (p[None, :] - p[:, None])
    if unsigned:  # j − i in torch.uint8: a negative difference wraps around to 256 + (j − i)
        rel = torch.remainder(rel, 256)
    if abs_:
        rel = rel.abs()
    if not no_clip:
        rel = rel.clamp(-k + lo_plus, k + hi_plus)
    rel = rel + (0 if no_shift else k + shift_plus)
    if wrap:  # j − i + k taken modulo 2k + 1: far distances wrap around instead of sticking at 0 and 2k
        rel = torch.remainder(sign * (p[None, :] - p[:, None]) + k, 2 * k + 1)
    if future_zero:  # a causal mask applied to the index: keys after the query (j > i) set to 0
        rel = rel.masked_fill(p[None, :] > p[:, None], 0)
    return rel


def _shaw_mistakes():
    def mk(**kw):
        return _Variant(_shaw_variant, **kw)

    return [
        ("relative position taken as query − key (i − j) instead of key − query (j − i)", mk(sign=-1)),
        ("not shifted by max_distance: negative indices", mk(no_shift=True)),
        ("distances not clipped to [−k, k]", mk(no_clip=True)),
        ("|j − i| used: the direction is lost", mk(abs_=True)),
        ("clipped to [−(k−1), k−1] (off by one)", mk(lo_plus=1, hi_plus=-1)),
        ("clipped to [−k, k − 1] (off by one at the top): clip j − i to [−k, k], 2k + 1 indices", mk(hi_plus=-1)),
        ("shifted by k + 1 instead of k", mk(shift_plus=1)),
        (
            "the positions clipped to max_distance before the difference (min(j, k) − min(i, k)): Shaw clips the "
            "difference j − i to [−k, k], so the index depends on j − i only",
            mk(clip_positions=True),
        ),
        (
            "the entries of keys after the query (j > i) set to 0: the index is not a mask; it holds "
            "clip(j − i, −k, k) + k for every pair, the future ones included (the attention masks them later)",
            mk(future_zero=True),
        ),
        (
            "j − i + k wrapped modulo 2k + 1 (torch.remainder or %) instead of clipped: distance k + 1 lands on "
            "index 0, the far end of the table; clip j − i to [−k, k] first (torch.clamp), then add k",
            mk(wrap=True),
        ),
        (
            "j − i computed in an unsigned dtype (torch.uint8 positions): a negative j − i wraps around to "
            "256 + (j − i), a large positive number, so the clip sends every key before the query to index 2k; "
            "compute j − i in int64 (torch.arange's default), then clip",
            mk(unsigned=True),
        ),
    ]


def _ref_shaw_attention(q, k, v, rel_k, rel_v):
    return shaw_attention(q, k, v, rel_k, rel_v, causal=True)


def _shaw_attn_variant(
    q,
    k,
    v,
    rel_k,
    rel_v,
    *,
    sign=1,
    value=True,
    scale_rel=True,
    causal=True,
    diag=False,
    softmax_dim=-1,
    scale_power=0.5,
    key_side=False,
    swap_tables=False,
    value_abs=False,
    k_shift=0,
    mask_after=False,
    value_from_k=False,
    scale_by_len=False,
    mask_past=False,
    uncentred=False,
    key_row=False,
    unshifted=False,
    value_centre=False,
    k_rows=False,
    scale_of=None,
    value_shift=None,
    mask_fill=float("-inf"),
    wrap=False,
    value_unmasked=False,
    clip_minus1=False,
):
    d = q.shape[-1]
    L = q.shape[-2]
    if swap_tables:
        rel_k, rel_v = rel_v, rel_k
    kk = max((rel_k.shape[0] - 1) // 2 + k_shift, 0)
    if k_rows:  # k = rows − 1 (not halved): the index k + clip(j − i, −k, k), clamped back into the table
        kk = rel_k.shape[0] - 1
    idx = (sign * relative_positions(L)).clamp(-kk, kk) + kk
    if k_rows:
        idx = idx.clamp(max=rel_k.shape[0] - 1)
    if clip_minus1:  # clip(j − i, −(k − 1), k − 1) + k: the first and last rows of the tables never read
        idx = (sign * relative_positions(L)).clamp(-kk + 1, kk - 1) + kk
    if uncentred:  # clip(j − i, 0, 2k) without the shift by k: every causal pair (j ≤ i) reads row 0
        idx = (sign * relative_positions(L)).clamp(0, 2 * kk)
    if unshifted:  # clip(j − i, −k, k) without + k: negative indices read the tables' last rows
        idx = (sign * relative_positions(L)).clamp(-kk, kk)
    if wrap:  # k + (j − i) taken modulo the row count instead of clipped: far distances wrap to the other side
        idx = (sign * relative_positions(L) + kk) % rel_k.shape[0]
    idx_v = relative_positions(L).abs().clamp(max=kk) + kk if value_abs else idx
    if value_shift is not None:  # the value side's index moved by a whole number of rows, clamped into the table
        by = {"-k": -kk, "+k": kk}.get(value_shift, value_shift)
        idx_v = (idx + by).clamp(0, rel_k.shape[0] - 1)
    q64, k64, v64 = q.double(), k.double(), v.double()
    rk, rv = rel_k.double()[idx], (rel_k if value_from_k else rel_v).double()[idx_v]
    content = q64 @ k64.transpose(-1, -2)
    relpart = torch.einsum(
        "...jd,ijd->...ij" if key_side else "...id,ijd->...ij", k64 if key_side or key_row else q64, rk
    )
    scale = L**0.5 if scale_by_len else d**scale_power
    if scale_of is not None:  # the logits divided by another quantity of the input
        scale = _SHAW_SCALES[scale_of][1](d, L, rel_k.shape[0], q.shape[-3] if q.dim() > 2 else 1)
    s = (content + relpart) / scale if scale_rel else content / scale + relpart
    mask = relative_positions(L) > (-1 if diag else 0)
    if mask_past:  # the mask on the wrong side: keys before the query (j < i) hidden
        mask = relative_positions(L) < 0
    unmasked = torch.softmax(s, softmax_dim)
    if causal and not mask_after:
        s = s.masked_fill(mask, mask_fill)
    a = torch.softmax(s, softmax_dim)
    if mask_after:
        a = a.masked_fill(mask, 0.0)
    out = a @ v64
    if value and value_centre:  # rel_v[k], the row of distance 0, added to every query unweighted
        out = out + rel_v.double()[kk]
    elif value:
        out = out + torch.einsum("...ij,ijd->...id", unmasked if value_unmasked else a, rv)
    return out.float()


#: Quantities a learner may divide the logits by instead of √d: (words, f(d, L, rows of rel_k, heads)).
_SHAW_SCALES = {
    "sqrt_rows": ("√(2k + 1), the square root of rel_k's row count", lambda d, L, r, h: r**0.5),
    "rows": ("2k + 1, rel_k's row count", lambda d, L, r, h: float(r)),
    "sqrt_k": ("√k", lambda d, L, r, h: ((r - 1) // 2) ** 0.5),
    "sqrt_h": ("√h, the square root of the head count", lambda d, L, r, h: h**0.5),
    "one": ("nothing (no scaling)", lambda d, L, r, h: 1.0),
    "sqrt_2d": ("√(2d)", lambda d, L, r, h: (2 * d) ** 0.5),
}


def _shaw_scale(cases, outs, usable) -> str | bool:
    """A detector: on every wrong input the output is Shaw's attention with the logits divided by another
    quantity of the input than √d (the table's row count, its square root, the head count, ...)."""
    from .framework import _Crash
    from .precision import _CURRENT
    from .running import _equal_output

    t = _CURRENT[0]
    for key, (words, _) in _SHAW_SCALES.items():
        if all(
            not isinstance(outs[i], _Crash)
            and _equal_output(t, cases[i], outs[i], _shaw_attn_variant(*cases[i].args, scale_of=key))
            for i in usable
        ):
            return (
                f"wrong score scale: your logits (q·k + q·R^K) are divided by {words} instead of √d, d the "
                "query's last dimension (the scaled dot product's own scale)"
            )
    return False


#: Shaw's attention computed in bfloat16 or float16 for float32 inputs (autocast, or the inputs cast down): every
#: output value on that dtype's grid, within 16 · 2^−bits of posenc's output scale (see ``_lowp_output``).
_shaw_lowp = _lowp_computed("q, k, v and the tables")


def _shaw_attn_cases():
    out = []
    specs = [((1, 4), 1), ((3, 4), 1), ((5, 8), 2), ((2, 7, 8), 3), ((2, 2, 12, 16), 4), ((5, 8), 2)]
    for i, (shape, kk) in enumerate(specs):
        g = _g(100 + i)
        d = shape[-1]
        q, k, v = (torch.randn(*shape, generator=g) for _ in range(3))
        rk, rv = torch.randn(2 * kk + 1, d, generator=g), torch.randn(2 * kk + 1, d, generator=g)
        label = f"q, k, v {list(shape)}, tables [{2 * kk + 1}, {d}] (k = {kk})"
        again = [c.label for c in out if c.label == label]  # the shapes called again with other tensors
        label = label.replace("q, k, v", "other q, k, v") if again else label
        out.append(Case(label, (q, k, v, rk, rv), tol=2e-5, repeats=again[0] if again else ""))
    # As in the attention task, a finite mask value passes only if the later keys' weight underflows to 0 in
    # float32 even when the visible logits lie far below 0: query i is level_i / 200 · u and each row of rel_k for
    # a distance j − i ≤ 0 is −100 · u (u = [1, 1, 1, 1]), so the visible logits are q·R^K / √4 = −level_i; the
    # keys are 0 and the rows for j − i > 0 are 0, so the later keys' logits are 0. The tolerance allows for
    # float32 logits near −200.
    from .tasks_attention import FINITE_MASK_LEVELS

    L, g = len(FINITE_MASK_LEVELS), _g(120)
    u = torch.ones(4)
    q = torch.tensor(FINITE_MASK_LEVELS)[:, None] / 200 * u
    rk = torch.cat([-100 * u.expand(L, 4), torch.zeros(L - 1, 4)])  # rows k + (j − i) for j − i = −(L−1) .. L−1
    v, rv = torch.randn(L, 4, generator=g), torch.randn(2 * L - 1, 4, generator=g)
    label = f"q [{L}, 4] and rel_k (k = {L - 1}) giving logits far below 0 on the visible keys (−200 … 0), 0 later"
    out.append(Case(label, (q, torch.zeros(L, 4), v, rk, rv), tol=1e-3))
    return out


def _shaw_attn_structure(case, out):
    return _float_result(_shape(out, tuple(case.args[0].shape)))


def _shaw_attn_mistakes():
    return [
        (
            "masked logits set to 0 instead of −inf: softmax gives the keys after the query exp(0 − max) > 0, so "
            "they still get weight; fill with float('-inf') (masked_fill(mask, float('-inf')))",
            _Variant(_shaw_attn_variant, mask_fill=0.0),
        ),
        (
            "clipping distance k taken as rows // 2 − 1 (one too small): the tables have 2k + 1 rows, so "
            "k = (rows − 1) // 2",
            _Variant(_shaw_attn_variant, k_shift=-1),
        ),
        (
            "distances clipped to [−(k − 1), k − 1] (off by one) before the shift by k: clip j − i to [−k, k], so "
            "the index k + clip(j − i, −k, k) reaches the tables' first and last rows",
            _Variant(_shaw_attn_variant, clip_minus1=True),
        ),
        (
            "clipping distance k taken as rows − 1 (the tables' row count minus one, not halved): the tables have "
            "2k + 1 rows, so k = (rows − 1) // 2; with k twice too large, the index k + clip(j − i, −k, k) puts "
            "distance 0 on the last row (2k) instead of the middle one (k), and the nearer distances shift with it",
            _Variant(_shaw_attn_variant, k_rows=True),
        ),
        (
            "relative position taken as query − key (i − j) instead of key − query (j − i)",
            _Variant(_shaw_attn_variant, sign=-1),
        ),
        ("the value-side term Σ_j a_ij R^V_ij is missing", _Variant(_shaw_attn_variant, value=False)),
        (
            "the value-side term weighted by the softmax of the unmasked logits: Σ_j a_ij R^V_ij must use the same "
            "masked weights a as the content term a @ v, so later keys' rows of rel_v add nothing",
            _Variant(_shaw_attn_variant, value_unmasked=True),
        ),
        (
            "relative index taken modulo the tables' row count ((j − i + k) % (2k + 1)) instead of clipped: a "
            "distance beyond k wraps round to a row of the other side; Shaw's index is clip(j − i, −k, k) + k, as "
            "in shaw_relative_index",
            _Variant(_shaw_attn_variant, wrap=True),
        ),
        (
            "the relative logits q·R^K are not divided by √d with the content logits",
            _Variant(_shaw_attn_variant, scale_rel=False),
        ),
        ("no causal mask: queries see later keys", _Variant(_shaw_attn_variant, causal=False)),
        (
            "causal mask applied after the softmax: the weights of later keys are zeroed but the rest no longer sum "
            "to 1; fill the logits with −inf before the softmax",
            _Variant(_shaw_attn_variant, mask_after=True),
        ),
        (
            "two mistakes together: no causal mask (queries see later keys) and the relative logits q·R^K not "
            "divided by √d with the content logits",
            _Variant(_shaw_attn_variant, causal=False, scale_rel=False),
        ),
        ("the causal mask also hides the query's own key (the diagonal)", _Variant(_shaw_attn_variant, diag=True)),
        (
            "softmax over the query axis (dim=-2): each query's weights over the keys must sum to 1, softmax over "
            "the last axis (dim=-1)",
            _Variant(_shaw_attn_variant, softmax_dim=-2),
        ),
        ("logits divided by d instead of √d", _Variant(_shaw_attn_variant, scale_power=1.0)),
        (
            "logits divided by √L, the square root of the sequence length q.shape[-2], instead of √d, that of the "
            "head dimension q.shape[-1]",
            _Variant(_shaw_attn_variant, scale_by_len=True),
        ),
        (
            "rel_k used on the value side too: the weighted sum adds Σ_j a_ij R^V_ij from rel_v, the second table; "
            "rel_k enters the logits only",
            _Variant(_shaw_attn_variant, value_from_k=True),
        ),
        (
            "the relative key term uses the key k_j (k_j·R^K_ij) instead of the query: Shaw's logit is "
            "q_i·(k_j + R^K_ij)",
            _Variant(_shaw_attn_variant, key_side=True),
        ),
        (
            "rel_k and rel_v swapped: rel_k goes into the logits (q·R^K), rel_v into the weighted sum",
            _Variant(_shaw_attn_variant, swap_tables=True),
        ),
        (
            "the value table indexed with |j − i|: R^V uses the same signed, clipped index k + clip(j − i) as R^K",
            _Variant(_shaw_attn_variant, value_abs=True),
        ),
        (
            "mask on the wrong side: keys before the query (j < i) hidden instead of the keys after it (j > i); "
            "fill the logits with −inf where j > i (torch.triu(..., diagonal=1))",
            _Variant(_shaw_attn_variant, mask_past=True),
        ),
        (
            "the relative index not centred: clip(j − i, 0, 2k) leaves out the shift by k, so every causal pair "
            "(j ≤ i) reads row 0 of the tables; Shaw's index is clip(j − i, −k, k) + k, as in shaw_relative_index",
            _Variant(_shaw_attn_variant, uncentred=True),
        ),
        (
            "the relative index not shifted by k: clip(j − i, −k, k) is negative for keys before the query, and a "
            "negative index reads the tables from the end (row −1 is row 2k); Shaw's index is clip(j − i, −k, k) "
            "+ k, as in shaw_relative_index",
            _Variant(_shaw_attn_variant, unshifted=True),
        ),
        (
            "the relative key term uses k where q belongs: k_i·R^K_ij (the key at the query's row i, "
            "einsum('...id,ijd->...ij', k, R)) instead of q_i·R^K_ij; Shaw's logit is q_i·(k_j + R^K_ij)",
            _Variant(_shaw_attn_variant, key_row=True),
        ),
        (
            "the value side adds only the centre row R^V[k] (distance 0) to every output: Shaw's value term is "
            "Σ_j a_ij·R^V_ij, each key's row of rel_v weighted by its attention, "
            "einsum('...ij,ijd->...id', a, rel_v[idx])",
            _Variant(_shaw_attn_variant, value_centre=True),
        ),
        *(
            (
                f"the value side reads rel_v at row {what}, clamped into the table, instead of the key side's row "
                "k + clip(j − i, −k, k): both terms use the same index, so R^V_ij is rel_v[k + clip(j − i, −k, k)] "
                "(in the efficient form, scatter the weights into those same slots)",
                _Variant(_shaw_attn_variant, value_shift=by),
            )
            for by, what in (
                ("-k", "clip(j − i, −k, k) (without + k)"),
                ("+k", "2k + clip(j − i, −k, k) (k added twice)"),
                (-1, "k + clip(j − i, −k, k) − 1 (one row early)"),
                (1, "k + clip(j − i, −k, k) + 1 (one row late)"),
            )
        ),
    ]


def _prop_shaw_causal(case, out, run):
    q, k, v, rk, rv = case.args
    L = q.shape[-2]
    if L < 2:
        return None
    k2, v2 = k.clone(), v.clone()
    k2[..., -1, :] += 5.0
    v2[..., -1, :] -= 5.0
    other = run(q, k2, v2, rk, rv)
    if _close(other[..., :-1, :], out[..., :-1, :], 1e-4):
        return "changing the last key and value changed earlier queries' outputs: the mask lets queries see the future"
    return None


# ---- T5 buckets ------------------------------------------------------------------------------------------
def _t5_variant(
    rel,
    bidirectional=True,
    num_buckets=32,
    max_distance=128,
    *,
    neg=False,
    swap_halves=False,
    causal_abs=False,
    no_half=False,
    no_clamp=False,
    exact_full=False,
    rounding=False,
    exact_before_half=False,
    upper_unhalved=False,
    cap_n=False,
    int_div=False,
    log1p=False,
    log2=False,
    zero_upper=False,
    factor_n=False,
    max_distance_minus1=False,
    max_distance_plus1=False,
    not_negated=False,
    exact_quarter=False,
    halve_nb=False,
    fixed_md=None,
    dist_md1=False,
    no_zero_clamp=False,
    half=None,
    den_md=False,
    log2_doubling=False,
    exact_minus1=False,
    past_offset=False,
    no_exact_add=False,
    future_last=False,
    den_nb=False,
    no_div_me=False,
    linear=False,
    int_log_range=False,
    exact_n=False,
    cap_full=False,
    dist_minus1=False,
):
    nb0, rel0 = num_buckets, rel
    if halve_nb or past_offset:
        num_buckets //= 2
    if fixed_md is not None:
        max_distance = fixed_md
    rel = rel.long()
    full = num_buckets
    exact_from = num_buckets // 2
    if neg:
        rel = -rel
    buckets = torch.zeros_like(rel)
    if bidirectional:
        if not no_half:
            num_buckets //= 2
        side = (rel < 0) if swap_halves else (rel >= 0) if zero_upper else (rel > 0)
        buckets = buckets + side.long() * (full if upper_unhalved else num_buckets)
        dist = rel.abs()
    else:
        dist = rel.abs() if causal_abs else torch.clamp(rel, max=0) if not_negated else -torch.clamp(rel, max=0)
        if no_zero_clamp:  # −Δ itself: negative for keys after the query
            dist = -rel
        if past_offset:  # the encoder's upper-half offset given to the keys before the query
            buckets = buckets + (rel < 0).long() * num_buckets
    if dist_minus1:  # −Δ − 1 clamped at 0: the key just before the query shares bucket 0 with its own key
        dist = (dist - 1).clamp(min=0)
    if dist_md1:  # the distance capped at max_distance − 1 instead of the bucket at num_buckets − 1
        dist = dist.clamp(max=max_distance - 1)
    max_exact = num_buckets if exact_full else num_buckets // 2
    if exact_full:
        max_exact = max(num_buckets // 2 + num_buckets // 4, 1)
    if exact_before_half:
        max_exact = exact_from
    if exact_quarter:
        max_exact = max(num_buckets // 4, 1)
    if exact_minus1:
        max_exact = max(num_buckets // 2 - 1, 1)
    if exact_n:  # every bucket exact: max_exact = num_buckets (the halved count when bidirectional)
        max_exact = num_buckets
    small = dist < max_exact
    if int_div:
        ratio_log = torch.log((dist // max_exact).double().clamp(min=1))
    elif log1p:
        ratio_log = torch.log1p(dist.double()) - math.log(max_exact)
    elif log2 or log2_doubling:
        ratio_log = torch.log2(dist.double().clamp(min=1) / max_exact)
    elif half == "all":  # the distance, the log and the scaling in float16
        ratio_log = torch.log(dist.half().clamp(min=1) / max_exact)
    elif half == "log":  # only the log in float16
        ratio_log = torch.log((dist.double().clamp(min=1) / max_exact).half()).double()
    else:
        ratio_log = torch.log(dist.double().clamp(min=1) / max_exact)
    top = max_distance - 1 if max_distance_minus1 else max_distance + 1 if max_distance_plus1 else max_distance
    log_range = math.log(top if den_md else top / num_buckets if den_nb else top / max_exact)
    val = ratio_log / log_range * (num_buckets if factor_n else num_buckets - max_exact)
    if den_nb:  # in float32, as Hugging Face's dist.float(): a log range near 0 puts values on whole numbers
        val = torch.log(dist.float() / max_exact) / log_range * (num_buckets - max_exact)
    if no_div_me:  # log(dist) for log(dist / max_exact), in float32 as dist.float()
        val = torch.log(dist.float().clamp(min=1)) / log_range * (num_buckets - max_exact)
    if int_log_range:  # log(max_distance // max_exact), in float32 as dist.float(): a range of 0 divides by 0
        val = torch.log(dist.float() / max_exact) / math.log(top // max_exact) * (num_buckets - max_exact)
    if linear:  # linear, not log, spacing between max_exact and max_distance, in float32
        val = (dist - max_exact).float() / (top - max_exact) * (num_buckets - max_exact)
    if log2_doubling:  # one bucket per doubling of the distance, not scaled to the buckets left
        val = ratio_log
    val = val.double()
    large = (0 if no_exact_add else max_exact) + (
        torch.ceil(val) if rounding == "ceil" else torch.round(val) if rounding else val
    ).long()
    if not no_clamp:
        large = large.clamp(max=nb0 - 1 if cap_full else num_buckets if cap_n else num_buckets - 1)
    out = buckets + torch.where(small, dist, large)
    if future_last:  # keys after the query sent to the last bucket instead of 0
        out = out.masked_fill(rel0 > 0, nb0 - 1)
    return out


#: Small configurations, max_distance just past the exact buckets (valid: max_distance > max_exact, as
#: posenc and Hugging Face accept): there max_distance − 1 still falls short of the last bucket, so a distance
#: clamped to max_distance − 1 instead of the bucket clamped to num_buckets − 1 gives a wrong last bucket, which
#: the large configurations hide. Per direction mode, since the bidirectional one halves num_buckets first; none
#: puts max_distance on a mistake's own max_exact (3/4 of the buckets), where its log(max_distance / max_exact) is 0.
_T5_SMALL = {True: [(16, 7), (14, 6), (20, 8)], False: [(8, 7), (5, 4), (12, 8)]}

#: Configurations where a log computed in float16 puts a distance one bucket off while float32 and float64 agree
#: with each other on every Δ in [−300, 300] (decoder 15 / 128: distance 89; decoder 32 / 256: distance 181; the
#: bidirectional ones halve to the same counts), per direction mode.
_T5_FP16 = {True: [(30, 128), (64, 256)], False: [(15, 128), (32, 256)]}


def _t5_cases(bidirectional_options=(True, False)):
    out = []
    r = torch.arange(-300, 301)
    specs = [
        (torch.tensor([0]), 32, 128),
        (relative_positions(4), 32, 128),
        (relative_positions(12), 8, 16),
        (r, 32, 128),
        (r, 16, 64),
        (r, 10, 40),
        (relative_positions(40, 200), 32, 128),
    ]
    near = torch.arange(-24, 25)
    for bi in bidirectional_options:
        wide = [(r, nb, md) for nb, md in _T5_FP16[bi]]
        for rel, nb, md in specs + [(near, nb, md) for nb, md in _T5_SMALL[bi]] + wide:
            shape = "x".join(str(s) for s in rel.shape)
            lo, hi = int(rel.min()), int(rel.max())
            out.append(
                Case(
                    f"relative_position [{shape}] in [{lo}, {hi}], bidirectional={bi}, num_buckets={nb}, "
                    f"max_distance={md}",
                    (rel,),
                    dict(bidirectional=bi, num_buckets=nb, max_distance=md),
                    tol=0,
                )
            )
    return out


def _t5_structure(case, out):
    out = _shape(out, tuple(case.args[0].shape))
    if out.dtype != torch.int64:
        raise _Wrong(f"dtype {out.dtype}; buckets index an embedding table: return int64 (torch.long)")
    return out


def _prop_t5_range(case, out, run):
    nb = case.kwargs.get("num_buckets", 32)
    if out.numel() and (int(out.min()) < 0 or int(out.max()) >= nb):
        return f"buckets outside [0, num_buckets − 1] = [0, {nb - 1}]"
    return None


def _prop_t5_monotone(case, out, run):
    rel = case.args[0].reshape(-1)
    o = out.reshape(-1)
    bi = case.kwargs.get("bidirectional", True)
    order = torch.argsort(rel)
    r, b = rel[order], o[order]
    past = b[r <= 0]
    if past.numel() > 1 and bool((past[1:] > past[:-1]).any()):
        return "buckets of past keys (Δ ≤ 0) must not grow as Δ approaches 0 (farther keys, larger buckets)"
    if bi:
        fut = b[r > 0]
        if fut.numel() > 1 and bool((fut[1:] < fut[:-1]).any()):
            return "buckets of later keys (Δ > 0) must grow with Δ"
    return None


def _t5_log_bucket_mistakes(mk):
    """The mistakes of T5's clamp and log-bucket formula, shared by the bidirectional and the causal task
    (``mk(**flags)`` builds the task's variant)."""
    return [
        (
            "large distances clamped to num_buckets instead of num_buckets − 1: the last bucket index is "
            "num_buckets − 1 (of the halved count, in the bidirectional case)",
            mk(cap_n=True),
        ),
        (
            "integer division dist // max_exact before the log: the log needs the float ratio dist / max_exact",
            mk(int_div=True),
        ),
        (
            "integer division max_distance // max_exact inside the log range: the large buckets divide by "
            "log(max_distance / max_exact), the float ratio (with //, a max_distance below 2·max_exact gives "
            "log(1) = 0, and other ratios round down)",
            mk(int_log_range=True),
        ),
        (
            "log(dist + 1) (log1p) instead of log(dist): the log buckets use log(dist / max_exact)",
            mk(log1p=True),
        ),
        ("log buckets rounded up (ceil) instead of truncated (.long())", mk(rounding="ceil")),
        (
            "log(dist) instead of log(dist / max_exact) in the log buckets: the large buckets are max_exact + "
            "log(dist / max_exact) / log(max_distance / max_exact) · (num_buckets − max_exact), so the first "
            "large bucket (dist = max_exact) is max_exact itself",
            mk(no_div_me=True),
        ),
        (
            "linear buckets past max_exact instead of log-spaced ones: (dist − max_exact)/(max_distance − "
            "max_exact) · (num_buckets − max_exact) spaces them evenly; T5 uses log(dist / max_exact) / "
            "log(max_distance / max_exact), so far distances share wider buckets",
            mk(linear=True),
        ),
        (
            "log buckets scaled by num_buckets instead of (num_buckets − max_exact): the log-spaced buckets are "
            "the num_buckets − max_exact left after the exact ones, so max_exact + log(dist / max_exact) / "
            "log(max_distance / max_exact) · (num_buckets − max_exact)",
            mk(factor_n=True),
        ),
        (
            "log(max_distance − 1) in the denominator instead of log(max_distance): the ratio is "
            "log(dist / max_exact) / log(max_distance / max_exact)",
            mk(max_distance_minus1=True),
        ),
        (
            "log(max_distance + 1) in the denominator instead of log(max_distance): the ratio is "
            "log(dist / max_exact) / log(max_distance / max_exact)",
            mk(max_distance_plus1=True),
        ),
        (
            "log2 in the numerator over a natural log in the denominator: log(dist / max_exact) / log(max_distance / "
            "max_exact) is a ratio of logs of one base (torch.log and math.log)",
            mk(log2=True),
        ),
        (
            "the distance clamped to max_distance − 1 instead of the bucket clamped to num_buckets − 1: distance "
            "max_distance − 1 reaches the last bucket only when max_distance is large (in the decoder's buckets at "
            "num_buckets=8, max_distance=7, distances 7 and beyond land in bucket 6, not 7); compute the log "
            "bucket from the distance itself, then cap the bucket at num_buckets − 1 (of the halved count, in the "
            "bidirectional case)",
            mk(dist_md1=True),
        ),
        (_T5_HALF, mk(half="all")),
        (_T5_HALF, mk(half="log")),
        (
            "log(max_distance) in the denominator instead of log(max_distance / max_exact): the log buckets span "
            "the distances from max_exact to max_distance, so the ratio is log(dist / max_exact) / "
            "log(max_distance / max_exact)",
            mk(den_md=True),
        ),
        (
            "log(max_distance / num_buckets) in the denominator instead of log(max_distance / max_exact): the log "
            "buckets span the distances from max_exact (where the exact ones stop) to max_distance, so the ratio is "
            "log(dist / max_exact) / log(max_distance / max_exact)",
            mk(den_nb=True),
        ),
        (
            "one bucket per doubling, max_exact + trunc(log2(dist / max_exact)): T5 scales the log to the buckets "
            "left, max_exact + trunc(log(dist / max_exact) / log(max_distance / max_exact) · (num_buckets − "
            "max_exact)), so that distance max_distance reaches the last bucket",
            mk(log2_doubling=True),
        ),
        (
            "max_exact = num_buckets // 2 − 1 (one exact bucket too few): T5 makes max_exact = num_buckets // 2 "
            "(of the halved count, in the bidirectional case), so distances 0 .. max_exact − 1 get a bucket each",
            mk(exact_minus1=True),
        ),
        (
            "the log bucket not offset by max_exact: the large branch is max_exact + trunc(log(dist / max_exact) / "
            "log(max_distance / max_exact) · (num_buckets − max_exact)), so the log buckets start after the exact "
            "ones",
            mk(no_exact_add=True),
        ),
    ]


def _t5_mistakes(causal_only=False):
    def mk(**flags):
        return _Variant(_t5_variant, **flags)

    return [
        ("T5 relative position taken as query − key (i − j) instead of key − query (j − i)", mk(neg=True)),
        *_t5_log_bucket_mistakes(mk),
        (
            "bidirectional ignored: the encoder's two-sided buckets returned when bidirectional=False (then only "
            "keys before the query get buckets, −min(Δ, 0), over all num_buckets)",
            lambda rel, bidirectional=True, num_buckets=32, max_distance=128: _t5_variant(
                rel, True, num_buckets, max_distance
            ),
        ),
        (
            "bidirectional halves swapped: keys before the query (Δ < 0) took the upper half of the buckets; "
            "it belongs to keys after the query (Δ > 0)",
            mk(swap_halves=True),
        ),
        (
            "Δ = 0 put in the upper half: (Δ >= 0) instead of (Δ > 0); only keys after the query (Δ > 0) get the "
            "offset num_buckets // 2, the query's own key (Δ = 0) is bucket 0",
            mk(zero_upper=True),
        ),
        ("causal buckets use |Δ|: later keys get buckets too instead of −min(Δ, 0)", mk(causal_abs=True)),
        (_NO_ZERO_CLAMP, mk(no_zero_clamp=True)),
        ("bidirectional: num_buckets not halved before the exact/log split", mk(no_half=True)),
        (
            "keys after the query offset by num_buckets instead of num_buckets // 2: halve num_buckets first, then "
            "the upper half starts at the halved count",
            mk(upper_unhalved=True),
        ),
        (
            "large distances clamped to num_buckets − 1 of the full count: in the bidirectional case halve "
            "num_buckets first, then cap the bucket at num_buckets − 1 of the halved count (the offset num_buckets "
            "// 2 of the keys after the query comes on top)",
            mk(cap_full=True),
        ),
        ("large distances not clamped to num_buckets − 1", mk(no_clamp=True)),
        ("log buckets rounded instead of truncated (.long())", mk(rounding=True)),
        ("max_exact is not num_buckets // 2 (half the buckets exact)", mk(exact_full=True)),
        (
            "max_exact = num_buckets (of the halved count, in the bidirectional case) instead of num_buckets // 2: "
            "half the buckets are exact (distances 0 .. max_exact − 1) and the other half log-spaced; with "
            "max_exact = num_buckets no bucket is left for the log-spaced distances",
            mk(exact_n=True),
        ),
        (
            "max_exact = num_buckets // 2 taken before num_buckets was halved for the two directions: every bucket of "
            "a direction is exact and none is left for the log-spaced distances; halve first, then max_exact = "
            "num_buckets // 2",
            mk(exact_before_half=True),
        ),
        ("max_distance ignored (128 hard-coded)", mk(fixed_md=128)),
        (_QUARTER, mk(exact_quarter=True)),
    ]


_T5_HALF = (
    "log computed in float16: float16 keeps 11 significant bits, so a log bucket whose value lies just below a "
    "whole number can round up to it and the bucket comes out one too high; compute the log in float32, as "
    "Hugging Face does (dist.float())"
)

_NO_ZERO_CLAMP = (
    "the distance back not clamped at 0: −Δ is negative for keys after the query (Δ > 0), so they get negative "
    "buckets; the causal distance is −min(Δ, 0), which is 0 for every key after the query (bucket 0)"
)

_QUARTER = (
    "max_exact = num_buckets // 4 where T5 makes half the buckets exact: max_exact = num_buckets // 2 (of the "
    "halved count, in the bidirectional case), so distances 0 .. max_exact − 1 get a bucket each"
)


def _t5_causal_ref(rel, num_buckets=32, max_distance=128):
    return t5_relative_bucket(rel, bidirectional=False, num_buckets=num_buckets, max_distance=max_distance)


def _t5_causal_cases():
    out = []
    for c in _t5_cases((False,)):
        kw = dict(c.kwargs)
        kw.pop("bidirectional")
        out.append(Case(c.label.replace(", bidirectional=False", ""), c.args, kw, tol=0))
    return out


def _t5_causal_impl(rel, num_buckets=32, max_distance=128, **flags):
    return _t5_variant(rel, False, num_buckets, max_distance, **flags)


def _t5_causal_mistakes():
    def mk(**flags):
        return _Variant(_t5_causal_impl, **flags)

    return [
        ("T5 relative position taken as query − key (i − j) instead of key − query (j − i)", mk(neg=True)),
        ("causal buckets use |Δ|: later keys get buckets too instead of −min(Δ, 0)", mk(causal_abs=True)),
        (_NO_ZERO_CLAMP, mk(no_zero_clamp=True)),
        (
            "distance one too small: max(−Δ − 1, 0) instead of max(−Δ, 0) = −min(Δ, 0), so the key just before the "
            "query shares bucket 0 with the query's own key and every later bucket starts one key late",
            mk(dist_minus1=True),
        ),
        ("large distances not clamped to num_buckets − 1", mk(no_clamp=True)),
        ("log buckets rounded instead of truncated (.long())", mk(rounding=True)),
        ("max_exact is not num_buckets // 2 (half the buckets exact)", mk(exact_full=True)),
        (
            "max_exact = num_buckets (of the halved count, in the bidirectional case) instead of num_buckets // 2: "
            "half the buckets are exact (distances 0 .. max_exact − 1) and the other half log-spaced; with "
            "max_exact = num_buckets no bucket is left for the log-spaced distances",
            mk(exact_n=True),
        ),
        (
            "bidirectional buckets (the encoder's) used in the decoder",
            lambda rel, num_buckets=32, max_distance=128: _t5_variant(rel, True, num_buckets, max_distance),
        ),
        *_t5_log_bucket_mistakes(mk),
        (
            "num_buckets and max_distance swapped in the call (check the order of the arguments)",
            lambda rel, num_buckets=32, max_distance=128: _t5_variant(rel, False, max_distance, num_buckets),
        ),
        (
            "clamp(Δ, max=0) not negated: the distance back is −min(Δ, 0), a number ≥ 0; without the minus the "
            "keys before the query get negative buckets",
            mk(not_negated=True),
        ),
        ("max_distance ignored (128 hard-coded)", mk(fixed_md=128)),
        (
            "num_buckets halved as in the bidirectional branch: the decoder's buckets use all num_buckets for the "
            "keys before the query",
            mk(halve_nb=True),
        ),
        (_QUARTER, mk(exact_quarter=True)),
        (
            "keys after the query (Δ > 0) sent to the last bucket, num_buckets − 1: the decoder's distance "
            "−min(Δ, 0) is 0 for them, so they get bucket 0 (the attention masks them anyway)",
            mk(future_last=True),
        ),
        (
            "the encoder's offset added to the keys before the query: buckets num_buckets // 2 + bucket(−Δ) over "
            "the halved count; the decoder has no offset, and its buckets use all num_buckets for the keys "
            "before the query",
            mk(past_offset=True),
        ),
    ]


def _t5_future(cases, outs, usable) -> str | bool:
    """The decoder's buckets right for every key at or before the query (Δ ≤ 0) and wrong for some key after it."""
    expected, _ = _expected(_CURRENT[0])
    first = None
    for i in usable:
        o, e = outs[i], expected[i]
        if isinstance(o, _Crash) or isinstance(e, _Crash):
            return False
        rel = cases[i].args[0]
        wrong = o != e
        if bool((wrong & (rel <= 0)).any()):
            return False
        if first is None and bool(wrong.any()):
            j = tuple(int(v) for v in torch.nonzero(wrong)[0])
            first = (int(rel[j]), int(o[j]))
    if first is None:
        return False
    r, got = first
    return (
        f"your buckets are right for every key at or before the query (Δ ≤ 0) and wrong after it: bucket {got} "
        f"at relative position Δ = {r} > 0. Keys after the query (Δ > 0) get bucket 0: the decoder's distance is "
        "−min(Δ, 0), which is 0 for them"
    )


def _t5_negated(cases, outs, usable) -> str | bool:
    """On every wrong input, the buckets that are wrong are the right ones negated (negative buckets)."""
    expected, _ = _expected(_CURRENT[0])
    first = None
    for i in usable:
        o, e = outs[i], expected[i]
        if isinstance(o, _Crash) or isinstance(e, _Crash):
            return False
        wrong = o != e
        if not bool(wrong.any()):
            continue
        if not bool((o[wrong] == -e[wrong]).all()):
            return False
        if first is None:
            j = tuple(int(v) for v in torch.nonzero(wrong)[0])
            first = (int(cases[i].args[0][j]), int(o[j]), int(e[j]))
    if first is None:
        return False
    r, got, want = first
    return (
        f"where your buckets are wrong they are the right ones negated (bucket {got} instead of {want} at "
        f"relative position {r}): a distance must be ≥ 0 before it is bucketed, −min(Δ, 0) for keys before the "
        "query (a clamp(Δ, max=0) needs the minus), |Δ| for the encoder"
    )
