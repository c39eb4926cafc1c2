"""The Practice task of one attention layer: ``attention``, causal, taking RoPE (or YaRN) cos/sin with an
attention scaling, or an additive bias (ALiBi, T5).
"""

from __future__ import annotations

import torch

from .. import alibi_bias, relative_positions, rope_cos_sin, rope_inv_freq, t5_relative_bucket
from .framework import Case, _close, _g, _shape
from .tasks_rope import _rot_half
from .tasks_scaling import _yarn_ref


# ---- one attention layer -----------------------------------------------------------------------------------
def _ref_attention(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _attention_variant(q, k, v, cos, sin, bias, attention_scaling)


def _attention_variant(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0, *, rope_v=False, rope_q_only=False,
                       no_mask=False, bias_sign=1, scale_power=0.5, logits_scale="cos_sin", diag_mask=False,
                       clockwise=False):
    d, L = q.shape[-1], q.shape[-2]
    q, k, v = q.double(), k.double(), v.double()
    if cos is not None:
        c, s = cos.double(), sin.double()
        if logits_scale == "cos_sin":
            c, s = c * attention_scaling, s * attention_scaling
        if clockwise:
            s = -s
        q = q * c + _rot_half(q) * s
        if not rope_q_only:
            k = k * c + _rot_half(k) * s
        if rope_v:
            v = v * c + _rot_half(v) * s
    logits = q @ k.transpose(-1, -2) / d**scale_power
    if cos is not None and logits_scale == "once":
        logits = logits * attention_scaling
    if bias is not None:
        logits = logits + bias_sign * bias.double()
    if not no_mask:
        logits = logits.masked_fill(relative_positions(L) > (-1 if diag_mask else 0), float("-inf"))
    return (torch.softmax(logits, -1) @ v).float()


def _attention_cases():
    out = []
    g = _g(500)
    for i, (b, h, L, d, kind) in enumerate([(1, 1, 1, 4, "none"), (1, 2, 3, 4, "rope"), (1, 2, 6, 8, "alibi"),
                                            (2, 3, 5, 8, "t5"), (1, 2, 7, 16, "yarn"), (2, 4, 9, 16, "rope")]):
        q, k, v = (torch.randn(b, h, L, d, generator=g) for _ in range(3))
        kw: dict = {}
        desc = "no position encoding"
        if kind in ("rope", "yarn"):
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
            desc = "a T5 bias"
        out.append(Case(f"q, k, v [{b}, {h}, {L}, {d}], {desc}", (q, k, v), kw, tol=2e-5))
    return out


def _attention_structure(case, out):
    return _shape(out, tuple(case.args[0].shape))


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


def _attention_mistakes():
    def mk(**kw):
        return lambda q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0: _attention_variant(
            q, k, v, cos, sin, bias, attention_scaling, **kw)

    return [
        ("attention factor applied to the logits once instead of to cos and sin (the logits need its square)",
         mk(logits_scale="once")),
        ("attention factor ignored: multiply cos and sin by attention_scaling", mk(logits_scale="none")),
        ("RoPE applied to the values too: only queries and keys are rotated", mk(rope_v=True)),
        ("RoPE applied to the queries only: rotate the keys too", mk(rope_q_only=True)),
        ("no causal mask: queries see later keys", mk(no_mask=True)),
        ("the causal mask also hides the query's own key (the diagonal)", mk(diag_mask=True)),
        ("bias subtracted from the logits instead of added", mk(bias_sign=-1)),
        ("logits divided by d instead of √d", mk(scale_power=1.0)),
        ("your rotation is clockwise (R_{-m})", mk(clockwise=True)),
    ]
