"""posenc.practice, issue 39 round 7: the defects a seventh learner-reviewer found. A T5 log in float16 and an ALiBi
table precomputed for 64 positions that the sweeps did not reach, a learned row cast to float32 that a float32 table
hid, state kept from an earlier call of the same shapes (a cos/sin cache without the offset in its key, a key tensor
kept from the first call), and the kinds that were rejected but not named. Every diagnosis must be true of the function
it names: each test checks the claim against the function (or against posenc), not only the words.

The mutants live in ``tests/practice_mutants.py`` (``ROUND7``); ``test_practice.py`` checks that each is rejected
with its diagnosis first and that the correct functions pass.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import practice_mutants as pm  # noqa: E402

import posenc  # noqa: E402
from posenc import practice  # noqa: E402
from posenc.practice import check  # noqa: E402
from posenc.practice.check import reference  # noqa: E402
from posenc.practice.framework import _show_args  # noqa: E402
from posenc.practice.running import _equal_output, _expected  # noqa: E402
from posenc.practice.state import _stale  # noqa: E402
from posenc.practice.tasks_relative import _T5_FP16, _t5_variant  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fresh_caches():
    """The mutants' caches start empty and are left empty: a direct call here must not change a later check."""
    pm._R7_CACHE.clear()
    yield
    pm._R7_CACHE.clear()


# ---- T5 with the log in float16 ---------------------------------------------------------------------------------
R = torch.arange(-300, 301)


@pytest.mark.parametrize("bi", [True, False])
def test_the_float16_configurations_part_float16_from_float32_while_float32_equals_float64(bi):
    """On each configuration added for float16 the float64 log gives posenc's (float32) buckets on every Δ of the
    sweep, and the float16 log (both styles) puts one distance one bucket too high, as the diagnosis says."""
    for nb, md in _T5_FP16[bi]:
        right = posenc.t5_relative_bucket(R, bidirectional=bi, num_buckets=nb, max_distance=md)
        assert torch.equal(_t5_variant(R, bi, nb, md), right)  # the variant computes the log in float64
        half = pm.r7_t5_half(R, bi, nb, md)
        wrong = half != right
        assert bool(wrong.any()), (bi, nb, md)
        assert bool(((half - right)[wrong] == 1).all())
    # the learner's configurations: decoder 32 / 256 at distance 181, 15 / 128 at distance 89
    for nb, md, dist in [(32, 256, 181), (15, 128, 89)]:
        right = posenc.t5_relative_bucket(R, bidirectional=False, num_buckets=nb, max_distance=md)
        wrong = R[pm.r7_t5c_half(R, nb, md) != right]
        assert wrong.tolist() == [-dist]


def test_float16_keeps_11_significant_bits():
    assert torch.finfo(torch.float16).eps == 2.0**-10  # 10 stored bits and the implicit one


@pytest.mark.parametrize("task", ["t5_relative_bucket", "t5_causal_bucket"])
def test_the_float16_log_is_named_and_the_correct_loops_still_pass(task):
    fn = pm.r7_t5_half if task == "t5_relative_bucket" else pm.r7_t5c_half
    assert check(task, fn).diagnoses[0].startswith("log computed in float16")
    for good in pm.CORRECT[task]:
        assert check(task, good).passed


def test_the_t5_log_mistakes_claims():
    """log(max_distance) below: the ratio's denominator; one bucket per doubling: distance max_distance stops short of
    the last bucket; max_exact one short: distance n // 2 − 1 is bucketed by the log formula."""
    nb, md = 32, 128
    me = nb // 2
    dist = torch.arange(me, 300)
    assert torch.equal(
        pm.r7_t5c_exact_minus1(-torch.arange(0, me - 1), nb, md), torch.arange(0, me - 1)
    )  # the exact ones below n // 2 − 1 agree
    assert int(pm.r7_t5c_exact_minus1(torch.tensor([-(me - 1)]), nb, md)) == me - 1  # its first log bucket
    want = me + (torch.log(dist.float() / me) / math.log(md / me) * (nb - me)).long()
    got = me + (torch.log(dist.float() / me) / math.log(md) * (nb - me)).long()
    assert torch.equal(pm.r7_t5_den_md(-dist, False, nb, md), torch.where(got < nb - 1, got, nb - 1))
    assert not torch.equal(got.clamp(max=nb - 1), want.clamp(max=nb - 1))
    doubling = pm.r7_t5_log2_doubling(torch.tensor([-md]), False, nb, md)
    assert int(doubling) == me + int(math.log2(md / me)) < nb - 1


