"""posenc.practice, round 8: the mistakes an eighth learner-reviewer wrote that the checker rejected without naming
them, and the same mistakes in the neighbouring tasks (reverse-order frequencies, the exponent's sign lost, the
precedence slip base ** -(2i) / d, frequencies in float16, cos/sin cached by shape). Each test checks what a
diagnosis claims against the function it names (or against posenc), not only the words.

The mutants live in ``tests/practice_mutants.py`` (``ROUND8``); ``test_practice.py`` checks that each is rejected
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
from posenc.practice.check import reference  # noqa: E402
from posenc.practice.registry import _task_list  # noqa: E402

G = torch.Generator().manual_seed(8)


@pytest.fixture(autouse=True)
def _fresh_caches():
    """The caching mutants start empty and are left empty: a direct call here must not change a later check."""
    pm._R8_CACHE.clear()
    yield
    pm._R8_CACHE.clear()


# ---- sinusoidal ---------------------------------------------------------------------------------------------------
def test_stacking_on_the_first_axis_puts_every_sin_row_before_every_cos_row():
    L, d = 6, 8
    out = pm.r8_sin_stack_first_axis(L, d)
    right = posenc.sinusoidal_encoding(L, d)
    sin, cos = right[:, 0::2], right[:, 1::2]
    flat = out.flatten()
    # float32 angles of at most 5 rad: a few ulps (2^-21) apart from posenc's way of computing them
    assert torch.allclose(flat[: L * d // 2], sin.flatten(), atol=1e-5)
    assert torch.allclose(flat[L * d // 2 :], cos.flatten(), atol=1e-5)
    assert not torch.allclose(out[1], right[1], atol=1e-2)  # row 1 holds values of other positions


@pytest.mark.parametrize("fn", [pm.r8_sin_reversed, pm.r8_concat_reversed])
def test_reversed_frequencies_are_posencs_flipped(fn):
    """Row 1 holds sin and cos of the frequencies themselves: read them back, they are posenc's in reverse order."""
    d = 8
    concat = fn is pm.r8_concat_reversed
    row = reference("sinusoidal_concat" if concat else "sinusoidal_encoding")(2, d)[1]
    got = fn(2, d)[1].double()
    split = (lambda r: (r[: d // 2], r[d // 2 :])) if concat else (lambda r: (r[0::2], r[1::2]))
    freq = torch.atan2(*split(got))
    want = torch.atan2(*split(row.double()))
    assert torch.allclose(freq, want.flip(0), atol=1e-6)
    assert not torch.allclose(freq, want, atol=1e-3)


# ---- Shaw ---------------------------------------------------------------------------------------------------------
def _shaw_inputs(L=5, d=8, k=2):
    q, kk, v = (torch.randn(L, d, generator=G) for _ in range(3))
    return q, kk, v, torch.randn(2 * k + 1, d, generator=G), torch.randn(2 * k + 1, d, generator=G)


def test_the_uncentred_index_reads_row_0_for_every_causal_pair():
    """clip(j − i, 0, 2k) is 0 wherever j ≤ i: the rows of the tables past row 0 never reach the output."""
    q, k, v, rk, rv = _shaw_inputs()
    p = torch.arange(5)
    idx = (p[None, :] - p[:, None]).clamp(0, 4)
    assert bool((idx[torch.ones(5, 5, dtype=torch.bool).tril()] == 0).all())
    rk2, rv2 = rk.clone(), rv.clone()
    rk2[1:] += 3.0
    rv2[1:] -= 3.0
    assert torch.allclose(pm.r8_shaw_uncentred(q, k, v, rk, rv), pm.r8_shaw_uncentred(q, k, v, rk2, rv2), atol=1e-6)
    assert not torch.allclose(posenc.shaw_attention(q, k, v, rk, rv), posenc.shaw_attention(q, k, v, rk2, rv2))


def test_the_key_row_mistake_is_right_exactly_when_k_is_q():
    """k_i·R_ij instead of q_i·R_ij: with k equal to q the two agree, with another k they do not."""
    q, k, v, rk, rv = _shaw_inputs()
    assert torch.allclose(pm.r8_shaw_key_row(q, q, v, rk, rv), posenc.shaw_attention(q, q, v, rk, rv), atol=1e-5)
    assert not torch.allclose(pm.r8_shaw_key_row(q, k, v, rk, rv), posenc.shaw_attention(q, k, v, rk, rv), atol=1e-3)


# ---- frequencies --------------------------------------------------------------------------------------------------
def test_precedence_binds_the_power_before_the_division():
    assert 10.0**-2 / 4 == (10.0**-2) / 4 != 10.0 ** (-2 / 4)
    d, b = 8, 500.0
    got = pm.r8_inv_precedence(d, b).double()
    want = b ** -torch.arange(0, d, 2, dtype=torch.float64) / d
    assert torch.allclose(got, want, rtol=1e-6, atol=0)  # float32 rounding of each value


@pytest.mark.parametrize("task", ["pi_inv_freq", "ntk_inv_freq"])
def test_the_scaled_mistakes_are_what_their_diagnoses_say(task):
    d, b, s = 16, 1e4, 4.0
    B = b if task == "pi_inv_freq" else b * s ** (d / (d - 2))
    div = s if task == "pi_inv_freq" else 1.0
    e = torch.arange(0, d, 2, dtype=torch.float64) / d
    right = reference(task)(d, b, s).double()
    name = "pi" if task == "pi_inv_freq" else "ntk"
    up = getattr(pm, f"r8_{name}_not_negated")(d, b, s).double()
    assert torch.allclose(up, B**e / div, rtol=1e-5) and bool((up[1:] > up[:-1]).all())
    assert torch.allclose(getattr(pm, f"r8_{name}_reversed")(d, b, s).double(), right.flip(0), rtol=1e-5)
    prec = getattr(pm, f"r8_{name}_precedence")(d, b, s).double()
    assert torch.allclose(prec, B ** -(2 * torch.arange(d // 2, dtype=torch.float64)) / d / div, rtol=1e-6)


YARN = (64, 1e4, 8.0, 4096)


@pytest.mark.parametrize(
    ("fn", "dt", "bits"), [(pm.r8_yarn_half, torch.float16, 11), (pm.r8_yarn_bf16, torch.bfloat16, 8)]
)
def test_yarn_in_low_precision_is_on_the_grid_within_its_rounding_and_fails_no_ramp_property(fn, dt, bits):
    right, att = posenc.rope_scaled_inv_freq(YARN[0], YARN[1], rope_type="yarn", factor=YARN[2],
                                             original_max_position_embeddings=YARN[3])  # fmt: skip
    got, got_att = fn(*YARN)
    assert torch.equal(got, got.to(dt).float()) and abs(got_att - att) <= 1e-6
    err, ref = (got.double() - right.double()).abs(), right.double()
    normal = ref >= torch.finfo(dt).tiny  # float16's subnormals (below 2^-14) have a fixed spacing 2^-24 instead
    rel = (err / ref)[normal].max()
    assert 0 < float(rel) <= 2.0**-bits  # round to nearest: at most half a unit in the last of `bits` places
    assert bool((err[~normal] <= 2.0**-25).all())
    r = check("yarn_inv_freq", fn)
    task = next(t for t in _task_list() if t.name == "yarn_inv_freq")
    names = [name for name, _ in task.properties]
    props = [row for row in r.rows if row.name in names]
    assert len(props) == len(names) == 2
    assert props and all(row.ok for row in props), [(row.name, row.ok) for row in r.rows]
    assert not r.passed and r.diagnoses[0].startswith("frequencies computed in")


def test_the_yarn_ramp_mistakes_still_fail_a_ramp_property():
    """The wider property tolerance (5e-3, above bfloat16's 2^-8) still sees a ramp that interpolates the wrong end."""
    r = check("yarn_inv_freq", lambda *a: pm._r8_yarn(*a, after=lambda t: t.flip(0)))
    names = [row.name for row in r.rows if row.ok is False]
    assert any("interpolated" in n or "between" in n for n in names), names


# ---- RoPE application ---------------------------------------------------------------------------------------------
def _rope_inputs(layout, d=8, L=4):
    x = torch.randn(L, d, generator=G)
    c, s = posenc.rope_cos_sin(torch.tensor([0, 3, 7, 20]), d, layout=layout)
    return x, c, s


def test_the_flipped_partner_pairs_i_with_d_minus_1_minus_i():
    x, c, s = _rope_inputs("half")
    x2 = x.clone()
    x2[:, 1] += 1.0
    moved = (pm.r8_half_flip_partner(x2, c, s) - pm.r8_half_flip_partner(x, c, s)).abs().amax(0) > 0
    assert moved.nonzero().flatten().tolist() == [1, 6]  # d − 1 − 1 = 6, not 1 + d/2 = 5


@pytest.mark.parametrize(("fn", "layout"), [(pm.r8_half_twice, "half"), (pm.r8_interleaved_twice, "interleaved")])
def test_applying_twice_turns_by_twice_the_angle(fn, layout):
    x, c, s = _rope_inputs(layout)
    c2, s2 = c * c - s * s, 2 * s * c  # cos 2a, sin 2a
    assert torch.allclose(fn(x, c, s), posenc.apply_rope(x, c2, s2, layout=layout), atol=1e-5)


def test_the_swapped_complex_parts_put_the_odd_coordinate_first():
    x, c, s = _rope_inputs("interleaved")
    out = pm.r8_interleaved_complex_swapped(x, c, s)
    x0, x1, c0, s0 = x[:, 0::2], x[:, 1::2], c[:, 0::2], s[:, 0::2]
    assert torch.allclose(out[:, 0::2], x1 * c0 - x0 * s0, atol=1e-6)
    assert torch.allclose(out[:, 1::2], x1 * s0 + x0 * c0, atol=1e-6)


@pytest.mark.parametrize(
    ("fn", "layout"), [(pm.r8_half_cached_tables, "half"), (pm.r8_interleaved_cached_complex, "interleaved")]
)
def test_the_cached_tables_are_the_first_calls(fn, layout):
    """Called with other tables of the same shape, the function rotates with the first call's tables, as the
    diagnosis says; the check names the cache and the call it came from."""
    x, c, s = _rope_inputs(layout)
    c2, s2 = posenc.rope_cos_sin(torch.tensor([5, 1, 9, 2]), 8, layout=layout)
    assert torch.allclose(fn(x, c, s), posenc.apply_rope(x, c, s, layout=layout), atol=1e-5)
    assert torch.allclose(fn(x, c2, s2), posenc.apply_rope(x, c, s, layout=layout), atol=1e-5)
    assert not torch.allclose(fn(x, c2, s2), posenc.apply_rope(x, c2, s2, layout=layout), atol=1e-3)
    pm._R8_CACHE.clear()
    said = check(f"apply_rope_{layout}", fn).diagnoses[0]
    assert said.startswith(pm._STALE + " cos and sin") and "positions [0, 1, 2, 3, 4]" in said
    assert "positions [9, 3, 0, 12, 6]" in said


def test_a_right_function_is_not_called_a_cache():
    for layout in ("half", "interleaved"):
        assert check(f"apply_rope_{layout}", lambda x, c, s, lay=layout: posenc.apply_rope(x, c, s, layout=lay)).passed
