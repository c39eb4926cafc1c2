"""posenc.practice, issue 39 round 5: the defects a fifth learner-reviewer found. T5 configurations where a distance
clamped to max_distance − 1 shows; each angle task's drift message quoting its own formula; low-precision angles in
tensor2tensor's table; an "every input where yours is wrong" claim that counts wrong shapes; and the kinds that were
rejected but not named. Every diagnosis must be true of the function it names: each test checks the claim against
the function (or against reference code), not only the words.

The mutants live in ``tests/practice_mutants.py`` (``ROUND5``); ``test_practice.py`` checks that each is rejected
with its diagnosis first and that the correct functions pass.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

import practice_mutants as pm  # noqa: E402

import posenc  # noqa: E402
from posenc import practice  # noqa: E402
from posenc.practice import check  # noqa: E402
from posenc.practice.check import reference  # noqa: E402


# ---- T5: small configurations ------------------------------------------------------------------------------
@pytest.mark.parametrize("task", ["t5_relative_bucket", "t5_causal_bucket"])
def test_t5_sweep_has_configurations_where_a_distance_clamp_shows(task):
    """The sweep reaches, in each direction mode it covers, a configuration where clamping the distance to
    max_distance − 1 (instead of the bucket to num_buckets − 1) changes a bucket, and Hugging Face's code (the
    line-for-line copy) agrees with posenc there."""
    modes = {}
    for case in practice._tasks()[task].cases():
        kw = dict(case.kwargs)
        bi = kw.pop("bidirectional", False) if task == "t5_relative_bucket" else False
        rel = case.args[0]
        right = posenc.t5_relative_bucket(rel, bidirectional=bi, **kw)
        assert torch.equal(pm.t5_hf_copy(rel, bi, **kw), right), case.label
        if not torch.equal(pm.r5_t5_clamp_distance(rel, bi, **kw), right):
            modes.setdefault(bi, []).append(case.label)
    want = {True, False} if task == "t5_relative_bucket" else {False}
    assert set(modes) == want, modes


def test_t5_distance_clamp_message_example_holds():
    """The diagnosis's example: decoder buckets at num_buckets=8, max_distance=7; distances 7 and beyond land in
    bucket 6 with the distance clamped, 7 in posenc (and Hugging Face's copy)."""
    d = check("t5_causal_bucket", pm.r5_t5c_clamp_distance).diagnoses[0]
    assert "num_buckets=8, max_distance=7, distances 7 and beyond land in bucket 6, not 7" in d, d
    rel = -torch.arange(0, 30)  # distances 0 .. 29 back
    right = posenc.t5_relative_bucket(rel, bidirectional=False, num_buckets=8, max_distance=7)
    wrong = pm.r5_t5c_clamp_distance(rel, num_buckets=8, max_distance=7)
    assert torch.equal(right, pm.t5c_hf(rel, num_buckets=8, max_distance=7))
    assert torch.equal(right[7:], torch.full((23,), 7)) and torch.equal(wrong[7:], torch.full((23,), 6))
    assert torch.equal(right[:7], wrong[:7])


# ---- drift messages: each task's own formula ---------------------------------------------------------------
def _fp16_cumsum_positions(seq_len):
    return torch.cumsum(torch.ones(seq_len, dtype=torch.float16), 0).double() - 1


def sin_fp16_cumsum(seq_len, d_model, base=10000.0):  # interleaved, positions counted in a float16 cumsum
    ang = _fp16_cumsum_positions(seq_len)[:, None] * base ** (-torch.arange(0, d_model, 2).double() / d_model)
    return torch.stack([ang.sin(), ang.cos()], -1).reshape(seq_len, d_model).float()


@pytest.mark.parametrize(
    "task, fn, own, other",
    [
        ("sinusoidal_concat", pm.r5_t2t_fp16_cumsum, "ω_i = base^(−i/max(d/2 − 1, 1))", "base^(−2i/d)"),
        ("sinusoidal_encoding", sin_fp16_cumsum, "θ_i = base^(−2i/d)", "max(d/2 − 1, 1)"),
    ],
)
def test_drift_message_quotes_the_tasks_own_formula(task, fn, own, other):
    """The drift diagnosis quotes the task's own frequency, and its numbers hold: the output is right up to the
    position it names, wrong at the next, and off by the error it gives at the position it gives."""
    d = check(task, fn).diagnoses[0]
    assert d.startswith("your values drift away") and own in d and other not in d, d
    m = re.search(r"right up to position (\d+), then off by more and more \((\S+) at position (\d+), seq_len=(\d+)", d)
    assert m, d
    p_ok, err, p_err, L = int(m.group(1)), float(m.group(2)), int(m.group(3)), int(m.group(4))
    case = next(c for c in practice._tasks()[task].cases() if c.args[0] == L)
    row_err = (fn(*case.args).double() - reference(task)(*case.args).double()).abs().amax(-1)
    assert float(row_err[: p_ok + 1].max()) <= case.tol < float(row_err[p_ok + 1])
    assert math.isclose(float(row_err[p_err]), err, rel_tol=0.05), (row_err[p_err], err)


# ---- tensor2tensor's table in low precision -----------------------------------------------------------------
@pytest.mark.parametrize("kind", ["float16", "bfloat16"])
def test_concat_low_precision_angles_are_named_and_are_so(kind):
    """A table whose positions go through float16 or bfloat16 is named by that dtype, and it is: cos and sin of
    the positions rounded to it times tensor2tensor's frequencies."""
    dt = getattr(torch, kind)

    def fn(seq_len, d_model, base=10000.0):
        half = d_model // 2
        inv = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(base) / max(half - 1, 1)))
        ang = torch.arange(seq_len).to(dt).double()[:, None] * inv
        return torch.cat([ang.sin(), ang.cos()], -1).float()

    assert check("sinusoidal_concat", fn).diagnoses[0] == f"angles computed in {kind}"
    out, right = fn(4096, 16), reference("sinusoidal_concat")(4096, 16)
    rounded = torch.arange(4096).to(dt).double()
    half = 8
    inv = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(1e4) / (half - 1)))
    ang = rounded[:, None] * inv
    assert torch.allclose(out.double(), torch.cat([ang.sin(), ang.cos()], -1), atol=1e-6)
    assert float((out - right).abs().max()) > 0.1  # the rounding shows at long lengths


