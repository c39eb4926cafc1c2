"""The Practice task of one attention layer: ``attention``, causal, taking RoPE (or YaRN) cos/sin with an
attention scaling, or an additive bias (ALiBi, T5).
"""

from __future__ import annotations

import torch

from .. import alibi_bias, relative_positions, rope_cos_sin, rope_inv_freq, t5_relative_bucket
from .framework import Case, _close, _float_result, _g, _shape, _Variant
from .precision import _lowp_computed
from .tasks_rope import _rot_half
from .tasks_scaling import _yarn_ref


# ---- one attention layer -----------------------------------------------------------------------------------
def _ref_attention(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _attention_variant(q, k, v, cos, sin, bias, attention_scaling)


def _attention_variant(
    q,
    k,
    v,
    cos=None,
    sin=None,
    bias=None,
    attention_scaling=1.0,
    *,
    rope_v=False,
    rope_q_only=False,
    no_mask=False,
    bias_sign=1,
    scale_power=0.5,
    logits_scale="cos_sin",
    diag_mask=False,
    clockwise=False,
    scale_by="d",
    bias_before_scale=False,
    softmax_dim=-1,
    drop_bias=False,
    bias_t=False,
    every_two=False,
    mask_without_bias_only=False,
    bias_only_without_rope=False,
    weigh_keys=False,
    scale_out=False,
    mask_shift=0,
    mask_past=False,
    scale_cos_only=False,
    softmax_dtype=None,
    interleaved_pairs=False,
    bias_mul=False,
    mask_fill=float("-inf"),
    mask_inverted=None,
    scale_without_cos=False,
    mask_add=False,
    naive_softmax=False,
    scale_without_bias_only=False,
    bias_batch_axis=False,
):
    d, L = q.shape[-1], q.shape[-2]
    if scale_without_bias_only and bias is not None:  # attention_scaling dropped whenever a bias is given
        attention_scaling = 1.0
    if bias_batch_axis and bias is not None and bias.dim() == 3 and bias.shape[0] == q.shape[0]:
        bias = bias[:, None]  # [h, 1, L, L]: head i's bias given to batch entry i (broadcasts only when b == h)
    if scale_without_cos and cos is None:  # q and k multiplied by the factor though there is no cos to scale
        q, k = q * attention_scaling, k * (1.0 if scale_without_cos == "q" else attention_scaling)
    if drop_bias or (bias_only_without_rope and cos is not None):
        bias = None
    out_scale = attention_scaling if (scale_out and cos is not None) else 1.0
    if weigh_keys:
        v = k
    q, k, v = q.double(), k.double(), v.double()
    if cos is not None:
        c, s = cos.double(), sin.double()
        if logits_scale in ("cos_sin", "twice"):
            c, s = c * attention_scaling, s * (1.0 if scale_cos_only else attention_scaling)
        elif logits_scale == "cos_sin_squared":
            c, s = c * attention_scaling**2, s * attention_scaling**2
        if clockwise:
            s = -s
        rot = _every_two if every_two else _rot_half
        if interleaved_pairs:  # pairs (2i, 2i+1) turned by angle i read from the first half of the tables
            h = c.shape[-1] // 2
            c = torch.stack([c[..., :h], c[..., :h]], -1).flatten(-2)
            s = torch.stack([s[..., :h], s[..., :h]], -1).flatten(-2)
            rot = _every_two
        q = q * c + rot(q) * s
        if not rope_q_only:
            k = k * c + rot(k) * s
        if rope_v:
            v = v * c + rot(v) * s
    denom = {"d": d**scale_power, "L": L**0.5, "none": 1.0, "hd": (q.shape[-3] * d) ** 0.5, "h": q.shape[-3] ** 0.5}[
        scale_by
    ]
    logits = q @ k.transpose(-1, -2)
    if cos is not None and logits_scale == "once":  # q·k scaled once (before the bias is added)
        logits = logits * attention_scaling
    if bias is not None and bias_mul:  # logits · exp(bias): the bias multiplies instead of adding
        logits = logits / denom * bias.double().exp()
    elif bias is not None:
        b = bias.double().transpose(-1, -2) if bias_t else bias.double()
        logits = (logits + bias_sign * b) / denom if bias_before_scale else logits / denom + bias_sign * b
    else:
        logits = logits / denom
    if cos is not None and logits_scale in ("once_after_bias", "twice"):  # the logits scaled, the bias with them
        logits = logits * attention_scaling ** (2 if logits_scale == "twice" else 1)
    if not no_mask and not (mask_without_bias_only and bias is not None):
        hidden = relative_positions(L) < 0 if mask_past else relative_positions(L) > (-1 if diag_mask else mask_shift)
        if mask_inverted == "always" or (mask_inverted == "without_bias" and bias is None):
            hidden = ~hidden  # a boolean mask read the other way (SDPA's True means attend)
        logits = logits + hidden * mask_fill if mask_add else logits.masked_fill(hidden, mask_fill)
    if mask_inverted is not None:  # a row with every key hidden: NaN from softmax, or 0 after nan_to_num
        return torch.nan_to_num(torch.softmax(logits, softmax_dim) @ v).float()
    if naive_softmax:  # exp(x) / sum exp(x) in float32, no row maximum subtracted: exp(-200) underflows to 0
        e = logits.float().exp()
        return (e / e.sum(softmax_dim, keepdim=True)).double().matmul(v).float()
    if softmax_dtype is not None:
        return (torch.softmax(logits.to(softmax_dtype), softmax_dim).double() @ v * out_scale).float()
    return (torch.softmax(logits, softmax_dim) @ v * out_scale).float()


def _every_two(x):  # GPT-J's rotate_every_two: pairs (2i, 2i+1)
    return torch.stack((-x[..., 1::2], x[..., 0::2]), -1).flatten(-2)


def _attention_cases():
    out = []
    g = _g(500)
    for b, h, L, d, kind in [
        (1, 1, 1, 4, "none"),
        (1, 2, 3, 4, "rope"),
        (1, 2, 6, 8, "alibi"),
        (2, 3, 5, 8, "t5"),
        (1, 2, 7, 16, "yarn"),
        (2, 4, 9, 16, "rope"),
        (1, 2, 6, 8, "rope+alibi"),
        (2, 2, 5, 8, "yarn+t5"),
    ]:
        gen = _g(501) if kind == "yarn+t5" else g  # its own draws: the other inputs stay as they were
        q, k, v = (torch.randn(b, h, L, d, generator=gen) for _ in range(3))
        kw: dict = {}
        desc = "no position encoding"
        if kind == "rope+alibi":  # both at once: rotate q and k, then add the bias to the scaled logits
            c, s = rope_cos_sin(L, d, inv_freq=rope_inv_freq(d))
            kw.update(cos=c, sin=s, bias=alibi_bias(h, L, causal=False))
            desc = "RoPE cos/sin and an ALiBi bias together"
        elif kind == "yarn+t5":  # attention_scaling with a bias, and batch = heads > 1 (a bias on the wrong axis)
            inv, att = _yarn_ref(d, 1e4, 8.0, 4)
            c, s = rope_cos_sin(L, d, inv_freq=inv)
            bias = torch.randn(h, 32, generator=gen)[:, t5_relative_bucket(relative_positions(L))]
            kw.update(cos=c, sin=s, bias=bias, attention_scaling=att)
            desc = f"YaRN cos/sin (factor 8), attention_scaling={att:.3f}, and a T5 bias"
        elif kind in ("rope", "yarn"):
            if kind == "yarn":
                inv, att = _yarn_ref(d, 1e4, 8.0, 4)
                kw["attention_scaling"] = att
                desc = f"YaRN cos/sin (factor 8), attention_scaling={att:.3f}"
            else:
                inv, desc = rope_inv_freq(d), "RoPE cos/sin"
            c, s = rope_cos_sin(L, d, inv_freq=inv)
            kw.update(cos=c, sin=s)
        elif kind == "alibi":
            kw["bias"], desc = alibi_bias(h, L, causal=False), "ALiBi bias (no mask)"
        elif kind == "t5":
            kw["bias"] = torch.randn(h, 32, generator=g)[:, t5_relative_bucket(relative_positions(L))]
            kw["attention_scaling"] = 1.5  # without cos it must have no effect
            desc = "a T5 bias, attention_scaling=1.5 (no cos: no effect)"
        out.append(Case(f"q, k, v [{b}, {h}, {L}, {d}], {desc}", (q, k, v), kw, tol=2e-5))
    # A finite mask value passes only if the hidden keys' weight underflows to 0 in float32. Here each query's
    # visible keys sit far below 0 (a bias of −LEVELS[i]) and its later keys at 0, so a fill of −100 (or a mask
    # added to the logits) leaves the later keys e^(fill + level) of the weight: far from 0 unless the fill is
    # far below the visible logits. The tolerance allows for float32 logits near −200 (spacing 1.5e-5).
    L = len(FINITE_MASK_LEVELS)
    q, k, v = (torch.randn(1, 1, L, 4, generator=g) for _ in range(3))
    level = torch.tensor(FINITE_MASK_LEVELS)[:, None].expand(L, L)
    bias = torch.where(relative_positions(L) > 0, torch.zeros(()), -level)[None]
    desc = f"a bias far below 0 on the visible keys (−{FINITE_MASK_LEVELS[0]:g} … 0), 0 on the later keys"
    out.append(Case(f"q, k, v [1, 1, {L}, 4], {desc}", (q, k, v), {"bias": bias}, tol=1e-3))
    return out


#: The bias levels of the visible keys of each query in the finite-mask input (see ``_attention_cases``).
FINITE_MASK_LEVELS = (200.0, 160.0, 130.0, 105.0, 85.0, 68.0, 54.0, 42.0, 32.0, 22.0, 12.0, 0.0)
#: The finite mask values ``_finite_mask`` tries.
FINITE_MASK_VALUES: tuple[int, ...] = (0, -1, -2, -3, -4, -5, -6, -8, -10, -12, -15, -16, -20, -25, -30, -32, -40, -50)
FINITE_MASK_VALUES += (-60, -64, -70, -80, -90, -100, -120, -128, -150, -200)


def _attention_structure(case, out):
    return _float_result(_shape(out, tuple(case.args[0].shape)))


def _prop_attention_causal(case, out, run):
    q, k, v = case.args
    if q.shape[-2] < 2:
        return None
    k2, v2 = k.clone(), v.clone()
    k2[..., -1, :] += 3.0
    v2[..., -1, :] += 3.0
    other = run(q, k2, v2, **case.kwargs)
    if _close(other[..., :-1, :], out[..., :-1, :], 1e-4):
        return "changing the last key and value changed earlier queries' outputs: the mask lets queries see the future"
    return None


def _finite_mask_of(variant, forms=(False, True)):
    """A detector for ``variant`` (a causal attention with ``mask_fill`` and, if ``True`` is in ``forms``,
    ``mask_add``): on every wrong input the output is the attention with the causal mask's hidden logits set to
    one finite value (0, −1, ..., −200, by masked_fill or added to the logits) instead of −inf, so later keys
    keep some weight: e^(value − the largest visible logit) does not underflow to 0 in float32."""

    def detect(cases, outs, usable) -> str | bool:
        from .framework import _Crash
        from .precision import _CURRENT
        from .running import _equal_output

        t = _CURRENT[0]
        if any(isinstance(outs[i], _Crash) for i in usable):
            return False
        order = sorted(usable, reverse=True)  # the finite-mask input (the last) first: it tells the values apart
        for value in FINITE_MASK_VALUES:
            for add in forms:
                extra = {"mask_add": True} if add else {}
                if all(
                    _equal_output(
                        t, cases[i], outs[i], variant(*cases[i].args, **cases[i].kwargs, mask_fill=value, **extra)
                    )
                    for i in order
                ):
                    return _finite_mask_words(value, add)
        return False

    return detect


def _finite_mask_words(value, add) -> str:
    how = "added to the logits" if add else "filled in"
    return (
        f"masked logits filled with a finite value ({value:g}) whose weight does not underflow ({how}): "
        f"softmax gives each later key exp({value:g} − the largest visible logit), which is not 0 in "
        "float32 when the visible logits are low (a large negative bias), so the keys after the query "
        "still get weight. Use float('-inf') (masked_fill(mask, float('-inf'))), or a value such as "
        "torch.finfo(torch.float32).min"
    )


_finite_mask = _finite_mask_of(_attention_variant)


_ONCE = (
    "the logits scaled by attention_scaling once instead of by its square: the factor applied to the logits (q·k, "
    "or q·k plus the bias) once, to q's cos and sin only, or √attention_scaling on both cos and sin gives q·k one "
    "factor; multiply cos and sin each by attention_scaling itself, for q and for k, so q·k gets its square"
)


def _attention_mistakes():
    def mk(**kw):
        return _Variant(_attention_variant, **kw)

    return [
        (
            _ONCE,
            mk(logits_scale="once"),
        ),
        (
            _ONCE,
            mk(logits_scale="once_after_bias"),
        ),
        (
            "attention_scaling ignored when a bias is given too: with cos, sin and a bias together, still multiply "
            "cos and sin by attention_scaling, then add the bias to the scaled logits",
            mk(scale_without_bias_only=True),
        ),
        (
            "bias broadcast with its heads on the batch axis (bias[:, None] is [h, 1, L, L]): batch entry i gets "
            "head i's bias for every head, which broadcasts only when batch = heads; the bias [h, L, L] lines up "
            "with the logits [b, h, L, L] as it is (or as bias[None])",
            mk(bias_batch_axis=True),
        ),
        ("attention factor ignored: multiply cos and sin by attention_scaling", mk(logits_scale="none")),
        (
            "attention_scaling applied without cos: it multiplies cos and sin, so with no RoPE tables (cos is None) "
            "it has no effect; yours scales q and k (the logits) anyway",
            mk(scale_without_cos=True),
        ),
        (
            "attention_scaling applied without cos: it multiplies cos and sin, so with no RoPE tables (cos is None) "
            "it has no effect; yours scales q (the logits) anyway",
            mk(scale_without_cos="q"),
        ),
        ("RoPE applied to the values too: only queries and keys are rotated", mk(rope_v=True)),
        ("RoPE applied to the queries only: rotate the keys too", mk(rope_q_only=True)),
        ("no causal mask: queries see later keys", mk(no_mask=True)),
        *(
            (
                "boolean mask read the other way: scaled_dot_product_attention's boolean attn_mask marks the keys "
                "to attend (True = keep), so triu(1) lets each query see only the keys after it; pass "
                f"~mask (tril: True on and below the diagonal) or a float mask with −inf where j > i{where}",
                mk(mask_inverted=how),
            )
            for how, where in (("always", ""), ("without_bias", " (your inputs without a bias)"))
        ),
        (
            "mask on the wrong side: keys before the query (j < i) hidden instead of the keys after it (j > i); "
            "fill the logits with −inf where j > i (torch.triu(..., diagonal=1))",
            mk(mask_past=True),
        ),
        ("the causal mask also hides the query's own key (the diagonal)", mk(diag_mask=True)),
        ("bias subtracted from the logits instead of added", mk(bias_sign=-1)),
        ("logits divided by d instead of √d", mk(scale_power=1.0)),
        ("your rotation is clockwise (R_{-m})", mk(clockwise=True)),
        ("logits divided by √L (the sequence length) instead of √d (the head dimension)", mk(scale_by="L")),
        ("logits not divided by √d", mk(scale_by="none")),
        (
            "bias added before the 1/√d scaling, so it is divided by √d too: scale q·k first, then add the bias",
            mk(bias_before_scale=True),
        ),
        (
            "softmax over the query axis (dim=-2): each query's weights over the keys must sum to 1, softmax over "
            "the last axis (dim=-1)",
            mk(softmax_dim=-2),
        ),
        (
            "bias ignored: scaled_dot_product_attention(q, k, v, is_causal=True) adds no bias of its own; pass "
            "attn_mask = bias plus the causal −inf mask, or add the bias to the logits yourself",
            mk(drop_bias=True),
        ),
        (
            "bias transposed: bias[h, i, j] belongs to query i and key j, logits[..., i, j]; the T5 bias is not "
            "symmetric",
            mk(bias_t=True),
        ),
        (
            "GPT-J's rotate_every_two (pairs 2i, 2i+1) used with half-layout tables: these cos/sin are cat([a, a]), "
            "use rotate_half, which pairs i with i + d/2",
            mk(every_two=True),
        ),
        (
            "causal mask applied only when there is no bias: the bias (ALiBi, T5) carries no −inf here, so mask the "
            "keys after the query in every case",
            mk(mask_without_bias_only=True),
        ),
        (
            "the bias is ignored when cos and sin are given: with both, rotate q and k and also add the bias",
            mk(bias_only_without_rope=True),
        ),
        ("weights applied to the keys (softmax(...) @ k) instead of the values v", mk(weigh_keys=True)),
        (
            "the output multiplied by attention_scaling: the factor multiplies cos and sin (so the logits get its "
            "square), not the result",
            mk(scale_out=True),
        ),
        (
            "cos and sin multiplied by attention_scaling squared: multiply each by attention_scaling itself; the "
            "logits then get its square",
            mk(logits_scale="cos_sin_squared"),
        ),
        (
            "attention_scaling applied twice: cos and sin multiplied by it, and the logits (the bias with them) by "
            "its square as well; multiplying cos and sin is all it takes, the logits q·k then get its square",
            mk(logits_scale="twice"),
        ),
        (
            "logits divided by √(h·d) (the model width) instead of √d (the head dimension)",
            mk(scale_by="hd"),
        ),
        (
            "attention_scaling applied to cos only: multiply both cos and sin by it, so each rotated vector is "
            "scaled as a whole",
            mk(scale_cos_only=True),
        ),
        ("softmax computed in float16: compute it in float32 (or float64)", mk(softmax_dtype=torch.float16)),
        (
            "softmax written as exp(x) / sum exp(x) without subtracting each row's largest logit first: in float32 "
            "exp underflows to 0 below about −87 (and overflows above about 88), so a row of logits far below 0 "
            "gives 0/0 = NaN; subtract the row maximum before exp, as torch.softmax does",
            mk(naive_softmax=True),
        ),
        (
            "interleaved rotation (pairs 2i, 2i+1, angle i from cos[..., i]) with these half-layout tables: rotate "
            "with rotate_half, which pairs coordinate i with i + d/2",
            mk(interleaved_pairs=True),
        ),
        (
            "two mistakes together: the interleaved rotation (pairs 2i, 2i+1) with these half-layout tables (use "
            "rotate_half, pairs i and i + d/2) and attention_scaling applied to cos only (multiply sin by it too)",
            mk(interleaved_pairs=True, scale_cos_only=True),
        ),
        (
            "logits divided by √h with h = q.shape[1], the number of heads in [b, h, L, d], instead of √d: the "
            "head dimension is the last axis, q.shape[-1]",
            mk(scale_by="h"),
        ),
        (
            "bias multiplied into the logits (logits · exp(bias)) instead of added: softmax(q·k/√d + bias) is how "
            "the bias enters; it multiplies each key's weight exp(q·k/√d) by exp(bias), not the logit itself",
            mk(bias_mul=True),
        ),
        (
            "causal mask off by one: each query also sees the next key (triu(2) or tril(1) instead of triu(1), "
            "j > i + 1 masked instead of j > i)",
            mk(mask_shift=1),
        ),
    ]


#: The whole attention computed in bfloat16 or float16 for float32 inputs: every output value on that dtype's grid,
#: within 16 · 2^−bits of posenc's output scale (see ``_lowp_output``).
_attention_lowp = _lowp_computed("q, k, v (and cos, sin, bias when given)")
