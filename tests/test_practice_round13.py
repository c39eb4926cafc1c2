"""posenc.practice, round 13: what a twelfth learner-reviewer found. One wrong function was accepted (cos and sin
transposed when the tables happen to be square: the sweeps had no L == d input) and nine were rejected unnamed
(tensor2tensor's timescales multiplied, Shaw's k = rows − 1, T5's log over max_distance / num_buckets and two T5
mistakes at once, a rotation scaled by a constant, cos replaced by sin in one output, ALiBi's extra slopes
reversed or square-rooted, PI's factor in the exponent). Each test checks what a diagnosis claims against the
function it names, or the sweep that catches it.

The mutants live in ``tests/practice_mutants.py`` (``ROUND13``); ``test_practice.py`` checks that each is rejected
with its diagnosis first and that the correct functions pass.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import practice_mutants as pm  # noqa: E402

import posenc  # noqa: E402
from posenc.practice import check  # noqa: E402

_cases = pm.task_cases


def test_rope_sweeps_have_square_tables():
    """apply_rope_half, apply_rope_interleaved and apply_rope_offset each have an input with L == d, so that a
    function that transposes square tables is rejected; rope_cos_sin already had one (8 positions, head_dim 8)."""
    for name in ("apply_rope_half", "apply_rope_interleaved", "apply_rope_offset"):
        shapes = [tuple(c.args[0].shape[-2:]) for c in _cases(name)]
        assert any(L == d for L, d in shapes), name
    assert any(c.args[0] == c.args[1] for c in _cases("rope_cos_sin") if isinstance(c.args[0], int))


def test_square_transpose_is_wrong_only_on_square_tables():
    """The mutant is right on a non-square input and wrong on the square one: only L == d catches it."""
    for shape in ((3, 6), (4, 4)):
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
        c, s = posenc.rope_cos_sin(torch.arange(shape[0]), shape[1])
        same = torch.allclose(pm.r13_half_square_transposed(x, c, s), posenc.apply_rope(x, c, s), atol=1e-5)
        assert same == (shape[0] != shape[1])
    assert not check("apply_rope_half", pm.r13_half_square_transposed).passed


def test_scaled_claim_holds():
    """ "the right one times c": the output divided by posenc's is that constant wherever posenc's is not 0."""
    said = check("apply_rope_half", pm.r13_half_scaled).diagnoses[0]
    c = float(re.search(r"times ([0-9.]+)", said).group(1))
    x = torch.randn(3, 8, generator=torch.Generator().manual_seed(2))
    cos, sin = posenc.rope_cos_sin(torch.arange(3), 8)
    ratio = pm.r13_half_scaled(x, cos, sin) / posenc.apply_rope(x, cos, sin)
    assert torch.allclose(ratio, torch.full_like(ratio, c), rtol=1e-5)
    assert abs(c - 1 / math.sqrt(2)) < 1e-5


def test_sin_for_cos_claim_holds():
    """The odd coordinate is x_2i·sin + x_2i+1·sin and the even one is right, as said."""
    x = torch.randn(2, 8, generator=torch.Generator().manual_seed(3))
    cos, sin = posenc.rope_cos_sin(torch.arange(2), 8, layout="interleaved")
    got, want = pm.r13_interleaved_sin_odd(x, cos, sin), posenc.apply_rope(x, cos, sin, layout="interleaved")
    assert torch.allclose(got[..., 0::2], want[..., 0::2], atol=1e-6)
    s = sin[..., 0::2]
    assert torch.allclose(got[..., 1::2], x[..., 0::2] * s + x[..., 1::2] * s, atol=1e-6)


def test_slopes_power_claim_holds():
    """ "raised to the power 0.5" from nine heads on: each slope is the square root of get_slopes', and the
    power-of-two ones are 2^(−4(h + 1)/n), as the text says."""
    said = check("alibi_slopes", pm.r13_slopes_sqrt_big).diagnoses[0]
    assert "power 0.5" in said and "n_heads = 12" in said and "n_heads = 1," not in said
    for n in (12, 16, 40):
        assert torch.allclose(pm.r13_slopes_sqrt_big(n).double(), posenc.alibi_slopes(n).double() ** 0.5, rtol=1e-6)
    h = torch.arange(16, dtype=torch.float64)
    assert torch.allclose(pm.r13_slopes_sqrt_big(16).double(), 2 ** (-4 * (h + 1) / 16), rtol=1e-6)


def test_slopes_extra_reversed_claim_holds():
    """The first c slopes are right and the n − c extra ones are the right ones in reverse order."""
    for n in (6, 12, 20):
        c = 2 ** int(math.log2(n))
        got, want = pm.r13_slopes_extra_reversed(n), posenc.alibi_slopes(n)
        assert torch.allclose(got[:c], want[:c]) and torch.allclose(got[c:], want[c:].flip(0))
        assert not torch.allclose(got, want)


def test_pi_factor_in_exponent_claim_holds():
    """base^(−2i·s/d) is rope_inv_freq with base^s: θ_0 stays 1 and the frequencies fall s times faster in log."""
    got = pm.r13_pi_factor_in_exponent(8, 100.0, 2.0).double()
    assert torch.allclose(got, posenc.rope_inv_freq(8, 100.0**2).double(), rtol=1e-6) and float(got[0]) == 1.0


def test_concat_timescales_claim_holds():
    """ "positions multiplied by the timescales": column i is sin(p·base^(i/(d/2−1)))."""
    out = pm.r13_concat_timescales_f64(3, 8, 100.0)
    i = torch.arange(4, dtype=torch.float64)
    want = torch.sin(torch.arange(3, dtype=torch.float64)[:, None] * 100.0 ** (i / 3))
    assert torch.allclose(out[:, :4].double(), want, atol=1e-5)


def test_shaw_k_rows_claim_holds():
    """k = rows − 1: distance 0 reads the last row (2k) of the tables, not the middle one (k)."""
    q = torch.randn(1, 4, generator=torch.Generator().manual_seed(4))
    rk, rv = torch.zeros(3, 4), torch.zeros(3, 4)
    rv[2] = 1.0  # only the last row is nonzero: a single query (distance 0) picks it up
    got = pm.r13_shaw_k_rows(q, q, q, rk, rv)
    assert torch.allclose(got, q + 1.0, atol=1e-6)
    said = check("shaw_attention", pm.r13_shaw_k_rows).diagnoses[0]
    assert said.startswith("clipping distance k taken as rows − 1")


def test_t5_part_claim_holds():
    """ "part of your mistake is a known one": on the bidirectional inputs the mutant is T5 with max_exact taken
    before the halving (every bucket of a direction exact), and the decoder inputs are wrong too."""
    said = check("t5_relative_bucket", pm.r13_t5_exact_first_both).diagnoses[0]
    assert said.startswith("part of your mistake is a known one") and "max_exact = num_buckets // 2 taken" in said
    assert "bidirectional=False" in said.split("second mistake")[1]
    rel = posenc.relative_positions(40)
    got = pm.r13_t5_exact_first_both(rel, True, 16, 64)
    dist = rel.abs()
    want = (rel > 0).long() * 8 + torch.where(dist < 8, dist, torch.full_like(dist, 7))  # max_exact 8 of 8 buckets
    assert torch.equal(got, want)
    assert not torch.equal(
        pm.r13_t5_exact_first_both(rel, False, 16, 64),
        posenc.t5_relative_bucket(rel, bidirectional=False, num_buckets=16, max_distance=64),
    )


def test_t5_log_over_buckets_claim_holds():
    """The log bucket divides by ln(max_distance / num_buckets) (of the halved count) instead of
    ln(max_distance / max_exact)."""
    rel = torch.tensor([[-40]])
    got = int(pm.r13_t5c_log_over_buckets(rel, 16, 64))
    assert got == min(8 + int(math.log(40 / 8) / math.log(64 / 16) * 8), 15)
    assert got != int(posenc.t5_relative_bucket(rel, bidirectional=False, num_buckets=16, max_distance=64))


def test_a_crash_is_not_hidden_behind_a_far_mistake():
    """A loop over positions written for a 3-D x, x[:, l], raises on 2-D inputs but runs on the square one
    (L == d), where its values are garbage. Wrong mostly by raising, it gets the raising call first, not the
    nearest known mistake of its one valued input."""

    def rows_by_column(x, cos, sin):
        out = torch.empty_like(x)
        h = x.shape[-1] // 2
        for p in range(x.shape[-2]):
            xp = x[:, p]
            out[:, p] = xp * cos[p] + torch.cat([-xp[..., h:], xp[..., :h]], -1) * sin[p]
        return out

    said = check("apply_rope_half", rows_by_column).diagnoses
    assert said[0].startswith("your function raised"), said
