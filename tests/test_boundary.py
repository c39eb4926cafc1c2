"""The other side of the validation boundary: inputs that are valid and must be accepted.

Non-contiguous views, low-precision dtypes, empty sequences and the broadcasting the docstrings
promise; the fast paths against their readable reference forms; edge values that used to give
silent wrong results.
"""

import pytest
import torch

import posenc
from posenc import book
from posenc._core.rope import apply as _apply_rope, rotate_reference as _rotate_reference

LAYOUTS = ["half", "interleaved"]
F32_TOL = dict(rtol=1e-6, atol=1e-6)  # a few float32 ulps (2**-23 ~ 1.2e-7) for |x| ~ 1


def odd_stride_view(*shape, d, extra=1):
    """``[..., d]`` view of a wider tensor: the row stride is ``d + extra`` (odd when extra is odd)."""
    return torch.randn(*shape, d + extra)[..., :d]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [2, 8, 64])
@pytest.mark.parametrize("extra", [1, 2, 3])
def test_apply_rope_accepts_views_with_any_row_stride(layout, d, extra):
    x = odd_stride_view(2, 3, 7, d=d, extra=extra)
    assert not x.is_contiguous()
    cos, sin = posenc.rope_cos_sin(7, d, layout=layout)
    got = posenc.apply_rope(x, cos, sin, layout=layout)
    torch.testing.assert_close(got, posenc.apply_rope(x.contiguous(), cos, sin, layout=layout), **F32_TOL)
    rope = posenc.RotaryEmbedding(d, 4, layout=layout)
    torch.testing.assert_close(rope(x), got, **F32_TOL)


def test_complex_form_accepts_odd_stride_views():
    x = odd_stride_view(3, 5, d=8)
    got = posenc.apply_rope_complex(x, posenc.rope_freqs_cis(5, 8))
    cos, sin = posenc.rope_cos_sin(5, 8, layout="interleaved")
    torch.testing.assert_close(got, posenc.apply_rope(x, cos, sin, layout="interleaved"), **F32_TOL)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_empty_sequences_are_accepted(layout):
    x = torch.randn(2, 3, 0, 8)
    cos, sin = posenc.rope_cos_sin(0, 8, layout=layout)
    assert cos.shape == (0, 8)
    assert posenc.apply_rope(x, cos, sin, layout=layout).shape == x.shape
    assert posenc.RotaryEmbedding(8, layout=layout)(x).shape == x.shape
    assert posenc.apply_rope_matrix(x, 0, layout=layout).shape == x.shape
    assert posenc.apply_rope_complex(x, posenc.rope_freqs_cis(0, 8)).shape == x.shape
    assert book.toy_embeddings([], 4).shape == (0, 4)
    assert posenc.sinusoidal_encoding(0, 8).shape == (0, 8)
    assert posenc.alibi_bias(2, 0).shape == (2, 0, 0)


