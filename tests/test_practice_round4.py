"""posenc.practice, issue 39 round 3: two known mistakes at once, and the kinds a third learner-reviewer left
unnamed (Hugging Face's dynamic NTK base, integer division in a log increment, a wrapped offset, a float32
recurrence, a float16 base, state kept between calls). Every diagnosis must be true of the function it names:
each test checks the claim against the function, not only the words.

The mutants live in ``tests/practice_mutants.py`` (``ROUND4``); ``test_practice.py`` checks that each is
rejected with its diagnosis first.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import practice_mutants as pm  # noqa: E402

import posenc  # noqa: E402
from posenc import practice  # noqa: E402
from posenc.practice import check  # noqa: E402
from posenc.practice.framework import _Variant  # noqa: E402


@pytest.mark.parametrize(
    "task, fn, first, second",
    [
        ("sinusoidal_encoding", pm.r4_sin_cos_first_i_over_d, "sin and cos swapped", "base^(-i/d)"),
        ("sinusoidal_concat", pm.r4_t2t_from_one_base_fixed, "positions start at 1", "base ignored"),
        ("shaw_relative_index", pm.r4_shaw_query_minus_key_unshifted, "query − key (i − j)", "not shifted"),
        ("shaw_relative_index", pm.r4_shaw_query_minus_key_top_off_by_one, "query − key (i − j)", "[−k, k − 1]"),
        ("shaw_attention", pm.r4_shaw_attn_unscaled_no_value, "value-side term", "not divided by √d"),
        ("t5_relative_bucket", pm.r4_t5_round_no_cap, "not clamped", "rounded instead of truncated"),
        ("rope_inv_freq", pm.r4_inv_i_over_d_base_fixed, "base^(-i/d)", "base ignored"),
        ("rope_cos_sin", pm.r4_cs_interleaved_swapped, "cos and sin swapped", "interleaved layout"),
        ("apply_rope_interleaved", pm.r4_il_cat_clockwise, "concatenated", "clockwise"),
        ("alibi_bias", pm.r4_bias_positive_finite, "bias positive", "large finite number"),
        ("alibi_bias", pm.r4_bias_positive_fp16_min, "large finite number", "bias positive"),
        ("pi_inv_freq", pm.r4_pi_base_times_factor_i_over_d, "base multiplied by the factor", "base^(-i/d)"),
        ("ntk_inv_freq", pm.r4_ntk_base_times_factor_i_over_d, "base^(-i/d)", "base multiplied by the factor"),
        ("yarn_inv_freq", pm.r4_yarn_clip_half_unrounded, "not rounded", "d/2 − 1"),
        ("attention", pm.r4_attn_bias_first_cos_only, "bias added before", "cos only"),
    ],
)
def test_two_mistakes_at_once_are_both_named(task, fn, first, second):
    """The first diagnosis names both mistakes, the one nearer the learner's output first."""
    d = check(task, fn).diagnoses[0]
    assert d.startswith("two mistakes together: "), d
    a, b = d.index(first), d.index(second)
    assert a < b, d


def test_the_nearer_mistake_is_named_first():
    """The order is measured: the first-named mistake's output is nearer the learner's than the second's."""
    from posenc.practice.diagnosis import _nearness
    from posenc.practice.running import _call, _equal_output, _expected

    t = practice._tasks()["sinusoidal_encoding"]
    cases = t.cases()
    expected, mistaken = _expected(t)
    outs = [t.structure(c, _call(pm.r4_sin_cos_first_i_over_d, c)) for c in cases]
    valued = [i for i, c in enumerate(cases) if not _equal_output(t, c, outs[i], expected[i])]
    said = check("sinusoidal_encoding", pm.r4_sin_cos_first_i_over_d).diagnoses[0]
    ratios = {
        text: _nearness(t, cases, outs, expected, m, valued)[2]
        for text, m in mistaken
        if text in said and len(text) > 20
    }
    assert len(ratios) == 2, ratios
    first, second = sorted(ratios, key=said.index)
    assert ratios[first] <= ratios[second], ratios