def test_the_encoder_offset_on_past_keys_claim():
    """Keys before the query: num_buckets // 2 + the decoder bucket over the halved count; the others: bucket 0."""
    nb, md = 32, 128
    got = pm.r7_t5c_encoder_offset(R, nb, md)
    past = R < 0
    halved = posenc.t5_relative_bucket(R, bidirectional=False, num_buckets=nb // 2, max_distance=md)
    assert torch.equal(got[past], nb // 2 + halved[past]) and bool((got[~past] == 0).all())
    assert check("t5_causal_bucket", pm.r7_t5c_encoder_offset).diagnoses[0].startswith("the encoder's offset")


# ---- sweeps that reach further ----------------------------------------------------------------------------------
def test_the_alibi_bias_sweep_reaches_past_128_positions():
    cases = practice._tasks()["alibi_bias"].cases()
    assert any(c.args[1] >= 128 for c in cases)
    d = check("alibi_bias", pm.r7_bias_precomputed_64).diagnoses[0]
    assert d.startswith("your function raised RuntimeError") and "q_len=130" in d


def test_a_float64_table_is_tried_and_a_cast_is_named():
    cases = practice._tasks()["learned_lookup"].cases()
    f64 = [c for c in cases if c.args[0].dtype == torch.float64]
    assert f64 and not f64[0].expect_error
    assert reference("learned_lookup")(*f64[0].args).dtype == torch.float64
    assert pm.r7_learned_cast_float32(*f64[0].args).dtype == torch.float32
    d = check("learned_lookup", pm.r7_learned_cast_float32).diagnoses[0]
    assert d.startswith("the rows are returned in float32: return them in the table's dtype (float64)"), d


# ---- the attention mask: what the statement requires ------------------------------------------------------------
def _statement(path, marker):
    nb = json.loads((ROOT / "notebooks" / path).read_text(encoding="utf-8"))
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    return next(line for line in text.splitlines() if marker in line)


def test_a_finite_mask_whose_weight_underflows_passes_as_the_statement_says():
    line = _statement("practice_4_attention.ipynb", "**Causal mask**")
    assert "zero weight" in line and "underflows to 0 in float32" in line and "10^4" not in line
    assert check("attention", pm.r7_attn_mask_1e3).passed
    # exp(−1e3 − m) is 0 in float32 for any row maximum m above −896; the sweep's logits are far above that
    assert float(torch.exp(torch.tensor(-1e3 + 896.0))) == 0.0


def test_the_t5_statement_says_float16_differs():
    assert "every input the check tries; float16 does not" in _statement(
        "practice_1_absolute_relative.ipynb", "float16 does not"
    )


# ---- an argument kept from an earlier call ----------------------------------------------------------------------
STALE = [("apply_rope_offset", pm.r7_offset_cache_without_offset, "offset"), ("attention", pm.r7_attn_stale_k, "k")]


@pytest.mark.parametrize("task, fn, name", STALE, ids=["offset", "k"])
def test_an_argument_kept_from_an_earlier_call_is_named_with_both_calls_and_is_so(task, fn, name):
    """The diagnosis names the argument and both calls; called fresh in the sweep's order, the function returns on
    the later call posenc's answer with that argument taken from the earlier call, where it was right."""
    d = check(task, fn).diagnoses[0]
    assert d.startswith(f"your function uses what it cached from an earlier call with a different {name}: "), d
    t = practice._tasks()[task]
    cases = t.cases()
    k = practice.framework._arg_names(t.signature).index(name)
    later = next(c for c in cases if d.startswith(f"{d.split(': ')[0]}: {_show_args(t.signature, c)} returns"))
    earlier = next(c for c in cases if f"the earlier call {_show_args(t.signature, c)}, where" in d)
    assert cases.index(earlier) < cases.index(later)
    pm._R7_CACHE.clear()
    ref = reference(task)
    assert _equal_output(
        t, earlier, t.structure(earlier, fn(*earlier.args, **earlier.kwargs)), ref(*earlier.args, **earlier.kwargs)
    )
    got = t.structure(later, fn(*later.args, **later.kwargs))
    moved = list(later.args)
    moved[k] = earlier.args[k]
    assert _equal_output(t, later, got, ref(*moved, **later.kwargs))
    assert not _equal_output(t, later, got, ref(*later.args, **later.kwargs))
    assert f"put {name} in the cache's key" in d


@pytest.mark.parametrize("task", ["apply_rope_offset", "attention"])
def test_no_known_mistake_is_taken_for_a_kept_argument(task):
    """A known mistake is a function of its arguments alone: the kept-argument diagnosis never fires on its outputs."""
    t = practice._tasks()[task]
    expected, mistaken = _expected(t)
    for text, m_outs in mistaken:
        outs = [None if isinstance(o, practice.framework._Crash) else o for o in m_outs]
        assert _stale(t, t.cases(), outs, expected) is None, text


def test_offset_ignored_is_not_taken_for_a_cache():
    """Right at offset 0 and wrong at offset 5 with the same shape, like the cache, but wrong too on the first call
    of other shapes: named as the offset ignored."""
    assert check("apply_rope_offset", pm.offset_ignored).diagnoses[0].startswith("offset ignored")


# ---- mistakes that were rejected but not named ------------------------------------------------------------------
def test_sinusoidal_exponent_without_d_claim():
    """base^(−2i): consecutive frequencies fall by base², so the output is sin/cos of p · base^(−2i)."""
    d = check("sinusoidal_encoding", pm.r7_sin_no_d).diagnoses[0]
    assert d.startswith("exponent 2i instead of 2i/d")
    base, n = 500.0, 8
    freq = base ** (-torch.arange(0, n, 2).double())
    assert torch.allclose(freq[1:] / freq[:-1], torch.full((n // 2 - 1,), base**-2.0, dtype=torch.float64), rtol=1e-12)
    got = pm.r7_sin_no_d(5, n, base).double()
    assert torch.allclose(got[:, 0::2], torch.sin(torch.arange(5).double()[:, None] * freq), atol=1e-6)


def test_shaw_index_future_entries_zeroed_claim():
    assert (
        check("shaw_relative_index", pm.r7_shaw_index_future_zero)
        .diagnoses[0]
        .startswith("the entries of keys after the query (j > i) set to 0")
    )
    got, right = pm.r7_shaw_index_future_zero(7, 3), posenc.shaw_relative_index(7, 3)
    future = posenc.relative_positions(7) > 0
    assert bool((got[future] == 0).all()) and torch.equal(got[~future], right[~future])
    assert bool((right[future] > 0).all())


def test_shaw_mask_on_the_wrong_side_claim():
    d = check("shaw_attention", pm.r7_shaw_mask_past).diagnoses[0]
    assert d.startswith("mask on the wrong side: keys before the query (j < i) hidden")
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 6, 8, generator=g) for _ in range(3))
    rk, rv = torch.randn(5, 8, generator=g), torch.randn(5, 8, generator=g)
    k2, v2 = k.clone(), v.clone()
    k2[..., 0, :] += 5.0
    v2[..., 0, :] -= 5.0  # the first key changes no later query's output: it is hidden from them
    a, b = pm.r7_shaw_mask_past(q, k, v, rk, rv), pm.r7_shaw_mask_past(q, k2, v2, rk, rv)
    assert torch.allclose(a[..., 1:, :], b[..., 1:, :], atol=1e-6) and not torch.allclose(a[..., 0, :], b[..., 0, :])


def test_inv_freq_over_two_pi_claim():
    assert check("rope_inv_freq", pm.r7_inv_cycles).diagnoses[0].startswith("frequencies divided by 2π")
    assert torch.allclose(pm.r7_inv_cycles(16) * 2 * math.pi, posenc.rope_inv_freq(16), rtol=1e-6)
    assert float(posenc.rope_inv_freq(16)[0]) == 1.0


def test_rotate_half_from_the_wrong_halves_claim():
    assert (
        check("apply_rope_half", pm.r7_half_wrong_partner)
        .diagnoses[0]
        .startswith("rotate_half built from the wrong halves")
    )
    x = torch.randn(3, 5, 8, generator=torch.Generator().manual_seed(4))
    c, s = posenc.rope_cos_sin(5, 8)
    h = 4
    want = torch.cat([x[..., :h] * (c[..., :h] - s[..., :h]), x[..., h:] * (c[..., h:] + s[..., h:])], -1)
    assert torch.allclose(pm.r7_half_wrong_partner(x, c, s), want, atol=1e-6)  # each half times sin itself


def test_inv_freq_in_x_dtype_claim():
    """Rounding θ_i to bfloat16 or float16 moves it by at most 2^−8 or 2^−11 of itself (round to nearest), in float16
    down to its smallest normal number."""
    assert (
        check("apply_rope_offset", pm.r7_offset_inv_x_dtype)
        .diagnoses[0]
        .startswith("inv_freq cast to x's dtype before the angles")
    )
    for d in (4, 8, 16, 32, 64, 128):
        for base in (1e4, 5e5):
            inv = posenc.rope_inv_freq(d, base).double()
            for dt, bits in ((torch.bfloat16, 8), (torch.float16, 11)):
                normal = inv >= torch.finfo(dt).tiny  # float16's subnormals below 6.1e-5 keep fewer bits
                rel = ((inv.to(dt).double() - inv) / inv).abs()[normal]
                assert float(rel.max()) <= 2.0**-bits, (d, base, dt)
        assert abs(torch.finfo(torch.float16).tiny - 6.1e-5) < 1e-6


def test_slopes_negated_and_extra_first_claims():
    assert check("alibi_slopes", pm.r7_slopes_negated).diagnoses[0].startswith("slopes negated")
    assert bool((posenc.alibi_slopes(6) > 0).all())
    d = check("alibi_slopes", pm.r7_slopes_extra_first).diagnoses[0]
    assert "the extra slopes placed first" in d
    right = posenc.alibi_slopes(6).double()
    got = pm.r7_slopes_extra_first(6).double()
    assert torch.allclose(got, torch.cat([right[4:], right[:4]]), rtol=1e-6)


def test_bias_distance_from_one_claim():
    assert check("alibi_bias", pm.r7_bias_plus_one).diagnoses[0].startswith("distance counted from 1")
    got = pm.r7_bias_plus_one(4, 5)
    assert torch.allclose(got.diagonal(dim1=-2, dim2=-1), -posenc.alibi_slopes(4)[:, None].expand(4, 5))
    assert bool((posenc.alibi_bias(4, 5).diagonal(dim1=-2, dim2=-1) == 0).all())