def test_concat_bf16_is_among_its_known_mistakes_as_for_the_interleaved_table():
    texts = {task: [t for t, _ in practice._tasks()[task].mistakes] for task in ("sinusoidal_encoding",)}
    concat = [t for t, _ in practice._tasks()["sinusoidal_concat"].mistakes]
    for kind in ("float16", "bfloat16"):
        assert f"angles computed in {kind}" in texts["sinusoidal_encoding"]
        assert f"angles computed in {kind}" in concat


# ---- "every input where yours is wrong" counts wrong shapes -------------------------------------------------
def cs_from_one_some_ints_wrong_shape(positions, head_dim, base=10000.0):
    """Right on tensors; on an int n, positions 1..n for n = 1 and 8, one row too many otherwise."""
    if isinstance(positions, int):
        n = positions
        p = torch.arange(1, n + 1) if n in (1, 8) else torch.arange(n + 1)
    else:
        p = positions
    ang = p.double()[:, None] * pm.inv_hf(head_dim, base).double()[None, :]
    ang = torch.cat([ang, ang], -1)
    return ang.cos().float(), ang.sin().float()


def test_every_input_claim_counts_inputs_with_the_wrong_shape():
    """Wrong on every int input, all but two of them by shape: the nearest mistake matches two, and the report
    says so instead of claiming every input where the output is wrong."""
    r = check("rope_cos_sin", cs_from_one_some_ints_wrong_shape)
    d = r.diagnoses[0]
    cases = practice._tasks()["rope_cos_sin"].cases()
    ints = [c for c in cases if isinstance(c.args[0], int)]
    assert "on every input where yours is wrong" not in d, d
    assert "positions start at 1" in d and f"exactly on 2 of the {len(ints)} inputs where yours is wrong" in d, d
    shapes = [tuple(cs_from_one_some_ints_wrong_shape(*c.args)[0].shape) for c in ints]
    assert sum(s[0] != c.args[0] for s, c in zip(shapes, ints)) == len(ints) - 2 >= 2


def test_an_int_taken_as_one_position_is_named_and_its_shape_said():
    r = check("rope_cos_sin", pm.r5_cs_int_as_one_position)
    assert r.diagnoses[0].startswith("an int positions = n taken as the single position n"), r.diagnoses
    assert any("cos has shape [1, 4], expected [3, 4]" in d for d in r.diagnoses[1:]), r.diagnoses
    c, _ = pm.r5_cs_int_as_one_position(3, 4)
    assert torch.allclose(c, posenc.rope_cos_sin(torch.tensor([3]), 4)[0])