def test_mistakes_that_undo_each_other_are_not_named_together():
    """A decoder taking max(Δ, 0) with right encoder buckets equals "query − key" plus "halves swapped" (the two
    cancel in the encoder): not said as two mistakes, since the learner's encoder buckets are right."""

    def decoder_future(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        if bidirectional:
            return pm.t5_hf_copy(relative_position, True, num_buckets, max_distance)
        return pm.t5_hf_copy(-relative_position, False, num_buckets, max_distance)

    r = check("t5_relative_bucket", decoder_future)
    assert not r.passed and all("two mistakes" not in d and "halves swapped" not in d for d in r.diagnoses), r.diagnoses
    assert "query − key (i − j)" in r.diagnoses[0]


def test_an_output_of_nan_is_said_as_nan_not_matched_to_two_mistakes():
    r = check("attention", pm.r4_attn_nan_mask)
    assert r.diagnoses[0].startswith("your output contains NaN"), r.diagnoses


def test_variants_combine_only_with_their_own_kind_and_other_flags():
    def impl(x, **flags):
        return x

    def other(x, **flags):
        return x

    a, b = _Variant(impl, sign=-1), _Variant(impl, shift=1)
    assert a.combine(b).flags == {"sign": -1, "shift": 1}
    assert a.combine(_Variant(impl, sign=1)) is None  # the same flag twice
    assert a.combine(_Variant(other, shift=1)) is None  # another variant function
    assert a.combine(lambda x: x) is None


# ---- dtypes: the dtype said is the one the function used ---------------------------------------------------
def _detect(task, kind, fn):
    from posenc.practice.framework import _Crash
    from posenc.practice.precision import _CURRENT, _lowp

    t = practice._tasks()[task]
    outs = []
    for c in t.cases():
        try:
            outs.append(t.structure(c, fn(*c.args, **c.kwargs)))
        except Exception as e:  # noqa: BLE001
            outs.append(_Crash(str(e)))
    _CURRENT[0] = t
    return _lowp(kind, "frequencies")[1](t.cases(), outs, list(range(len(outs))))


def _ntk_bf16_base(head_dim, base, factor):  # the new base rounded to bfloat16, the rest in float32
    nb = torch.tensor(base * factor ** (head_dim / (head_dim - 2)), dtype=torch.bfloat16).float()
    return 1.0 / nb ** (torch.arange(0, head_dim, 2).float() / head_dim)


def test_a_float16_base_is_said_float16_and_a_bfloat16_base_bfloat16():
    """Issue 39, round 3: the float16 NTK base (inf at base 5e5) was reported as bfloat16: its error, about
    ln(base)·2^-11, falls in bfloat16's band. The values (on float16's grid) or the rounded base decide now."""
    assert check("ntk_inv_freq", pm.r4_ntk_half).diagnoses[0] == "frequencies computed in float16"
    assert check("ntk_inv_freq", _ntk_bf16_base).diagnoses[0] == "frequencies computed in bfloat16"
    assert _detect("ntk_inv_freq", "float16", pm.r4_ntk_half) and not _detect(
        "ntk_inv_freq", "bfloat16", pm.r4_ntk_half
    )
    assert _detect("ntk_inv_freq", "bfloat16", _ntk_bf16_base) and not _detect(
        "ntk_inv_freq", "float16", _ntk_bf16_base
    )
    for fn in (pm.r4_ntk_float64, pm.ntk_bloc97, pm.ntk_log):
        for kind in ("float16", "bfloat16"):
            assert not _detect("ntk_inv_freq", kind, fn), (fn.__name__, kind)


def test_an_error_of_low_precision_size_is_not_called_a_dtype_without_evidence():
    """A base off by 0.1 % or frequencies off by a random 0.1 % leave errors in float16's band: neither is said to
    be computed in float16; the base is read from the output instead."""

    def base_off(seq_len, d_model, base=10000.0):
        return posenc.sinusoidal_encoding(seq_len, d_model, base * 1.001)

    r = check("sinusoidal_encoding", base_off)
    assert all("computed in" not in d for d in r.diagnoses), r.diagnoses
    m = re.search(r"another base, B = (\S+), where base = (\S+) was passed", r.diagnoses[0])
    assert m and math.isclose(float(m.group(1)), 1.001 * float(m.group(2)), rel_tol=1e-4), r.diagnoses
    r = check("rope_inv_freq", pm.r4_rope_noise)
    assert all("computed in" not in d for d in r.diagnoses), r.diagnoses


# ---- NTK: Hugging Face's dynamic formula and other bases ----------------------------------------------------
def test_hugging_face_dynamic_ntk_is_named_and_is_what_the_message_says():
    """transformers' _compute_dynamic_ntk_parameters (modeling_rope_utils.py): base·(s·ℓ/L − (s − 1))^(d/(d−2)).
    At ℓ = s·L that is base·(s² − s + 1)^(d/(d−2)), as the diagnosis says; at ℓ = L the factor is ignored."""
    d, base, s = 64, 1e4, 4.0
    assert torch.allclose(
        pm.r4_ntk_hf_dynamic(d, base, s), posenc.rope_inv_freq(d, base * (s * s - s + 1) ** (d / (d - 2)))
    )
    assert "_compute_dynamic_ntk_parameters" in check("ntk_inv_freq", pm.r4_ntk_hf_dynamic).diagnoses[0]

    def dynamic_at_max_len(head_dim, base, factor):
        seq_len = max_position_embeddings = 4096
        base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (head_dim / (head_dim - 2))
        return 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))

    assert check("ntk_inv_freq", dynamic_at_max_len).diagnoses[0].startswith("factor ignored")


