"""posenc.practice, round 14: what a thirteenth learner-reviewer found. Three diagnoses misled (YaRN's correction
dimension with log10 on one side, a callable object whose later calls drift, T5's log(dist) without / max_exact,
each answered by a weak "closer to" guess naming another line), one wrong function was accepted (attention_scaling
applied without cos: the sweep passed 1.0 there) and twelve were rejected unnamed. Each test checks what a diagnosis
claims against the function it names, or the rule or sweep that makes it.

The mutants live in ``tests/practice_mutants.py`` (``ROUND14``); ``test_practice.py`` checks that each is rejected
with its diagnosis first and that the correct functions pass.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import practice_mutants as pm  # noqa: E402

import posenc  # noqa: E402
from posenc.practice import check, diagnosis, reference  # noqa: E402
from posenc.practice.framework import Case  # noqa: E402

_cases = pm.task_cases


def test_attention_sweep_passes_a_scaling_without_cos():
    """The statement says attention_scaling has no effect without cos, and the check now passes a value other than
    1.0 on an input without cos, so scaling q and k there is rejected."""
    cases = _cases("attention")
    assert any(c.kwargs.get("cos") is None and c.kwargs.get("attention_scaling", 1.0) != 1.0 for c in cases)
    r = check("attention", pm.r14_att_scaled_without_cos)
    assert not r.passed and "applied without cos" in r.diagnoses[0]


def test_reversed_heads_describe_the_learners_output():
    """'heads in reverse order' says what the learner's head 0 has (the smallest slope) and what it should have."""
    r = check("alibi_slopes", lambda n_heads: posenc.alibi_slopes(n_heads).flip(0))
    text = r.diagnoses[0]
    assert "your head 0 has the smallest slope" in text and "should have the largest" in text
    s = posenc.alibi_slopes(8)
    assert s.flip(0)[0] == s.min() and s[0] == s.max()  # the claim itself


def test_weak_nearest_guess_says_less():
    """A guess only 'closer' (not 'much closer') that explains under three quarters of the wrong entries is not
    named: the diagnosis says less rather than point at a line that may not be the wrong one. The same output with
    three quarters matched is still named."""
    t = SimpleNamespace(compare=None)
    case = Case("x", (), tol=1e-6)
    expected = [torch.zeros(10)]
    mistake = [torch.ones(10)]
    weak = torch.tensor([1.0] * 6 + [2.0] * 4)  # 6 of 10 entries match; distance ratio 2/√22 ≈ 0.43
    strong = torch.tensor([1.0] * 8 + [2.0] * 2)  # 8 of 10 match; ratio √2/√16 ≈ 0.35
    ratio = math.sqrt(4 / 22)
    assert diagnosis.NEAR_DISTANCE < ratio < diagnosis.NEAR_RATIO
    args = ([case], None, expected, [("the mistake", mistake)], [0])
    assert diagnosis._nearest(t, args[0], [weak], *args[2:]) is None
    old = diagnosis.NEAR_WEAK_ENTRIES
    try:
        diagnosis.NEAR_WEAK_ENTRIES = 0.5  # the rule off: the weak guess would be named
        assert "the mistake" in diagnosis._nearest(t, args[0], [weak], *args[2:])
    finally:
        diagnosis.NEAR_WEAK_ENTRIES = old
    assert "the mistake" in diagnosis._nearest(t, args[0], [strong], *args[2:])


def test_state_in_a_callable_object_is_named_not_an_off_by_one():
    """A callable object whose later calls drift (an attribute updated on each call) is said to keep state: a deep
    copy made before the check's first call gets the first wrong input right. The off-by-one its outputs equal is
    not said instead."""
    for fn in (pm.R14OffsetCounter(), pm.R14OffsetTracker().rope):
        r = check("apply_rope_offset", fn)
        assert r.diagnoses[0].startswith("your function keeps state between calls")
        assert not any("off by one" in d for d in r.diagnoses)
    fresh = pm.R14OffsetCounter()
    x = torch.randn(1, 3, 8)
    assert torch.allclose(fresh(x, 4), reference("apply_rope_offset")(x, 4))
    assert not torch.allclose(fresh(x, 4), reference("apply_rope_offset")(x, 4))  # the second call drifts


def test_ignored_arguments_against_the_reference():
    """'X ignored' claims the output is posenc's with X set to one value: check the claim on the sweep."""
    r = check("yarn_inv_freq", pm.r14_yarn_l0_fixed)
    assert "original_max_position_embeddings = 4096" in r.diagnoses[0]
    for c in _cases("yarn_inv_freq"):
        if c.expect_error:
            continue
        args = list(c.args)
        args[3] = 4096
        got, want = pm.r14_yarn_l0_fixed(*c.args, **c.kwargs), reference("yarn_inv_freq")(*args, **c.kwargs)
        assert torch.equal(got[0], want[0])
    r = check("t5_relative_bucket", pm.r14_t5_buckets_fixed)
    assert "num_buckets = 32, max_distance = 128" in r.diagnoses[0]


def test_yarn_log_mix_only_one_side():
    """The wrong logarithm on both sides of the correction dimension cancels (log10 a / log10 b = ln a / ln b):
    only a mix is a mistake, and the check accepts the same base on both sides."""

    def both_log10(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
        d, L0 = head_dim, original_max_position_embeddings

        def cdim(turns):
            return d * math.log10(L0 / (2 * math.pi * turns)) / (2 * math.log10(base))

        lo, hi = max(math.floor(cdim(beta_fast)), 0), min(math.ceil(cdim(beta_slow)), d - 1)
        hi = hi + 0.001 if lo == hi else hi
        theta = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
        ramp = ((torch.arange(d // 2, dtype=torch.float64) - lo) / (hi - lo)).clamp(0, 1)
        att = 0.1 * math.log(factor) + 1 if factor > 1 else 1.0
        return (theta / factor * ramp + theta * (1 - ramp)).float(), att

    assert check("yarn_inv_freq", both_log10).passed
    r = check("yarn_inv_freq", pm.r14_yarn_cdim_log2_bottom)
    assert "(log2) in its denominator" in r.diagnoses[0]


def test_t5_log_dist_and_linear_claims():
    """log(dist) without / max_exact puts dist = max_exact past max_exact (log(max_exact) > 0), and linear buckets
    differ from T5's log ones only past max_exact: both as the diagnoses say."""
    rel = -torch.arange(0, 200)
    got, want = pm.r14_t5c_log_dist(rel), posenc.t5_relative_bucket(rel, bidirectional=False)
    assert int(want[16]) == 16 and int(got[16]) > 16
    lin = pm.r14_t5_linear(rel, bidirectional=False)
    assert torch.equal(lin[:16], want[:16]) and not torch.equal(lin[16:], want[16:])


def test_attention_masks_against_their_claims():
    """The finite mask value the diagnosis names is the one used; the inverted mask attends only to later keys."""
    assert "finite value (-5)" in check("attention", pm.r14_att_mask_minus_5).diagnoses[0]
    assert "finite value (0)" in check("attention", pm.r14_att_mask_zero).diagnoses[0]
    q = torch.randn(1, 1, 4, 8)
    out = pm.r14_att_mask_inverted(q, q, q)
    assert torch.equal(out[0, 0, -1], torch.zeros(8))  # the last query sees no key: NaN, zeroed
