"""posenc.practice, issue 39 round 6: the defects a sixth learner-reviewer found. State kept between calls that
the inputs never exposed (a cache that ignores an argument, a result written into a buffer kept between calls), a
0-d positions tensor, and the kinds that were rejected but not named. Every diagnosis must be true of the function
it names: each test checks the claim against the function (or against posenc), not only the words.

The mutants live in ``tests/practice_mutants.py`` (``ROUND6``); ``test_practice.py`` checks that each is rejected
with its diagnosis first and that the correct functions pass.
"""

from __future__ import annotations

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
from posenc.practice.framework import _show_args, _Variant  # noqa: E402
from posenc.practice.state import _cached  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_caches():
    """The mutants' caches start empty and are left empty: a direct call here must not change a later check."""
    pm._R6_CACHE.clear()
    yield
    pm._R6_CACHE.clear()


def _pairs(task):
    """(earlier input, the input that calls it again) of a task's sweep."""
    cases = practice._tasks()[task].cases()
    by_label = {c.label: i for i, c in enumerate(cases)}
    return [(cases[by_label[c.repeats]], c) for c in cases if c.repeats]


def _equal(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a.shape == b.shape and bool(torch.equal(a, b))


def _same_answer(task, case, got, want):
    """Within the input's tolerance of each other (False for other shapes)."""
    parts = got if isinstance(got, tuple) else (got,)
    if any(g.shape != w.shape for g, w in zip(parts, want if isinstance(want, tuple) else (want,))):
        return False
    return _close(task, case, got, want)


def _close(task, case, got, want):
    t = practice._tasks()[task]
    cmp = t.compare or (lambda c, o, e: practice.framework._close(o, e, c.tol))
    return cmp(case, t.structure(case, got), t.structure(case, want)) is None


# ---- the sweeps call shapes again -------------------------------------------------------------------------
TASKS_WITH_PAIRS = [
    "sinusoidal_encoding",
    "sinusoidal_concat",
    "learned_lookup",
    "shaw_relative_index",
    "shaw_attention",
    "rope_inv_freq",
    "rope_cos_sin",
    "apply_rope_half",
    "apply_rope_interleaved",
    "alibi_bias",
    "pi_inv_freq",
    "ntk_inv_freq",
]


@pytest.mark.parametrize("task", TASKS_WITH_PAIRS)
def test_each_pair_calls_an_earlier_input_again_and_tells_the_answers_apart(task):
    """The earlier input comes first, the two share their shapes, posenc's answers differ, and where a base
    differs the earlier one is not the default 10000: a function with 10000 hard-coded is wrong on the earlier
    input, so it is never taken for a cache."""
    pairs = _pairs(task)
    assert pairs
    cases = practice._tasks()[task].cases()
    for first, again in pairs:
        assert cases.index(first) < cases.index(again)
        ref = reference(task)
        a, b = ref(*first.args, **first.kwargs), ref(*again.args, **again.kwargs)
        assert not _same_answer(task, again, b, a), (first.label, again.label)
        names = practice.framework._arg_names(practice._tasks()[task].signature)
        if "base" in names:
            k = names.index("base")
            if first.args[k] != again.args[k]:
                assert first.args[k] != 10000.0


@pytest.mark.parametrize("task", TASKS_WITH_PAIRS)
def test_no_known_mistake_is_taken_for_a_cache(task):
    """A known mistake is a function of its arguments alone: the cache diagnosis never fires on its outputs."""
    t = practice._tasks()[task]
    cases = t.cases()
    expected, mistaken = practice.running._expected(t)
    for text, m_outs in mistaken:
        returned = {i: o for i, o in enumerate(m_outs) if not isinstance(o, practice.framework._Crash)}
        outs = [None if isinstance(o, practice.framework._Crash) else o for o in m_outs]
        assert _cached(t, cases, returned, outs, expected) is None, text


@pytest.mark.parametrize(
    "task, fn",
    [
        ("sinusoidal_encoding", pm.sin_fixed_base),
        ("rope_cos_sin", pm.cs_ignore_tensor),
        ("rope_cos_sin", pm.cs_fixed_base),
    ],
)
def test_an_argument_ignored_for_good_is_not_called_a_cache(task, fn):
    d = check(task, fn).diagnoses[0]
    assert "cached" not in d and ("base ignored" in d or "positions tensor ignored" in d), d


# ---- a cache that ignores an argument -----------------------------------------------------------------------
CACHES = [(task, fn) for task, items in pm.ROUND6.items() for text, fn in items if "cached" in text]


@pytest.mark.parametrize("task, fn", CACHES, ids=[fn.__name__ for _, fn in CACHES])
def test_a_cache_that_ignores_an_argument_is_named_with_both_calls_and_is_so(task, fn):
    """The diagnosis gives both calls and the argument that differs; called fresh in that order, the function
    returns on the second exactly its answer to the first, which is right there and wrong on the second."""
    d = check(task, fn).diagnoses[0]
    t = practice._tasks()[task]
    matched = [
        (first, again)
        for first, again in _pairs(task)
        if f"{_show_args(t.signature, again)} returns exactly what {_show_args(t.signature, first)} returned" in d
    ]
    assert matched, d
    first, again = matched[0]
    pm._R6_CACHE.clear()
    one = fn(*first.args, **first.kwargs)
    one = tuple(o.clone() for o in one) if isinstance(one, tuple) else one.clone()
    two = fn(*again.args, **again.kwargs)
    ref = reference(task)
    assert _close(task, first, one, ref(*first.args, **first.kwargs))
    assert _equal(two, one)
    assert not _same_answer(task, again, two, ref(*again.args, **again.kwargs))
    names = practice.framework._arg_names(t.signature)
    differ = [n for n, a, b in zip(names, first.args, again.args) if not _equal_value(a, b)]
    listed = differ[0] if len(differ) == 1 else ", ".join(differ[:-1]) + " and " + differ[-1]
    what = f"a different {listed}" if len(differ) == 1 else f"different {listed}"
    assert d.startswith(f"your function returns a result cached from an earlier call with {what}: "), d
    assert f"ignores {listed}: put every argument in the cache's key" in d, d


def _equal_value(a, b):
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and _equal(a, b)
    return a == b


@pytest.mark.parametrize(
    "task, fn", [("sinusoidal_encoding", pm.r6_sin_cache_all_args), ("rope_cos_sin", pm.r6_cs_sliced_cache)]
)
def test_a_cache_keyed_on_every_argument_passes(task, fn):
    """A cache keyed on every argument, and views of one cached table (Hugging Face's cos_cached[:n]), are
    correct: the results stay as returned."""
    assert check(task, fn).passed
    assert check(task, fn).passed  # and again, every answer from the cache


# ---- a buffer kept between calls --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "task, fn", [("apply_rope_half", pm.r6_half_out_buffer), ("apply_rope_interleaved", pm.r6_il_out_buffer)]
)
def test_a_result_a_later_call_writes_into_is_named_and_is_so(task, fn):
    """q_rot = fn(q); k_rot = fn(k) with one shape: the two share memory and q_rot holds k's rotation; the report
    names both calls and fails "matches posenc" at the first, although every answer was right when returned."""
    r = check(task, fn)
    d = r.diagnoses[0]
    first, again = _pairs(task)[0]
    t = practice._tasks()[task]
    assert d.startswith("your function writes into a result it returned earlier"), d
    assert f"the result of {_show_args(t.signature, first)} changed when it was called again as" in d, d
    assert "both calls returned the same memory" in d
    match = r.rows[-1]
    assert match.ok is False and match.where == first.label and "a later call changed it" in match.detail
    assert all(row.ok for row in r.rows[:-1])
    q_rot = fn(*first.args)
    q_copy = q_rot.clone()
    k_rot = fn(*again.args)
    assert q_rot.untyped_storage().data_ptr() == k_rot.untyped_storage().data_ptr()
    assert torch.equal(q_rot, k_rot) and not torch.equal(q_rot, q_copy)
    assert torch.allclose(q_copy, reference(task)(*first.args), atol=first.tol)