def test_another_ntk_base_is_read_from_the_output():
    r = check("ntk_inv_freq", pm.r4_ntk_hf_dynamic_twice)  # base·(s + 1)^(d/(d−2))
    m = re.search(r"head_dim=(\d+), base=(\S+), factor=(\S+?):.*x = (\S+), where", r.diagnoses[0])
    assert m, r.diagnoses
    assert math.isclose(float(m.group(4)), float(m.group(3)) + 1, rel_tol=1e-3), r.diagnoses


# ---- the offset task: positions read from the output --------------------------------------------------------
def test_a_wrapped_offset_is_said_with_the_positions_it_used():
    r = check("apply_rope_offset", pm.r4_offset_wrapped)
    m = re.search(r"positions (\d+) \.\. (\d+) at x \[2, 128\] float32, offset=(\d+), base=(\S+):", r.diagnoses[0])
    assert m and "offset mod 2^16 = 65536" in r.diagnoses[0], r.diagnoses
    case = next(c for c in practice._tasks()["apply_rope_offset"].cases() if c.args[1] == int(m.group(3)))
    x, off, base = case.args
    used = posenc.apply_rope(x, *posenc.rope_cos_sin(torch.arange(int(m.group(1)), int(m.group(2)) + 1), 128, base))
    assert torch.allclose(pm.r4_offset_wrapped(x, off, base), used, atol=case.tol, rtol=0)
    assert int(m.group(1)) == off % 2**16


# ---- drift along the positions ----------------------------------------------------------------------------
def test_a_float32_recurrence_is_said_to_drift_and_the_float64_one_passes():
    r = check("sinusoidal_encoding", pm.r4_sin_recurrence_f32)
    m = re.search(r"within 0.0001 of 1 up to position (\d+), off by (\S+) at position (\d+)", r.diagnoses[0])
    assert m, r.diagnoses
    out = pm.r4_sin_recurrence_f32(int(m.group(3)) + 1, 16).double()
    norm = (out[:, 0::2] ** 2 + out[:, 1::2] ** 2 - 1).abs().amax(-1)
    assert float(norm[: int(m.group(1)) + 1].max()) <= 1e-4 < float(norm[-1])
    assert check("sinusoidal_encoding", pm.r4_sin_recurrence_f64).passed


def test_values_that_drift_with_the_position_are_said_to():
    def freq_a_little_off(seq_len, d_model, base=10000.0):
        i = torch.arange(0, d_model, 2, dtype=torch.float64)
        a = torch.arange(seq_len, dtype=torch.float64)[:, None] * (base ** (-i / d_model) * (1 + 3e-6))
        return torch.stack([a.sin(), a.cos()], -1).reshape(seq_len, d_model).float()

    d = check("sinusoidal_encoding", freq_a_little_off).diagnoses[0]
    m = re.search(r"right up to position (\d+), then off by more and more \((\S+) at position (\d+)", d)
    assert m and "a frequency a little off" in d, d
    out = freq_a_little_off(int(m.group(3)) + 1, 16).double()
    err = (out - posenc.sinusoidal_encoding(int(m.group(3)) + 1, 16).double()).abs().amax(-1)
    assert float(err[-1]) > float(err[: int(m.group(1)) + 1].max())


