"""Round 15 of the Practice checker (issue 39): a finite causal mask passes only where its weight underflows,
and the RoPE exponent's head_dim read from the rows axis is named, not guessed."""

from __future__ import annotations

import math

import torch

import posenc
from posenc.practice import check
from posenc.practice.tasks_attention import FINITE_MASK_LEVELS, FINITE_MASK_VALUES


def _attend(fill, add=False):
    def fn(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
        if cos is not None:
            c, s = cos * attention_scaling, sin * attention_scaling
            h = q.shape[-1] // 2

            def rot(x):
                return torch.cat([-x[..., h:], x[..., :h]], -1)

            q, k = q * c + rot(q) * s, k * c + rot(k) * s
        logits = q @ k.mT / math.sqrt(q.shape[-1]) + (0 if bias is None else bias)
        future = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).triu(1)
        logits = logits + future * fill if add else logits.masked_fill(future, fill)
        return logits.softmax(-1) @ v

    return fn


def test_finite_mask_passes_exactly_when_its_weight_underflows():
    """A fill passes only when e^(fill + the lowest visible level) is 0 in float32, whether it is filled in or
    added; the values that underflow only on ordinary logits (e^(fill) = 0, fill above −level − 104) fail."""
    low = max(FINITE_MASK_LEVELS)
    for fill in (torch.finfo(torch.float32).min, -1e9, -1e4, -(low + 110)):
        assert math.exp(fill + low) < 2.0**-150  # its weight underflows on the sweep's input too
        for add in (False, True):
            assert check("attention", _attend(fill, add)).passed, (fill, add)
    for fill in (-(low - 10), -100.0, -25.0):
        assert math.exp(fill + low) > 2.0**-149  # a weight float32 holds: the statement says it fails
        report = check("attention", _attend(fill, False))
        assert not report.passed, fill
        if fill in FINITE_MASK_VALUES:
            assert f"finite value ({fill:g}) whose weight does not underflow (filled in)" in report.diagnoses[0]


def test_offset_exponent_from_the_rows_axis_is_named():
    def fn(x, offset, base=10000.0):
        L, d = x.shape[-2], x.shape[-1]
        inv = 1.0 / base ** (torch.arange(0, d, 2).float() / L)
        ang = torch.arange(offset, offset + L).float()[:, None] * inv
        c, s = torch.cat([ang, ang], -1).cos(), torch.cat([ang, ang], -1).sin()
        return posenc.apply_rope(x, c.to(x.dtype), s.to(x.dtype))

    said = check("apply_rope_offset", fn).diagnoses[0]
    assert "taken from the wrong axis" in said and "offset ignored" not in said
