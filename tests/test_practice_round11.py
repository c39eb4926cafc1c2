"""posenc.practice, round 11: the mistakes an eleventh learner-reviewer wrote that the checker named wrongly (a cos/sin
table cached by head_dim alone, called "base ignored: 10000 hard-coded") or not at all (YaRN cached without its
factor, the ramp without − low, the attention factor inverted, PI's base divided by the factor, tensor2tensor's
exponent with floor division, a half-reversed cos/sin table, the tables' rows reversed, the rotation computed in
bfloat16, every token at the offset, ALiBi's bias −m·j and the slopes of 8 heads), each with its siblings. Each test
checks what a diagnosis claims against the function it names (or against posenc).

The mutants live in ``tests/practice_mutants.py`` (``ROUND11``); ``test_practice.py`` checks that each is rejected
with its diagnosis first and that the correct functions pass.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import practice_mutants as pm  # noqa: E402

import posenc  # noqa: E402
from posenc.practice import check, reference  # noqa: E402
from posenc.practice.state import _fresh_copy  # noqa: E402


def test_stale_base_is_state_not_a_hard_coded_base():
    said = check("apply_rope_offset", pm.r11_offset_cache_by_d).diagnoses
    assert said[0].startswith("your function keeps state between calls") and "hard-coded" not in " ".join(said)
    assert "Called first as" in said[0] and "base=10000.0" in said[0] and "base=500000.0" in said[0]


def test_stale_base_claim_holds():
    """The pair said: called on its own the later input is right; after the earlier one it is not."""
    g = torch.Generator().manual_seed(0)
    early, late = torch.randn(2, 2, 4, 16, generator=g), torch.randn(3, 16, generator=g)
    fresh = _fresh_copy(pm.r11_offset_cache_by_d, empty=True)
    want = posenc.apply_rope(late, *posenc.rope_cos_sin(torch.arange(50, 53), 16, 5e5))
    assert torch.allclose(fresh(late, 50, 5e5), want, atol=1e-5)
    fresh = _fresh_copy(pm.r11_offset_cache_by_d, empty=True)
    fresh(early, 100, 1e4)
    assert not torch.allclose(fresh(late, 50, 5e5), want, atol=1e-3)


def test_yarn_cache_names_the_factor():
    said = check("yarn_inv_freq", pm.r11_yarn_cache_no_factor).diagnoses[0]
    assert said.startswith("your function keeps state between calls") and "differ only in factor" in said


def test_fresh_copy_leaves_the_learners_state_alone():
    cache = pm.r11_offset_cache_by_d.__defaults__[-1]
    check("apply_rope_offset", pm.r11_offset_cache_by_d)
    assert pm.r11_offset_cache_by_d.__defaults__[-1] is cache and len(cache) > 0


def test_pure_function_with_a_dict_default_passes():
    def rot(x, offset, base=10000.0, _names={"layout": "half"}):  # noqa: B006 — read, never written
        c, s = posenc.rope_cos_sin(torch.arange(offset, offset + x.shape[-2]), x.shape[-1], base)
        return posenc.apply_rope(x, c.to(x.dtype), s.to(x.dtype), layout=_names["layout"])

    assert check("apply_rope_offset", rot).passed


def test_bias_key_position_claims_hold():
    """−m·j is +m·|j − i| plus a per-row constant; BLOOM's +m·j is −m·|j − i| plus one; softmax ignores it."""
    n, L = 4, 9
    m = posenc.alibi_slopes(n).double()[:, None, None]
    i, j = torch.arange(L).double()[:, None], torch.arange(L).double()[None, :]
    seen = j <= i
    assert torch.allclose((-m * j - m * (i - j))[:, seen], (-m * i).expand(n, L, L)[:, seen])
    assert torch.allclose((m * j + m * (i - j))[:, seen], (m * i).expand(n, L, L)[:, seen])
    right = posenc.alibi_bias(n, L).double()
    bloom = (m * j).expand(n, L, L).masked_fill(~seen, float("-inf"))
    assert torch.allclose(bloom.softmax(-1), right.softmax(-1), atol=1e-12)
    neg = pm.r11_bias_key_negative(n, L).double()
    assert not torch.allclose(neg.softmax(-1), right.softmax(-1), atol=1e-3)


def test_floor_exponent_claim_holds():
    for d in (4, 8, 64):
        got = pm.r11_concat_floor_exponent(2, d, 1e4)[1, : d // 2].double()  # sin(θ) at position 1
        assert torch.allclose(got[:-1], torch.full((d // 2 - 1,), math.sin(1.0), dtype=torch.float64))
        assert abs(float(got[-1]) - math.sin(1e-4)) <= 1e-9


def test_slopes_of_eight_claim_holds():
    assert float(posenc.alibi_slopes(1)[0]) == 2.0**-8 and float(pm.r11_slopes_of_eight(1)[0]) == 0.5
    for n in (2, 4, 16):
        want = torch.tensor([2.0 ** (-8 * (h + 1) / n) for h in range(n)])
        assert torch.allclose(posenc.alibi_slopes(n).double(), want.double(), rtol=1e-6)


def test_bfloat16_rounding_claim_holds():
    """bfloat16 keeps 8 significant bits: one rounding moves a value by at most 2^−8 of itself."""
    x = torch.randn(10000, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    x = x[x != 0]
    for dt, bits in ((torch.bfloat16, 8), (torch.float16, 11)):
        rel = ((x.to(dt).double() - x) / x).abs()
        assert float(rel.max()) <= 2.0**-bits and float(rel.max()) > 2.0 ** -(bits + 1)


def test_pi_base_over_factor_keeps_theta0():
    got = pm.r11_pi_base_over_factor(16, 1e4, 4.0)
    assert float(got[0]) == 1.0 and float(reference("pi_inv_freq")(16, 1e4, 4.0)[0]) == 0.25


def test_yarn_attention_factor_above_one():
    for s in (1.5, 2.0, 40.0):
        att = reference("yarn_inv_freq")(64, 1e4, s, 4096)[1]
        want = 0.1 * math.log(s) + 1
        assert want > 1 and abs(att - want) <= 1e-12
        assert abs(pm.r11_yarn_att_inverse(64, 1e4, s, 4096)[1] * want - 1) <= 1e-12


def test_d_entries_said_for_d_two():
    said = check("rope_inv_freq", pm.r11_inv_d_entries).diagnoses[0]
    assert "shape [2], expected [1]" in said and "d entries instead of d/2" in said


_OPTIONS = {"clockwise": True}  # a dict of options, read on every call, never written: not state


def _offset_reading_options(x, offset, base=10000.0):
    d, length = x.shape[-1], x.shape[-2]
    pos = torch.arange(offset, offset + length, dtype=torch.float32)
    inv = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
    angle = torch.cat([pos[:, None] * inv, pos[:, None] * inv], -1)
    if _OPTIONS.get("clockwise"):
        angle = -angle
    rot = torch.cat([-x[..., d // 2 :], x[..., : d // 2]], -1)
    return (x.float() * angle.cos() + rot.float() * angle.sin()).to(x.dtype)


def test_a_dict_of_options_is_not_state_kept_between_calls():
    """learner12: a function that reads its settings from a dict was told it "keeps state between calls" (a copy with
    its dicts emptied turned the mistake off). State is claimed only with a pair of calls that shows it."""
    r = check("apply_rope_offset", _offset_reading_options)
    assert not r.passed
    assert "keeps state" not in r.diagnoses[0] and "clockwise" in r.diagnoses[0], r.diagnoses
