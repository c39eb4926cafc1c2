"""posenc.practice, round 9: the mistakes a ninth learner-reviewer wrote that the checker named wrongly or not at
all (a cos/sin table keyed on (L, d) that keeps its first offset, a T5 log bucket without + max_exact, Shaw's index
wrapped modulo 2k + 1) and known mistakes carried to sibling tasks (the causal mask on the wrong side in attention,
Shaw's index without + k in shaw_attention, log2 of the base in rope_inv_freq). Each test checks what a diagnosis
claims against the function it names (or against posenc), not only the words.

The mutants live in ``tests/practice_mutants.py`` (``ROUND9``); ``test_practice.py`` checks that each is rejected
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
from posenc.practice import check  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_caches():
    pm._R9_CACHE.clear()
    yield
    pm._R9_CACHE.clear()


def test_stale_offset_is_not_called_offset_ignored():
    r = check("apply_rope_offset", pm.r9_offset_cached_by_shape)
    assert not any("offset ignored" in d for d in r.diagnoses), r.diagnoses


def test_stale_offset_claim_holds():
    """The cached function, called at offset 5 after offset 0 with the same shape, returns posenc's answer at 0."""
    x0, x5 = torch.randn(3, 8), torch.randn(3, 8)
    pm.r9_offset_cached_by_shape(x0, 0)
    got = pm.r9_offset_cached_by_shape(x5.bfloat16(), 5)  # another dtype: the (L, d) key still hits
    c, s = posenc.rope_cos_sin(torch.arange(0, 3), 8)
    assert torch.equal(got, posenc.apply_rope(x5.bfloat16(), c.bfloat16(), s.bfloat16()))


def test_wrapped_index_differs_from_clipped_only_beyond_k():
    k, L = 2, 7
    wrapped, clipped = pm.r9_shaw_index_wrapped(L, k), posenc.shaw_relative_index(L, k)
    p = torch.arange(L)
    far = (p[None, :] - p[:, None]).abs() > k
    assert torch.equal(wrapped[~far], clipped[~far]) and not torch.equal(wrapped[far], clipped[far])


def test_unshifted_index_reads_the_last_rows():
    """clip(j − i, −k, k) at j < i is negative: as an index it reads row 2k + 1 + (j − i), the table's end."""
    k = 2
    table = torch.arange(2 * k + 1)
    assert table[torch.tensor(-1)] == 2 * k


def test_t5_without_max_exact_lands_in_the_exact_buckets():
    """Without + max_exact, a far distance gets a bucket below max_exact, one of the exact distances'."""
    rel = -torch.arange(0, 200)[None]
    got = pm.r9_t5_causal_no_exact_add(rel)
    ref = posenc.t5_relative_bucket(rel, bidirectional=False)
    assert int(got[0, 16]) < 16 <= int(ref[0, 16])


def test_log2_frequencies_differ_from_natural_log():
    d, base = 16, 10000.0
    want = posenc.rope_inv_freq(d, base).double()
    got = pm.r9_inv_log2(d, base).double()
    ratio = math.log2(base) / math.log(base)  # exponent scaled by 1 / ln 2
    assert torch.allclose(got.log(), want.log() * ratio, rtol=1e-5, atol=1e-6)