# ---- state kept between calls ---------------------------------------------------------------------------------
def test_state_kept_between_calls_is_named_alone():
    """A cached table divided in place compounds from call to call: said first and alone (what its outputs match
    says nothing then); the same cache copied before dividing passes."""
    for task, fn in [("pi_inv_freq", pm.r4_pi_cached_in_place), ("rope_inv_freq", pm.r4_rope_noise)]:
        r = check(task, fn)
        assert len(r.diagnoses) == 1 and "called again with the same arguments" in r.diagnoses[0], r.diagnoses
    assert check("pi_inv_freq", pm.r4_pi_cached_copy).passed


def test_an_output_that_aliases_a_cache_is_judged_as_returned():
    """The check copies each output as it is returned: a later call changing a cached tensor in place does not
    change an earlier answer, so the input named is the first whose own answer was wrong (factor 2.5, the second
    call with head_dim 8), not the first one that shares the cache (factor 4)."""
    pm._R4_THETA.clear()  # the cache of earlier checks in this process
    r = check("pi_inv_freq", pm.r4_pi_cached_in_place)
    row = next(row for row in r.rows if row.name == "matches posenc")
    assert row.ok is False and row.where == "head_dim=8, base=10000, factor=2.5", row
    assert "fn(head_dim=8, base=10000.0, factor=2.5)" in r.diagnoses[0], r.diagnoses


# ---- smaller kinds ---------------------------------------------------------------------------------------------
def test_negated_buckets_are_said_negated():
    r = check("t5_causal_bucket", pm.r4_t5c_not_negated_exact_only)
    m = re.search(r"bucket (-?\d+) instead of (\d+) at relative position (-?\d+)", r.diagnoses[0])
    assert m and int(m.group(1)) == -int(m.group(2)), r.diagnoses
    rel = torch.tensor([int(m.group(3))])
    assert int(pm.r4_t5c_not_negated_exact_only(rel)) == int(m.group(1))
    assert int(posenc.t5_relative_bucket(rel, bidirectional=False)) == int(m.group(2))


def test_a_floor_divided_log_increment_is_named():
    d = check("sinusoidal_concat", pm.r4_t2t_floor_increment).diagnoses[0]
    assert d.startswith("floor division in the log increment"), d
    # the claim "to 0 once d/2 − 1 > ln(base)": ln(1e4) = 9.2, so at d = 32 every frequency is 1
    assert torch.equal(pm.r4_t2t_floor_increment(3, 32)[:, :16], torch.arange(3.0)[:, None].sin().expand(3, 16))


def test_a_property_that_fails_within_tolerance_is_said_by_the_property():
    """Every output within tolerance of posenc's but a property fails: the property's own words, not "unknown"."""
    r = check("sinusoidal_encoding", pm.r4_sin_recurrence_f32)
    assert not r.diagnoses[0].startswith(practice.UNKNOWN)
    row = next(row for row in r.rows if row.name.startswith("columns (2i, 2i+1)"))
    assert row.ok is False and row.detail in r.diagnoses[0]


# ---- no specific diagnosis without its evidence -------------------------------------------------------------
_SPECIFIC = (
    "two mistakes",
    "computed in",
    "another base",
    "drift",
    "rotates the rows to positions",
    "negated",
    "called again",
)


@pytest.mark.parametrize("task", practice.TASKS)
@pytest.mark.parametrize("change", ["scaled by 1.01", "shifted by 0.05"])
def test_a_plain_perturbation_gets_no_specific_diagnosis(task, change):
    """posenc's own answer scaled or shifted a little (indices one more) matches no mistake: none of the
    diagnoses built on evidence (a dtype, a base, a drift, positions, two mistakes, state) may be said of it."""
    ref = practice.reference(task)

    def perturb(t):
        if not isinstance(t, torch.Tensor):
            return t
        if not t.dtype.is_floating_point:  # indices and buckets: one more
            return t + 1
        return t * 1.01 if change == "scaled by 1.01" else t + 0.05

    def fn(*args, **kwargs):
        out = ref(*args, **kwargs)
        return tuple(perturb(o) for o in out) if isinstance(out, tuple) else perturb(out)

    r = check(task, fn)
    said = " || ".join(r.diagnoses)
    assert not r.passed
    assert not any(s in said for s in _SPECIFIC), said