def test_the_pair_of_the_buffer_is_one_shape_with_other_values():
    for task in ("apply_rope_half", "apply_rope_interleaved"):
        (first, again), *_ = _pairs(task)
        assert first.args[0].shape == again.args[0].shape and not torch.equal(first.args[0], again.args[0])


# ---- a 0-d positions tensor -------------------------------------------------------------------------------
def test_a_zero_d_position_is_tried_and_returns_d_values():
    """The sweep holds a 0-d positions tensor; posenc's answer (table[positions]) is positions.shape + (d,)
    there as on every input it answers, and [1, d] is named with that rule."""
    cases = practice._tasks()["learned_lookup"].cases()
    zero = [c for c in cases if c.args[1].dim() == 0]
    assert zero
    for c in cases:
        if not c.expect_error:
            table, pos = c.args
            assert tuple(reference("learned_lookup")(table, pos).shape) == tuple(pos.shape) + (table.shape[1],)
    r = check("learned_lookup", pm.r6_learned_atleast_1d)
    assert r.diagnoses[0].startswith("for a 0-d positions tensor (one position) the result has shape [1, 4]")
    assert "positions.shape + (d,)" in r.diagnoses[0]
    assert tuple(pm.r6_learned_atleast_1d(*zero[0].args).shape) == (1, 4)