# ---- mistakes that were rejected but not named -------------------------------------------------------------
def test_linspace_frequencies_claim():
    """posenc's frequencies fall geometrically by base^(−2/d) to base^(−(d−2)/d); the linspace ones end at 1/base."""
    assert check("rope_inv_freq", pm.r5_inv_linspace).diagnoses[0].startswith("frequencies spaced evenly")
    for d, b in [(8, 500.0), (64, 1e4)]:
        th = posenc.rope_inv_freq(d, b).double()
        assert torch.allclose(th[1:] / th[:-1], torch.full((d // 2 - 1,), b ** (-2 / d), dtype=torch.float64))
        assert math.isclose(float(th[-1]), b ** (-(d - 2) / d), rel_tol=1e-6)
        assert math.isclose(float(pm.r5_inv_linspace(d, b)[-1]), 1 / b, rel_tol=1e-6)


def test_factor_over_theta_claim():
    """factor / θ_i is s·base^(+2i/d): it grows with i."""
    assert check("pi_inv_freq", pm.r5_pi_factor_over_theta).diagnoses[0].startswith("factor / θ_i")
    d, b, s = 16, 500.0, 8.0
    got = pm.r5_pi_factor_over_theta(d, b, s).double()
    assert torch.allclose(got, s * b ** (torch.arange(0, d, 2).double() / d), rtol=1e-5)
    assert bool((got[1:] > got[:-1]).all())


def test_nan_mask_claim():
    """NaN exactly where posenc's bias is −inf (keys after the query), posenc's values elsewhere."""
    assert check("alibi_bias", pm.r5_bias_nan_mask).diagnoses[0].startswith("NaN where −inf belongs")
    got, right = pm.r5_bias_nan_mask(4, 8), posenc.alibi_bias(4, 8)
    assert torch.equal(torch.isnan(got), torch.isneginf(right))
    assert torch.equal(got[~torch.isnan(got)], right[torch.isfinite(right)])


@pytest.mark.parametrize("scale, said", [(-1.0, "two mistakes together"), (1.5, "your output contains NaN where")])
def test_nan_where_minus_inf_is_said_as_nan_with_another_mistake(scale, said):
    """NaN where posenc has −inf is said as NaN when the rest of the bias is another known mistake's (the sign)
    and when it is no known mistake's (slopes 1.5 times too large): then the fallback names the NaN itself."""

    def fn(n_heads, q_len):
        return scale * pm.r5_bias_nan_mask(n_heads, q_len)

    d = check("alibi_bias", fn).diagnoses[0]
    assert d.startswith(said) and "NaN" in d, d
    assert torch.equal(torch.isnan(fn(3, 5)), torch.isneginf(posenc.alibi_bias(3, 5)))


def test_heads_axis_claim():
    """q.shape[1] is the head count: the mutant's logits are divided by √h, as SDPA with scale = 1/√h computes."""
    assert check("attention", pm.r5_attn_heads_axis).diagnoses[0].startswith("logits divided by √h")
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 8, generator=g) for _ in range(3))
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=3**-0.5)
    assert torch.allclose(pm.r5_attn_heads_axis(q, k, v), want, atol=1e-5)


def test_multiplied_bias_claim():
    """softmax(l + b) multiplies each key's weight exp(l) by exp(b): the additive bias is that, the multiplied
    one is not."""
    assert check("attention", pm.r5_attn_bias_multiplied).diagnoses[0].startswith("bias multiplied into the logits")
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 2, 6, 8, generator=g) for _ in range(3))
    bias = posenc.alibi_bias(2, 6, causal=False)
    lg = (q @ k.transpose(-1, -2) / math.sqrt(8)).masked_fill(torch.ones(6, 6, dtype=torch.bool).triu(1), -math.inf)
    w = lg.exp() * bias.exp()
    assert torch.allclose((w / w.sum(-1, keepdim=True)) @ v, reference("attention")(q, k, v, bias=bias), atol=1e-5)
    assert not torch.allclose(
        pm.r5_attn_bias_multiplied(q, k, v, bias=bias), reference("attention")(q, k, v, bias=bias)
    )


def test_ntk_precedence_base_is_read_back():
    """The base the function used and NTK-aware's are said with their values, and they are so."""
    d = check("ntk_inv_freq", pm.r5_ntk_precedence).diagnoses[0]
    m = re.search(
        r"your base is (\S+) at head_dim=(\d+), base=(\S+), factor=(\S+?): expected base·s\^\(d/\(d−2\)\) = (\S+?),", d
    )
    assert m and "** binds tighter than /" in d, d
    got, hd, b, s, want = float(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)), float(m.group(5))
    assert math.isclose(got, b * s**hd / (hd - 2), rel_tol=1e-5)
    assert math.isclose(want, b * s ** (hd / (hd - 2)), rel_tol=1e-5)
    assert torch.allclose(pm.r5_ntk_precedence(hd, b, s), posenc.rope_inv_freq(hd, got), rtol=1e-5)
