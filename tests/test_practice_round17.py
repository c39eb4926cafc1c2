"""Round 17 of the Practice checker (issue 39): learned_lookup's refusal is tried at every place of the input,
0-d and 2-D included; attention combines attention_scaling with a bias and has batch = heads > 1 with a bias;
Shaw's attention holds a finite mask to the attention task's rule; the NaN hint speaks of a mask only in tasks
that have one; a rotated partner that is another signed coordinate is read from the output."""

from __future__ import annotations

import math
import re

import pytest
import torch
from practice_mutants import task_cases

from posenc import alibi_slopes, apply_rope
from posenc.practice import check
from posenc.practice.tasks_attention import FINITE_MASK_LEVELS


def _negatives(case):
    pos = case.args[1]
    return pos.dim(), [i for i, p in enumerate(pos.reshape(-1).tolist()) if p < 0], pos.numel()


def test_the_lookup_sweep_tries_a_negative_position_at_every_place():
    """Refused inputs hold −1 first, in the middle and last of a 1-D tensor, in a 0-d tensor and in a 2-D one."""
    seen = [_negatives(c) for c in task_cases("learned_lookup") if c.expect_error]
    places = {
        "first" if at[0] == 0 else "last" if at[0] == n - 1 else "middle"
        for dim, at, n in seen
        if dim == 1 and at and n > 1
    }
    assert places == {"first", "middle", "last"}
    assert any(dim == 0 and at for dim, at, n in seen)
    assert any(dim == 2 and at for dim, at, n in seen)


def _lookup(skip):
    def fn(table, positions):
        flat = positions.reshape(-1)
        seen = {"first": flat[:1], "last": flat[-1:]}.get(skip, flat)
        if not (skip == "0-d" and positions.dim() == 0) and not (skip == "2-D" and positions.dim() > 1):
            if seen.numel() and bool(((seen < 0) | (seen >= table.shape[0])).any()):
                raise ValueError("position outside the table")
        return table[positions]

    return fn


def test_a_lookup_checking_every_position_passes():
    assert check("learned_lookup", _lookup(None)).passed


@pytest.mark.parametrize(
    "skip, words",
    [
        ("first", "looks only at the first position"),
        ("last", "looks only at the last position"),
        ("0-d", "skipped for a 0-d positions tensor"),
        ("2-D", "skipped for positions of two or more dimensions"),
    ],
)
def test_a_partial_range_check_is_refused_and_named(skip, words):
    r = check("learned_lookup", _lookup(skip))
    assert not r.passed
    assert words in r.diagnoses[0]


def test_the_attention_sweep_combines_scaling_with_a_bias_and_batch_equal_to_heads():
    cases = task_cases("attention")
    assert any(
        c.kwargs.get("cos") is not None
        and c.kwargs.get("bias") is not None
        and c.kwargs.get("attention_scaling", 1.0) != 1.0
        for c in cases
    )
    assert any(c.kwargs.get("bias") is not None and c.args[0].shape[0] == c.args[0].shape[1] > 1 for c in cases)


def _attend(scale=lambda s: s, fill=float("-inf"), bias_axis=None, drop_scale_with_bias=False):
    def fn(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
        a = 1.0 if (drop_scale_with_bias and bias is not None) else scale(attention_scaling)
        if cos is not None:
            h = q.shape[-1] // 2

            def rot(x):
                return torch.cat([-x[..., h:], x[..., :h]], -1)

            q, k = q * cos * a + rot(q) * sin * a, k * cos * a + rot(k) * sin * a
        if bias is not None and bias_axis == "batch" and bias.shape[0] == q.shape[0]:
            bias = bias[:, None]
        logits = q @ k.mT / math.sqrt(q.shape[-1]) + (0 if bias is None else bias)
        logits = logits.masked_fill(torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).triu(1), fill)
        return logits.softmax(-1) @ v

    return fn


def test_the_right_attention_passes():
    assert check("attention", _attend()).passed


