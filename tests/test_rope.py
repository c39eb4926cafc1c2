import math

import pytest
import torch

import posenc
from posenc import (
    apply_rope,
    interleaved_to_half_permutation,
    permute_qk_weight_for_half,
    rope_cos_sin,
    rope_inv_freq,
    rope_matrix,
    rotate_half,
    unpermute_qk_weight_to_interleaved,
)

LAYOUTS = ["half", "interleaved"]
DIMS = [2, 8, 64, 128]
BASES = [100.0, 10000.0, 500000.0]


def rope_f64(x, positions, base, layout):
    """Float64 rotation written from the formula, pair by pair."""
    d = x.shape[-1]
    out = x.clone()
    for row, m in enumerate(positions):
        for i in range(d // 2):
            a = m * base ** (-2 * i / d)
            j0, j1 = (i, i + d // 2) if layout == "half" else (2 * i, 2 * i + 1)
            x0, x1 = x[..., row, j0], x[..., row, j1]
            out[..., row, j0] = x0 * math.cos(a) - x1 * math.sin(a)
            out[..., row, j1] = x0 * math.sin(a) + x1 * math.cos(a)
    return out


@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("base", BASES)
def test_inv_freq_formula(d, base):
    ref = torch.tensor([base ** (-2 * i / d) for i in range(d // 2)], dtype=torch.float64)
    got = rope_inv_freq(d, base)
    assert got.dtype == torch.float32 and got.shape == (d // 2,)
    torch.testing.assert_close(got.double(), ref, rtol=1e-6, atol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cos_sin_layouts(layout):
    cos, sin = rope_cos_sin(7, 8, layout=layout)
    assert cos.shape == sin.shape == (7, 8)
    a = torch.arange(7.0)[:, None] * rope_inv_freq(8)[None]
    expanded = torch.cat([a, a], -1) if layout == "half" else a.repeat_interleave(2, -1)
    torch.testing.assert_close(cos, expanded.cos())
    torch.testing.assert_close(sin, expanded.sin())
    cos_t, _ = rope_cos_sin(torch.tensor([3, 0, 6]), 8, layout=layout)
    torch.testing.assert_close(cos_t, cos[[3, 0, 6]])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [2, 8, 16])
@pytest.mark.parametrize("base", BASES)
def test_apply_rope_matches_float64_formula(layout, d, base):
    positions = [0, 1, 5, 99, 4097]
    x = torch.randn(2, len(positions), d, dtype=torch.float64)
    exact = torch.tensor([base ** (-2 * i / d) for i in range(d // 2)], dtype=torch.float64)
    cos, sin = rope_cos_sin(torch.tensor(positions), d, layout=layout, inv_freq=exact, dtype=torch.float64)
    torch.testing.assert_close(apply_rope(x, cos, sin, layout=layout), rope_f64(x, positions, base, layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fast_path_equals_autograd_path(layout):
    x = torch.randn(2, 3, 10, 16)
    cos, sin = rope_cos_sin(10, 16, layout=layout)
    fast = apply_rope(x, cos, sin, layout=layout)
    slow = apply_rope(x.clone().requires_grad_(), cos, sin, layout=layout)
    torch.testing.assert_close(fast, slow.detach())
    slow.sum().backward()  # the autograd path is differentiable


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", DIMS)
def test_rotation_preserves_norm(layout, d):
    x = torch.randn(3, 50, d, dtype=torch.float64)
    cos, sin = rope_cos_sin(torch.arange(0, 5000, 100), d, layout=layout, dtype=torch.float64)
    torch.testing.assert_close(apply_rope(x, cos, sin, layout=layout).norm(dim=-1), x.norm(dim=-1))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("m", [0, 1, 37, 2048])
def test_rope_matrix_is_orthogonal_and_agrees(layout, d, m):
    r = rope_matrix(m, d, layout=layout, dtype=torch.float64)
    torch.testing.assert_close(r @ r.T, torch.eye(d, dtype=torch.float64))
    x = torch.randn(4, d, dtype=torch.float64)
    cos, sin = rope_cos_sin(torch.tensor([m]), d, layout=layout, dtype=torch.float64)
    torch.testing.assert_close(apply_rope(x[:, None, :], cos, sin, layout=layout)[:, 0], x @ r.T)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [8, 64])
@pytest.mark.parametrize("base", BASES)
def test_scores_depend_only_on_relative_position(layout, d, base):
    q = torch.randn(d, dtype=torch.float64)
    k = torch.randn(d, dtype=torch.float64)
    pos = torch.tensor([0, 3, 10, 500, 1000, 1003, 1010, 1500])
    cos, sin = rope_cos_sin(pos, d, base, layout=layout, dtype=torch.float64)
    qr = apply_rope(q.expand(len(pos), d), cos, sin, layout=layout)
    kr = apply_rope(k.expand(len(pos), d), cos, sin, layout=layout)
    scores = qr @ kr.T  # [m, n]
    # pairs with equal n - m: (0,3) & (1000,1003); (0,10) & (1000,1010); (0,500) & (1000,1500)
    for (a, b), (c, e) in [((0, 1), (4, 5)), ((0, 2), (4, 6)), ((0, 3), (4, 7)), ((1, 0), (5, 4))]:
        assert scores[a, b].item() == pytest.approx(scores[c, e].item(), abs=1e-9)
    # and R_m^T R_n = R_{n-m}
    rm, rn = (
        rope_matrix(10, d, base, layout=layout, dtype=torch.float64),
        rope_matrix(25, d, base, layout=layout, dtype=torch.float64),
    )
    torch.testing.assert_close(rm.T @ rn, rope_matrix(15, d, base, layout=layout, dtype=torch.float64))


@pytest.mark.parametrize("d", [2, 8, 128])
def test_layout_permutation_maps_interleaved_to_half(d):
    perm = interleaved_to_half_permutation(d)
    x = torch.randn(5, 9, d, dtype=torch.float64)
    ci, si = rope_cos_sin(9, d, layout="interleaved", dtype=torch.float64)
    ch, sh = rope_cos_sin(9, d, layout="half", dtype=torch.float64)
    torch.testing.assert_close(
        apply_rope(x, ci, si, layout="interleaved")[..., perm], apply_rope(x[..., perm], ch, sh, layout="half")
    )


@pytest.mark.parametrize("n_heads,head_dim", [(1, 8), (4, 16), (8, 64)])
def test_weight_permutation_gives_identical_scores(n_heads, head_dim):
    d_in, seq = 32, 12
    wq = torch.randn(n_heads * head_dim, d_in, dtype=torch.float64)
    wk = torch.randn(n_heads * head_dim, d_in, dtype=torch.float64)
    x = torch.randn(seq, d_in, dtype=torch.float64)

    def scores(wq, wk, layout):
        q = (x @ wq.T).view(seq, n_heads, head_dim).transpose(0, 1)
        k = (x @ wk.T).view(seq, n_heads, head_dim).transpose(0, 1)
        cos, sin = rope_cos_sin(seq, head_dim, layout=layout, dtype=torch.float64)
        return apply_rope(q, cos, sin, layout=layout) @ apply_rope(k, cos, sin, layout=layout).transpose(-1, -2)

    meta = scores(wq, wk, "interleaved")
    hf = scores(permute_qk_weight_for_half(wq, n_heads), permute_qk_weight_for_half(wk, n_heads), "half")
    torch.testing.assert_close(meta, hf)
    # without the permutation the half layout gives different scores
    assert not torch.allclose(scores(wq, wk, "half"), meta)
    torch.testing.assert_close(unpermute_qk_weight_to_interleaved(permute_qk_weight_for_half(wq, n_heads), n_heads), wq)


def test_rotate_half_pairs_i_with_i_plus_half():
    x = torch.arange(8.0)
    assert torch.equal(rotate_half(x), torch.tensor([-4.0, -5, -6, -7, 0, 1, 2, 3]))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_low_precision_tables_stay_accurate_at_large_positions(dtype):
    pos = torch.tensor([15962, 60000])
    cos, sin = rope_cos_sin(pos, 64, dtype=dtype)
    ref_cos, ref_sin = rope_cos_sin(pos, 64, dtype=torch.float64)
    # only the final rounding of the value remains: |error| <= half an ulp at 1.0
    ulp = torch.finfo(dtype).eps
    assert (cos.double() - ref_cos).abs().max() <= ulp
    assert (sin.double() - ref_sin).abs().max() <= ulp


class TestRotaryEmbedding:
    @pytest.mark.parametrize("layout", LAYOUTS)
    def test_default_positions_and_explicit_positions(self, layout):
        rope = posenc.RotaryEmbedding(16, max_seq_len=8, layout=layout)
        x = torch.randn(2, 3, 20, 16)
        full = rope(x)  # grows the cache past 8
        assert rope.cache_len >= 20
        cos, sin = rope_cos_sin(20, 16, layout=layout)
        torch.testing.assert_close(full, apply_rope(x, cos, sin, layout=layout))
        # decoding the last 4 positions one by one with explicit positions
        steps = [rope(x[..., p : p + 1, :], torch.tensor([p])) for p in range(16, 20)]
        torch.testing.assert_close(torch.cat(steps, dim=-2), full[..., 16:, :])

    def test_batched_position_ids_for_packed_sequences(self):
        rope = posenc.RotaryEmbedding(8)
        x = torch.randn(2, 4, 5, 8)
        ids = torch.tensor([[0, 1, 2, 0, 1], [0, 1, 2, 3, 4]])  # sequence 0 packs two documents
        y = rope(x, ids)
        torch.testing.assert_close(y[1], rope(x[1:2])[0])
        torch.testing.assert_close(y[0, :, 3:], rope(x[0:1, :, 3:])[0])

    def test_bf16_input_keeps_dtype(self):
        rope = posenc.RotaryEmbedding(64)
        x = torch.randn(1, 1, 3, 64, dtype=torch.bfloat16)
        y = rope(x, torch.tensor([100000, 100001, 100002]))
        assert y.dtype == torch.bfloat16
        ref = rope(x.double(), torch.tensor([100000, 100001, 100002]))
        assert (y.double() - ref).abs().max() < 0.1

    def test_attention_scaling_multiplies_tables(self):
        inv, scale = posenc.rope_scaled_inv_freq(16, rope_type="yarn", factor=4.0, original_max_position_embeddings=64)
        rope = posenc.RotaryEmbedding(16, inv_freq=inv, attention_scaling=scale)
        x = torch.randn(1, 1, 4, 16)
        assert rope(x).norm(dim=-1).div(x.norm(dim=-1)).allclose(torch.tensor(scale))


def test_half_layout_matches_hugging_face_llama():
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    cfg = transformers.LlamaConfig(
        hidden_size=256,
        num_attention_heads=4,
        head_dim=64,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
    )
    q, k = torch.randn(2, 4, 30, 64), torch.randn(2, 4, 30, 64)
    ids = torch.arange(30)[None].expand(2, 30)
    hf_cos, hf_sin = LlamaRotaryEmbedding(cfg)(q, ids)
    hq, hk = apply_rotary_pos_emb(q, k, hf_cos, hf_sin)
    cos, sin = rope_cos_sin(30, 64, layout="half")
    torch.testing.assert_close(cos, hf_cos[0])
    torch.testing.assert_close(apply_rope(q, cos, sin, layout="half"), hq)
    torch.testing.assert_close(apply_rope(k, cos, sin, layout="half"), hk)


def test_interleaved_layout_matches_meta_complex_form():
    # Meta LLaMA: precompute_freqs_cis + apply_rotary_emb (view_as_complex, multiply by polar(1, m theta))
    d, seq = 32, 17
    freqs = 1.0 / (10000.0 ** (torch.arange(0, d, 2)[: d // 2].float() / d))
    freqs_cis = torch.polar(torch.ones(seq, d // 2), torch.outer(torch.arange(seq).float(), freqs))
    x = torch.randn(3, seq, d)
    meta = torch.view_as_real(torch.view_as_complex(x.float().reshape(3, seq, -1, 2)) * freqs_cis).flatten(2)
    cos, sin = rope_cos_sin(seq, d, layout="interleaved")
    torch.testing.assert_close(apply_rope(x, cos, sin, layout="interleaved"), meta)


@pytest.mark.parametrize("d", [2, 16, 64])
def test_three_implementations_agree(d):
    """The O(d^2) matrix, Meta's complex multiply and HF's rotate_half all equal apply_rope."""
    x = torch.randn(2, 3, 40, d)
    ci, si = rope_cos_sin(40, d, layout="interleaved")
    ch, sh = rope_cos_sin(40, d, layout="half")
    fast_i = apply_rope(x, ci, si, layout="interleaved")
    torch.testing.assert_close(posenc.apply_rope_complex(x, posenc.rope_freqs_cis(40, d)), fast_i)
    torch.testing.assert_close(posenc.apply_rope_matrix(x, 40, layout="interleaved"), fast_i, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(posenc.apply_rope_rotate_half(x, ch, sh), apply_rope(x, ch, sh, layout="half"))
    torch.testing.assert_close(
        posenc.apply_rope_matrix(x, 40, layout="half"), apply_rope(x, ch, sh, layout="half"), atol=1e-5, rtol=1e-5
    )


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("head_dim", [4, 16, 64])
def test_2d_rope_scores_depend_on_the_2d_offset_only(layout, head_dim):
    rows, cols = 5, 7
    cos, sin = posenc.rope_cos_sin_2d(rows, cols, head_dim, layout=layout, dtype=torch.float64)
    assert cos.shape == (rows * cols, head_dim)
    q, k = torch.randn(2, head_dim, dtype=torch.float64)
    qr = apply_rope(q.expand(rows * cols, -1), cos, sin, layout=layout)
    kr = apply_rope(k.expand(rows * cols, -1), cos, sin, layout=layout)
    s = (qr @ kr.T).view(rows, cols, rows, cols)
    torch.testing.assert_close(s[0, 0, 1, 2], s[3, 4, 4, 6])  # offset (+1, +2)
    torch.testing.assert_close(s[2, 1, 0, 0], s[4, 3, 2, 2])  # offset (-2, -1)
    assert not torch.isclose(s[0, 0, 1, 2], s[0, 0, 2, 1])  # the axes are distinguished


# ---- low precision: rotated in float32 and cast back (Meta, torchtune) ------------------------------------


def _correct_rounding_bound(ref, x, dtype):
    """|error| of a result rounded once to ``dtype`` from a float32 computation: half an ulp of ``dtype``
    relative to the exact value (u = eps / 2), plus a margin for the float32 tables and arithmetic
    (a few 2**-24 per entry of |x0| + |x1|, taken as 1e-6 * max|x|)."""
    return torch.finfo(dtype).eps / 2 * ref.abs() + 1e-6 * float(x.abs().max())


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("start", [0, 100_000])
def test_low_precision_is_rotated_in_float32_and_cast_back(dtype, layout, start):
    """Against the float64 rotation of the same (rounded) input, every entry is within the error of one
    final rounding (the float32-then-cast bound); computing in the input dtype exceeds that bound."""
    from posenc._core.rope import rotate_reference

    g = torch.Generator().manual_seed(start + len(layout))
    x = torch.randn(2, 4, 64, 128, generator=g).to(dtype)
    pos = torch.arange(start, start + 64)
    c64, s64 = rope_cos_sin(pos, 128, layout=layout, dtype=torch.float64)
    ref = apply_rope(x.double(), c64, s64, layout=layout)
    bound = _correct_rounding_bound(ref, x, dtype)
    cos, sin = rope_cos_sin(pos, 128, layout=layout)  # float32 tables
    for got in (
        apply_rope(x, cos, sin, layout=layout),
        posenc.RotaryEmbedding(128, 8, layout=layout)(x, pos),
        apply_rope(x.requires_grad_(), cos, sin, layout=layout).detach(),
    ):  # the autograd path too
        assert got.dtype == dtype
        assert ((got.double() - ref).abs() <= bound).all()
    in_dtype = rotate_reference(x.detach(), cos.to(dtype), sin.to(dtype), layout)  # Hugging Face's way
    assert ((in_dtype.double() - ref).abs() > bound).any()  # the bound is tight enough to tell the two apart


def test_float32_inputs_are_computed_in_float32():
    """float32 stays in float32 (the same ops as the reference form on the same inputs)."""
    from posenc._core.rope import rotate_reference

    x = torch.randn(3, 10, 16, requires_grad=True)
    cos, sin = rope_cos_sin(10, 16)
    assert torch.equal(apply_rope(x, cos, sin), rotate_reference(x, cos, sin, "half"))


# ---- the layout of x: [b, h, L, d] (Hugging Face) or [b, L, h, d] (torchtune) -----------------------------


class TorchtuneRoPE(torch.nn.Module):
    """torchtune's RotaryPositionalEmbeddings (modules/position_embeddings.py), written out: x [b, s, n_h, h_d],
    pairs (2i, 2i+1), float32 angles, computed in float32 and cast back."""

    def __init__(self, dim, max_seq_len=4096, base=10_000):
        super().__init__()
        theta = 1.0 / (base ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
        idx_theta = torch.einsum("i, j -> ij", torch.arange(max_seq_len, dtype=theta.dtype), theta).float()
        self.register_buffer("cache", torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)], dim=-1))

    def forward(self, x, *, input_pos=None):
        seq_len = x.size(1)
        rope_cache = self.cache[:seq_len] if input_pos is None else self.cache[input_pos]
        xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
        rope_cache = rope_cache.view(-1, xshaped.size(1), 1, xshaped.size(3), 2)
        x_out = torch.stack(
            [
                xshaped[..., 0] * rope_cache[..., 0] - xshaped[..., 1] * rope_cache[..., 1],
                xshaped[..., 1] * rope_cache[..., 0] + xshaped[..., 0] * rope_cache[..., 1],
            ],
            -1,
        )
        return x_out.flatten(3).type_as(x)


@pytest.mark.parametrize("b,s,h,d", [(2, 7, 4, 16), (1, 4, 4, 32), (3, 1, 8, 8)])  # (1, 4, 4, 32): seq == heads
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_seq_dim_minus_3_matches_torchtune(b, s, h, d, dtype):
    tt = TorchtuneRoPE(d, 64)
    rope = posenc.RotaryEmbedding(d, 8, layout="interleaved", seq_dim=-3)
    x = torch.randn(b, s, h, d).to(dtype)
    # float32 angles (torchtune) vs float64 ones rounded to float32 (posenc): positions < 64, a few float32 ulps;
    # in bfloat16 both round a float32 value once, so they differ by at most one bfloat16 ulp
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=2.0**-7, atol=1e-5)
    torch.testing.assert_close(rope(x), tt(x), **tol)
    pos = torch.arange(20, 20 + s)
    torch.testing.assert_close(rope(x, pos), tt(x, input_pos=pos), **tol)
    packed = torch.stack([torch.arange(s).flip(0) + 3 * i for i in range(b)])  # [b, s] per sequence
    torch.testing.assert_close(rope(x, packed), tt(x, input_pos=packed), **tol)
    # the same rotation as the default layout on the transposed tensor
    hf = posenc.RotaryEmbedding(d, 8, layout="interleaved")
    torch.testing.assert_close(rope(x, packed), hf(x.transpose(1, 2), packed).transpose(1, 2), rtol=0, atol=0)


def test_seq_equal_to_heads_is_decided_by_seq_dim_not_by_shapes():
    """With L == h no shape tells the layouts apart: seq_dim decides, and the two readings differ."""
    x = torch.randn(1, 4, 4, 16)
    default, torchtune = posenc.RotaryEmbedding(16), posenc.RotaryEmbedding(16, seq_dim=-3)
    torch.testing.assert_close(torchtune(x), default(x.transpose(1, 2)).transpose(1, 2), rtol=0, atol=0)
    assert not torch.allclose(torchtune(x), default(x))


@pytest.mark.parametrize(
    "seq_dim,shape,hint",
    [
        (-2, (2, 7, 4, 16), "seq_dim=-3"),  # torchtune's [b, L, h, d] given to the default module
        (-3, (2, 4, 7, 16), "seq_dim=-2"),  # Hugging Face's [b, h, L, d] given to a seq_dim=-3 module
    ],
)
def test_a_layout_mismatch_that_position_ids_reveal_names_the_seq_dim_to_pass(seq_dim, shape, hint):
    rope = posenc.RotaryEmbedding(16, seq_dim=seq_dim)
    for ids in (torch.arange(7), torch.arange(7).expand(2, 7)):
        with pytest.raises(ValueError, match=hint):
            rope(torch.randn(*shape), ids)
    with pytest.raises(ValueError, match="position_ids"):  # no dimension fits: no hint, still an error
        rope(torch.randn(*shape), torch.arange(5))


@pytest.mark.parametrize("bad", [-1, 0, 1, 2, -4, True, 1.5, "bshd"])
def test_seq_dim_bad_values(bad):
    with pytest.raises(ValueError, match="seq_dim"):
        posenc.RotaryEmbedding(16, seq_dim=bad)
    with pytest.raises(ValueError, match="x"):  # seq_dim=-3 needs x with a head dimension
        posenc.RotaryEmbedding(16, seq_dim=-3)(torch.randn(5, 16))
