"""Round 16 of the Practice checker (issue 39): the new detectors name their family of mistakes and stay quiet on
their near misses (a precision slip plus a wrong formula, a slope wrong but the same in every row, a rotation that
a roll does build, frequencies in low precision but in the right order)."""

from __future__ import annotations

import math
import re

import pytest
import torch

from posenc import alibi_slopes, relative_positions, shaw_attention
from posenc.practice import check


def _shaw_in(dtype, value=True):
    def fn(q, k, v, rel_k, rel_v):
        args = [t.to(dtype) for t in (q, k, v, rel_k, rel_v)]
        if not value:
            args[4] = torch.zeros_like(args[4])  # the value-side term left out
        return shaw_attention(*args, causal=True).float()

    return fn


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_shaw_in_low_precision_is_named_with_its_dtype(dtype):
    kind = str(dtype).replace("torch.", "")
    r = check("shaw_attention", _shaw_in(dtype))
    assert not r.passed
    assert r.diagnoses[0].startswith(f"computed in {kind} for float32 inputs")


def test_a_wrong_formula_in_bfloat16_is_not_called_a_precision_slip():
    """The output sits on bfloat16's grid, but it is off by more than bfloat16's rounding: the bound keeps the
    detector from calling it a precision slip only."""
    r = check("shaw_attention", _shaw_in(torch.bfloat16, value=False))
    assert not r.passed
    assert not any("computed in bfloat16" in d for d in r.diagnoses)


def _attention_in(dtype, causal=True):
    def fn(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
        q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
        if cos is not None:
            c, s = (cos * attention_scaling).to(dtype), (sin * attention_scaling).to(dtype)
            h = q.shape[-1] // 2
            q, k = (t * c + torch.cat([-t[..., h:], t[..., :h]], -1) * s for t in (q, k))
        logits = q @ k.mT / math.sqrt(q.shape[-1]) + (0 if bias is None else bias.to(dtype))
        if causal:
            logits = logits.masked_fill(torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).triu(1), float("-inf"))
        return (logits.softmax(-1) @ v).float()

    return fn


def test_attention_in_bfloat16_is_named_and_a_wrong_one_is_not_called_a_precision_slip():
    r = check("attention", _attention_in(torch.bfloat16))
    assert not r.passed
    assert r.diagnoses[0].startswith("computed in bfloat16 for float32 inputs")
    r = check("attention", _attention_in(torch.bfloat16, causal=False))
    assert not r.passed
    assert not any("computed in bfloat16" in d for d in r.diagnoses)


def _alibi(slope_of_row):
    def fn(n_heads, q_len):
        i = torch.arange(q_len)
        dist = (i[:, None] - i[None, :]).abs().float()
        m = torch.stack([slope_of_row(h, i, n_heads).float() for h in range(n_heads)])[:, :, None]
        return (-m * dist).masked_fill(relative_positions(q_len) > 0, float("-inf"))

    return fn


@pytest.mark.parametrize(
    "slope",
    [
        lambda h, i, n: alibi_slopes(n)[h] / (1 + i),  # divided by the query's row
        lambda h, i, n: alibi_slopes(max(len(i), 1))[i],  # the query row indexes the slopes
        lambda h, i, n: alibi_slopes(n)[h] * (i >= 3),  # a slope only from row 3 on
    ],
)
def test_a_slope_that_changes_with_the_query_row_is_named(slope):
    r = check("alibi_bias", _alibi(slope))
    assert not r.passed
    assert r.diagnoses[0].startswith("the slope changes from one query row to the next")


def test_a_wrong_slope_the_same_in_every_row_is_not_said_to_change_with_the_row():
    r = check("alibi_bias", _alibi(lambda h, i, n: torch.full(i.shape, 2.0 * float(alibi_slopes(n)[h]))))
    assert not r.passed
    assert not any("changes from one query row" in d for d in r.diagnoses)


def _partial(rule):
    def fn(x, cos, sin):
        d = x.shape[-1]
        r = rule(d)
        c, s = torch.cat([cos[..., : r // 2]] * 2, -1), torch.cat([sin[..., : r // 2]] * 2, -1)
        xr = x[..., :r]
        h = r // 2
        return torch.cat([xr * c + torch.cat([-xr[..., h:], xr[..., :h]], -1) * s, x[..., r:]], -1)

    return fn


@pytest.mark.parametrize("rule", [lambda d: 2 * (d // 4), lambda d: 2, lambda d: d - 2])
def test_partial_rotary_is_named_with_the_rotated_width(rule):
    """The diagnosis gives r and d of an input where the function is wrong, and that r is the function's own."""
    r = check("apply_rope_half", _partial(rule))
    assert not r.passed
    said = re.match(r"only the first (\d+) of the (\d+) coordinates rotated", r.diagnoses[0])
    assert said, r.diagnoses[0]
    rotated, d = int(said[1]), int(said[2])
    assert rotated == rule(d) < d


def test_rotate_half_written_with_a_roll_by_half_passes():
    def fn(x, cos, sin):
        h = x.shape[-1] // 2
        return x * cos + torch.roll(x, h, -1) * torch.cat([-torch.ones(h), torch.ones(h)]).to(x.dtype) * sin

    assert check("apply_rope_half", fn).passed


@pytest.mark.parametrize("shift", [1, -1])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_a_roll_by_one_is_named_with_its_shift(layout, shift):
    def fn(x, cos, sin):
        d = x.shape[-1]
        sign = torch.tensor([-1.0, 1.0] * (d // 2)).to(x.dtype)
        return x * cos + torch.roll(x, shift, -1) * sign * sin

    r = check(f"apply_rope_{layout}", fn)
    assert not r.passed
    assert r.diagnoses[0].startswith(f"the rotated partner built with torch.roll(x, {'−1' if shift < 0 else '1'}, -1)")


def _inv(dtype, flip):
    def fn(head_dim, base=10000.0):
        inv = (base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)).to(dtype).float()
        return inv.flip(0) if flip else inv

    return fn


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_low_precision_frequencies_name_the_flip_only_when_there_is_one(dtype):
    kind = str(dtype).replace("torch.", "")
    alone = check("rope_inv_freq", _inv(dtype, flip=False)).diagnoses[0]
    both = check("rope_inv_freq", _inv(dtype, flip=True)).diagnoses[0]
    assert alone == f"frequencies computed in {kind}"
    assert both.startswith("two mistakes together: the frequencies in reverse order") and both.endswith(kind)
    flipped = check("rope_inv_freq", _inv(torch.float32, flip=True)).diagnoses[0]
    assert "computed in" not in flipped


def _t5_floor_span(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    buckets = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        buckets = buckets + (relative_position > 0).long() * num_buckets
    dist = relative_position.abs() if bidirectional else -relative_position.clamp(max=0)
    max_exact = num_buckets // 2
    ratio = math.log(max_distance / max_exact)
    if max_distance // max_exact >= 2:  # the floor division only where it leaves a nonzero log
        ratio = math.log(max_distance // max_exact)
    large = max_exact + (torch.log(dist.float() / max_exact) / ratio * (num_buckets - max_exact)).long()
    return buckets + torch.where(dist < max_exact, dist, large.clamp(max=num_buckets - 1))


def test_t5_floor_division_in_the_log_range_is_named_without_the_zero_range():
    """Named from the ratios it rounds down, not only from the log(1) = 0 it gives below 2·max_exact."""
    r = check("t5_relative_bucket", _t5_floor_span)
    assert not r.passed
    assert any("max_distance // max_exact inside the log range" in d for d in r.diagnoses)
