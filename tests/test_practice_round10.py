"""posenc.practice, round 10: the mistakes a tenth learner-reviewer wrote that the checker named wrongly (NTK-aware's
base with the exponent over d − 2; Shaw's index from uint8 positions) or not at all (extra ALiBi slopes from c heads,
one table row for every position, Shaw's value side with only the centre row, the decoder's future keys in the last
bucket, YaRN's range rounded with round() or with π for 2π, PI divided by factor − 1, rotate_half's minus baked into
the sin table), each with its siblings, and the claims the Practice statements make about what the check accepts.
Each test checks what a diagnosis or a statement claims against the function it names (or against posenc).

The mutants live in ``tests/practice_mutants.py`` (``ROUND10``); ``test_practice.py`` checks that each is rejected
with its diagnosis first and that the correct functions pass.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import practice_mutants as pm  # noqa: E402

import posenc  # noqa: E402
from posenc.practice import check  # noqa: E402
from posenc.practice.registry import _tasks  # noqa: E402


def _task(name):
    return _tasks()[name]


def test_ntk_exponent_is_named_not_the_base():
    r = check("ntk_inv_freq", pm.r10_ntk_exponent_d2)
    assert "exponent 2i/(d−2)" in r.diagnoses[0] and "Check what multiplies the base" not in r.diagnoses[0]


def test_ntk_exponent_claim_holds():
    """NTK-aware's base B is right and the slowest pair turns at 1/B: the exponent runs up to 1, not (d − 2)/d."""
    d, b, s = 16, 1e4, 4.0
    big = b * s ** (d / (d - 2))
    got = pm.r10_ntk_exponent_d2(d, b, s).double()
    assert float(got[0]) == 1.0
    assert abs(float(got[-1]) * big - 1) <= 1e-5
    assert abs(float(posenc.rope_inv_freq(d, big)[-1]) / big ** (-(d - 2) / d) - 1) <= 1e-5


def test_uint8_index_is_not_called_abs():
    r = check("shaw_relative_index", pm.r10_shaw_uint8)
    assert "unsigned" in r.diagnoses[0] and "|j − i|" not in r.diagnoses[0]


def test_uint8_index_claim_holds():
    """uint8 j − i wraps to 256 + (j − i) for j < i, so every key before the query gets 2k; the rest is right."""
    L, k = 9, 3
    p = torch.arange(L, dtype=torch.uint8)
    assert int(p[0] - p[1]) == 255
    got, want = pm.r10_shaw_uint8(L, k), posenc.shaw_relative_index(L, k)
    past = torch.arange(L)[None, :] < torch.arange(L)[:, None]
    assert bool((got[past] == 2 * k).all()) and torch.equal(got[~past], want[~past])


def test_second_half_sign_claim_holds():
    """The first half of the output is posenc's, the second half is not."""
    x = torch.randn(5, 8, generator=torch.Generator().manual_seed(0))
    c, s = posenc.rope_cos_sin(torch.arange(5), 8)
    got, want = pm.r10_half_second_sign(x, c, s), posenc.apply_rope(x, c, s)
    assert torch.allclose(got[:, :4], want[:, :4], atol=1e-6) and not torch.allclose(got[:, 4:], want[:, 4:])


def test_future_keys_claim_holds():
    """The detector's case: right at and before the query, wrong after it."""
    rel = torch.arange(-50, 51)
    got = pm.r10_t5_causal_future_one(rel)
    want = posenc.t5_relative_bucket(rel, bidirectional=False)
    assert torch.equal(got[rel <= 0], want[rel <= 0]) and bool((want[rel > 0] == 0).all())
    r = check("t5_causal_bucket", pm.r10_t5_causal_future_one)
    assert "bucket 1 at relative position Δ = 1 > 0" in r.diagnoses[0], r.diagnoses


def test_pi_divisor_read_back():
    """θ / 3 at every factor: the divisor said is 3, and 'factor + 1' only where it fits every input."""
    said = check("pi_inv_freq", pm.r10_pi_by_three).diagnoses[0]
    assert "c = 3 at" in said and "factor + 1" not in said
    assert "(that is factor + 1)" in check("pi_inv_freq", pm.r10_pi_factor_plus_one).diagnoses[0]


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_less_or_equal_at_max_exact_gives_the_same_buckets(bidirectional):
    """The statement: dist < max_exact and dist <= max_exact give the same buckets (the log term is ln 1 = 0)."""
    rel = torch.arange(-2000, 2001)
    lowest = 4 if bidirectional else 2
    for nb in range(lowest, 70, 2 if bidirectional else 1):  # posenc takes even counts for the encoder
        max_exact = (nb // 2 if bidirectional else nb) // 2
        for md in (max_exact + 1, 2 * max_exact + 3, 128, 1000):
            want = posenc.t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=nb, max_distance=md)
            assert torch.equal(pm.r10_t5_le(rel, bidirectional, nb, md), want), (nb, md)


def test_t5_bucket_counts_below_the_range():
    """posenc refuses num_buckets below 4 (encoder) or 2 (decoder), naming the argument; Hugging Face divides by 0."""
    rel = torch.arange(-5, 6)
    for nb, bidirectional in ((2, True), (3, True), (1, False)):
        with pytest.raises(ValueError, match="num_buckets"):
            posenc.t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=nb)
    cases = _task("t5_relative_bucket").cases() + _task("t5_causal_bucket").cases()
    assert all(c.kwargs.get("num_buckets", 32) >= (4 if c.kwargs.get("bidirectional", False) else 2) for c in cases)
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    with pytest.raises(ZeroDivisionError):
        t5.T5Attention._relative_position_bucket(rel, bidirectional=True, num_buckets=2)
    assert torch.equal(
        t5.T5Attention._relative_position_bucket(rel, bidirectional=True, num_buckets=4),
        posenc.t5_relative_bucket(rel, bidirectional=True, num_buckets=4),
    )


def test_offset_either_order_within_the_tolerance():
    """The statement: casting the tables then rotating, and rotating in float32 then casting, both pass, the gap
    between them is within the check's tolerance, and for low-precision inputs that tolerance is 2e-2·(1 + max|x|)."""
    for case in _task("apply_rope_offset").cases():
        x, offset, base = case.args
        L, d = x.shape[-2:]
        c, s = posenc.rope_cos_sin(torch.arange(offset, offset + L), d, base)
        hf = posenc.apply_rope(x, c.to(x.dtype), s.to(x.dtype)).double()
        meta = pm.r10_offset_meta_order(x, offset, base).double()
        assert float((hf - meta).abs().max()) <= case.tol, case.label
        if x.dtype != torch.float32:
            # the tolerance is taken from x before its cast, so max|x| there differs by bfloat16's rounding
            assert abs(case.tol / (2e-2 * (1 + float(x.float().abs().max()))) - 1) <= 2.0**-7
    assert check("apply_rope_offset", pm.r10_offset_meta_order).passed


def test_cos_sin_tolerance_as_stated():
    """The statement: 1e-5 + 4·p·2^-23 at the largest position p, about 0.06 at 131071; float64 angles pass."""
    cases = _task("rope_cos_sin").cases()
    far = max(cases, key=lambda c: c.tol)
    p = 131071
    assert far.tol == 1e-5 + 4 * p * 2.0**-23 and abs(far.tol - 0.06) <= 0.005
    assert check("rope_cos_sin", pm.r10_cs_float64).passed