@pytest.mark.parametrize(
    "fn, words",
    [
        (_attend(drop_scale_with_bias=True), "attention_scaling ignored when a bias is given too"),
        (_attend(bias_axis="batch"), "heads on the batch axis"),
        (_attend(scale=math.sqrt), "√attention_scaling on both cos and sin"),
    ],
)
def test_attention_slips_with_a_bias_or_a_root_are_named(fn, words):
    r = check("attention", fn)
    assert not r.passed
    assert words in r.diagnoses[0]


def _shaw(fill):
    def fn(q, k, v, rel_k, rel_v):
        L, d = q.shape[-2], q.shape[-1]
        kk = (rel_k.shape[0] - 1) // 2
        i = torch.arange(L)
        idx = (i[None, :] - i[:, None]).clamp(-kk, kk) + kk
        logits = (q @ k.mT + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
        w = logits.masked_fill(i[None, :] > i[:, None], fill).softmax(-1)
        return w @ v + torch.einsum("...ij,ijd->...id", w, rel_v[idx])

    return fn


@pytest.mark.parametrize("fill", [torch.finfo(torch.float32).min, -1e9, -1e4, -100.0, -40.0])
def test_shaw_takes_a_finite_fill_exactly_as_the_attention_task_does(fill):
    """A fill passes when e^(fill + the lowest visible level) underflows in float32, and otherwise fails with the
    value named: the rule the attention task states."""
    r = check("shaw_attention", _shaw(fill))
    underflows = math.exp(fill + max(FINITE_MASK_LEVELS)) < 2.0**-150
    assert r.passed == underflows
    if not underflows:
        assert f"finite value ({fill:g})" in r.diagnoses[0]


def test_the_nan_hint_speaks_of_a_mask_only_where_there_is_one():
    def slopes(n_heads):
        return alibi_slopes(n_heads) * (float("nan") if n_heads == 1 else 1.0)

    def attend(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
        L = q.shape[-2]
        mask = torch.ones(L, L).triu(1) * float("-inf")  # 0·(−inf) = NaN below the diagonal
        return _attend()(q, k, v, cos, sin, None if bias is None else bias + mask, attention_scaling)

    r = check("alibi_slopes", slopes)
    assert "NaN" in r.diagnoses[0] and "mask" not in r.diagnoses[0]
    r = check("attention", attend)
    assert any("triu(1) * -inf" in d for d in r.diagnoses)


def _signed(d):
    """Each coordinate's partner: −x[i + 1] for even i, +x[i − 1] for odd i, in reverse pair order."""
    return [(-1, d - 1 - i - 1) if i % 2 == 0 else (1, d - 1 - i + 1) for i in range(d)]


def test_a_signed_partner_is_read_from_the_output():
    def fn(x, cos, sin):
        d = x.shape[-1]
        partner = torch.stack([sign * x[..., j] for sign, j in _signed(d)], -1)
        return x * cos + partner * sin

    r = check("apply_rope_half", fn)
    assert not r.passed
    m = re.search(r"yours is \[([^\]]*)\]", r.diagnoses[0])
    assert m, r.diagnoses[0]
    got = [(-1 if w.startswith("−") else 1, int(w.lstrip("−x"))) for w in m.group(1).split(", ")]
    assert got == _signed(len(got))


def test_rotate_half_itself_is_no_signed_partner_mistake():
    assert check("apply_rope_half", lambda x, cos, sin: apply_rope(x, cos, sin)).passed


def test_t5_statement_last_bucket_below_max_distance():
    """Practice 1's T5 statement: by the formula alone the last bucket of one side already holds the distances
    just below max_distance (91 to 127 with the defaults); the cap n − 1 changes only max_distance and beyond."""
    import json
    from pathlib import Path

    import posenc

    cells = json.loads(
        (Path(__file__).resolve().parents[1] / "notebooks" / "practice_1_absolute_relative.ipynb").read_text()
    )
    text = "".join("".join(c["source"]) for c in cells["cells"] if c["cell_type"] == "markdown")
    assert "distances just below it (91 to 127 with the defaults)" in text
    buckets = posenc.t5_relative_bucket(-torch.arange(0, 200))  # keys before the query, the defaults
    last = int(buckets.max())
    assert [d for d in range(200) if int(buckets[d]) == last][0] == 91
    assert all(int(buckets[d]) == last for d in range(91, 200))