# ---- mistakes that were rejected but not named -------------------------------------------------------------
def _qkv(seed=0, shape=(2, 7, 8), kk=3):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(*shape, generator=g) for _ in range(3))
    rk, rv = (torch.randn(2 * kk + 1, shape[-1], generator=g) for _ in range(2))
    return q, k, v, rk, rv


def test_shaw_scaled_by_the_length_claim():
    """Logits over √L are posenc's with q scaled by √(d/L) (the value side does not read q)."""
    assert check("shaw_attention", pm.r6_shaw_sqrt_len).diagnoses[0].startswith("logits divided by √L")
    q, k, v, rk, rv = _qkv()
    L, d = q.shape[-2:]
    want = posenc.shaw_attention(q * math.sqrt(d / L), k, v, rk, rv, causal=True)
    assert torch.allclose(pm.r6_shaw_sqrt_len(q, k, v, rk, rv), want, atol=1e-5)


def test_shaw_rel_k_on_the_value_side_claim():
    assert check("shaw_attention", pm.r6_shaw_rel_k_value).diagnoses[0].startswith("rel_k used on the value side")
    q, k, v, rk, rv = _qkv(1)
    want = posenc.shaw_attention(q, k, v, rk, rk, causal=True)
    assert torch.allclose(pm.r6_shaw_rel_k_value(q, k, v, rk, rv), want, atol=1e-5)


def test_t5_distance_not_clamped_at_zero_claim():
    """Keys after the query get −Δ < 0 where posenc's causal bucket is 0; keys at or before it agree."""
    assert check("t5_causal_bucket", pm.r6_t5c_no_zero_clamp).diagnoses[0].startswith("the distance back not clamped")
    rel = torch.arange(-200, 201)
    got, right = pm.r6_t5c_no_zero_clamp(rel), posenc.t5_relative_bucket(rel, bidirectional=False)
    after = rel > 0
    assert torch.equal(got[after], -rel[after]) and bool((right[after] == 0).all())
    assert torch.equal(got[~after], right[~after])


def test_cos_where_sin_belongs_claim():
    assert check("apply_rope_half", pm.r6_half_cos_for_sin).diagnoses[0].startswith("cos where sin belongs")
    x = torch.randn(3, 5, 16, generator=torch.Generator().manual_seed(2))
    c, s = posenc.rope_cos_sin(5, 16)
    assert torch.allclose(pm.r6_half_cos_for_sin(x, c, s), posenc.apply_rope(x, c, c), atol=1e-6)


@pytest.mark.parametrize("fn", [pm.r6_bias_zero_above, pm.r6_bias_tril_mask])
def test_zero_where_minus_inf_belongs_claim(fn):
    """0 exactly where posenc has −inf, which is the bias posenc gives the query's own key (the diagonal)."""
    assert check("alibi_bias", fn).diagnoses[0].startswith("0 where −inf belongs")
    got, right = fn(4, 7), posenc.alibi_bias(4, 7)
    assert torch.equal(got[torch.isneginf(right)], torch.zeros(int(torch.isneginf(right).sum())))
    assert torch.equal(got[torch.isfinite(right)], right[torch.isfinite(right)])
    assert bool((right.diagonal(dim1=-2, dim2=-1) == 0).all())


@pytest.mark.parametrize(
    "task, fn",
    [
        ("alibi_slopes", pm.r6_slopes_from_one_floor),
        ("alibi_slopes", pm.r6_slopes_from_one_first),
        ("alibi_slopes", pm.r6_slopes_reversed_floor),
        ("alibi_bias", pm.r6_bias_two_slope_mistakes),
    ],
)
def test_two_slope_mistakes_are_named_together_and_are_so(task, fn):
    """The two named mistakes, combined, give the function's output on every input; each alone does not, and the
    smallest input (one head) is among the wrong ones where the slopes start at 1."""
    d = check(task, fn).diagnoses[0]
    assert d.startswith("two mistakes together: "), d
    t = practice._tasks()[task]
    named = [(text, m) for text, m in t.mistakes if text in d and isinstance(m, _Variant)]
    pairs = [(a, b) for i, a in enumerate(named) for b in named[i + 1 :] if a[1].combine(b[1]) is not None]
    assert pairs, d
    (ta, a), (tb, b) = pairs[0]
    assert f"{ta}; and {tb}" in d or f"{tb}; and {ta}" in d, d
    both = a.combine(b)
    for case in t.cases():
        assert torch.allclose(fn(*case.args).double(), both(*case.args).double(), atol=case.tol, equal_nan=True)
    for single in (a, b):
        assert any(not torch.allclose(fn(*c.args).double(), single(*c.args).double(), atol=c.tol) for c in t.cases())
    if "start at 1" in d and task == "alibi_slopes":
        one = t.cases()[0]
        assert one.args[0] == 1 and not torch.allclose(fn(*one.args).double(), reference(task)(*one.args).double())