def test_no_queries_and_no_keys_give_empty_outputs_not_nan():
    q = torch.randn(1, 2, 0, 4)
    out = posenc.shaw_attention(q, q, q, torch.zeros(3, 4), torch.zeros(3, 4))
    assert out.shape == (1, 2, 0, 4)
    assert posenc.linear_attention(q, q, q).shape == (1, 2, 0, 4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_low_precision_inputs_keep_their_dtype_and_accuracy(dtype, layout):
    x = torch.randn(2, 4, 16, 32)
    cos, sin = posenc.rope_cos_sin(16, 32, layout=layout)
    ref = posenc.apply_rope(x.double(), cos.double(), sin.double(), layout=layout)
    for got in (
        posenc.apply_rope(x.to(dtype), cos, sin, layout=layout),
        posenc.RotaryEmbedding(32, layout=layout)(x.to(dtype)),
    ):
        assert got.dtype == dtype
        eps = torch.finfo(dtype).eps  # a few roundings of values of size ~4
        torch.testing.assert_close(got.double(), ref, rtol=0, atol=16 * eps)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_documented_broadcasting(layout):
    """[b, 1, L, d] tables per sequence, one table row for every row (asked for), a single vector at L positions."""
    x = torch.randn(2, 3, 5, 8)
    ids = torch.tensor([[0, 1, 2, 3, 4], [7, 8, 9, 10, 11]])
    cos, sin = posenc.rope_cos_sin(12, 8, layout=layout)
    per_seq = posenc.apply_rope(x, cos[ids][:, None], sin[ids][:, None], layout=layout)
    assert per_seq.shape == x.shape
    torch.testing.assert_close(per_seq[1], posenc.apply_rope(x[1], cos[7:], sin[7:], layout=layout), **F32_TOL)
    with pytest.raises(ValueError, match="broadcast=True"):  # 1 position for L = 5: refused unless asked
        posenc.apply_rope(x, cos[3:4], sin[3:4], layout=layout)
    with pytest.raises(ValueError, match="position"):  # 12 positions for L = 5
        posenc.apply_rope(x, cos, sin, layout=layout)
    one_row = posenc.apply_rope(x, cos[3:4], sin[3:4], layout=layout, broadcast=True)  # every row at position 3
    torch.testing.assert_close(
        one_row[..., 2, :],
        posenc.apply_rope(x, cos[:5] * 0 + cos[3], sin[:5] * 0 + sin[3], layout=layout)[..., 2, :],
        **F32_TOL,
    )
    v = torch.randn(8)
    at_all = posenc.apply_rope(v, cos, sin, layout=layout)  # [12, 8]: v placed at positions 0..11
    torch.testing.assert_close(at_all, posenc.apply_rope(v.expand(12, 8), cos, sin, layout=layout), **F32_TOL)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(5, 8), (2, 3, 7, 16), (1, 1, 1, 2)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("contiguous", [True, False])
def test_fast_paths_equal_the_reference_form(layout, shape, dtype, contiguous):
    x = torch.randn(*shape[:-1], shape[-1] + (0 if contiguous else 1)).to(dtype)[..., : shape[-1]]
    assert x.is_contiguous() == (contiguous or x.numel() == x.shape[-1])  # one row: always contiguous
    cos, sin = posenc.rope_cos_sin(shape[-2], shape[-1], layout=layout)
    ref = _rotate_reference(x, cos.to(dtype), sin.to(dtype), layout)
    got = _apply_rope(x, cos, sin, layout)
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(got, ref, rtol=4 * eps, atol=4 * eps)


@pytest.mark.parametrize("block_bytes", [64, 96, 4096])
@pytest.mark.parametrize("shape", [(3, 2, 9, 8), (1, 13, 16), (2, 5, 2)])
def test_the_half_layout_blocks_cover_every_row(monkeypatch, block_bytes, shape):
    """Blocks of a few rows (some not dividing L) give the reference form's result, float64 noise only."""
    import posenc._core.rope as rope_core

    monkeypatch.setattr(rope_core, "BLOCK_BYTES", block_bytes)
    x = torch.randn(*shape, dtype=torch.float64)
    cos, sin = posenc.rope_cos_sin(shape[-2], shape[-1], dtype=torch.float64)
    torch.testing.assert_close(
        _apply_rope(x, cos, sin, "half"),
        _rotate_reference(x, cos, sin, "half"),
        rtol=4 * torch.finfo(torch.float64).eps,
        atol=4 * torch.finfo(torch.float64).eps,
    )
    one = _apply_rope(x, cos[2:3], sin[2:3], "half")  # one table row for every row (broadcast=True)
    torch.testing.assert_close(
        one,
        _rotate_reference(x, cos[2:3], sin[2:3], "half"),
        rtol=4 * torch.finfo(torch.float64).eps,
        atol=4 * torch.finfo(torch.float64).eps,
    )


def test_t5_buckets_are_valid_at_the_int64_extremes():
    rel = torch.tensor([torch.iinfo(torch.int64).min, -(10**6), -128, 0, 128, 10**6, torch.iinfo(torch.int64).max])
    for bidirectional in (True, False):
        b = posenc.t5_relative_bucket(rel, bidirectional=bidirectional)
        assert ((b >= 0) & (b < 32)).all()
        assert b[0] == b[1] and b[-1] == b[-2]  # beyond max_distance: the last bucket of each direction


def test_kv_cache_appends_matching_keys_and_values():
    cache = posenc.KVCache()
    k, v = torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4)
    cache.append(k, v)
    k_all, v_all = cache.append(k[..., :1, :], v[..., :1, :])
    assert k_all.shape == v_all.shape == (1, 2, 4, 4) and cache.length == 4


def test_apply_rope_matrix_builds_every_position_at_once():
    x = torch.randn(3, 6, 8, dtype=torch.float64)
    got = posenc.apply_rope_matrix(x, torch.tensor([5, 0, 2, 9, 1, 3]), layout="half")
    rows = [
        x[:, i] @ posenc.rope_matrix(m, 8, layout="half", dtype=torch.float64).T
        for i, m in enumerate([5, 0, 2, 9, 1, 3])
    ]
    torch.testing.assert_close(got, torch.stack(rows, dim=1), rtol=0, atol=1e-14)
