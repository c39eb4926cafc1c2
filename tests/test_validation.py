"""Every public function rejects bad input with an error that names the parameter."""

import pytest
import torch

import posenc
import posenc.book

x4 = torch.randn(1, 1, 3, 4)
c4, s4 = posenc.rope_cos_sin(3, 4)

BAD_CALLS = [
    # (call, exception, the parameter the message must name)
    (lambda: posenc.sinusoidal_encoding(4, 7), ValueError, "d_model"),
    (lambda: posenc.sinusoidal_encoding(-1, 8), ValueError, "seq_len"),
    (lambda: posenc.sinusoidal_encoding(4, 8, base=1.0), ValueError, "base"),
    (lambda: posenc.sinusoidal_encoding(4, 8, base=0.5), ValueError, "base"),
    (lambda: posenc.sinusoidal_encoding(4.0, 8), TypeError, "seq_len"),
    (lambda: posenc.sinusoidal_encoding(4, 8, base="big"), TypeError, "base"),
    (lambda: posenc.sinusoidal_encoding(4, 8, base=float("nan")), ValueError, "base"),
    (lambda: posenc.sinusoidal_frequencies(8, method="log"), ValueError, "method"),
    (lambda: posenc.sinusoidal_encoding_at(torch.tensor([0.5]), 8), TypeError, "positions"),
    (lambda: posenc.sinusoidal_encoding_at(torch.tensor([1]), 7), ValueError, "d_model"),
    (lambda: posenc.integer_encoding(3, 0), ValueError, "d_model"),
    (lambda: posenc.sinusoidal_shift_matrix(1.5, 8), TypeError, "k"),
    (lambda: posenc.binary_encoding(9, 3), ValueError, "n_bits"),
    (lambda: posenc.binary_encoding(-2), ValueError, "seq_len"),
    (lambda: posenc.LearnedPositionalEmbedding(0, 4), ValueError, "max_len"),
    (lambda: posenc.LearnedPositionalEmbedding(4, 4)(torch.tensor([0.5])), TypeError, "positions"),
    (lambda: posenc.LearnedPositionalEmbedding(4, 4).resized(1), ValueError, "new_max_len"),
    (lambda: posenc.relative_positions(5, 3), ValueError, "k_len"),
    (lambda: posenc.relative_positions(True), TypeError, "q_len"),
    (lambda: posenc.shaw_relative_index(4, -1), ValueError, "max_distance"),
    (lambda: posenc.t5_relative_bucket(torch.tensor([1.5])), TypeError, "relative_position"),
    (lambda: posenc.t5_relative_bucket(torch.tensor([1]), num_buckets=7), ValueError, "num_buckets"),
    (lambda: posenc.t5_relative_bucket(torch.tensor([1]), max_distance=4), ValueError, "max_distance"),
    (lambda: posenc.shaw_attention(x4, x4, x4, torch.zeros(4, 4), torch.zeros(4, 4)), ValueError, "rel_k"),
    (lambda: posenc.shaw_attention(x4, x4[..., :2, :], x4, torch.zeros(3, 4), torch.zeros(3, 4)), ValueError, "v"),
    (
        lambda: posenc.shaw_attention_naive(x4[..., :2], x4, x4, torch.zeros(3, 4), torch.zeros(3, 4)),
        ValueError,
        "head dimension",
    ),
    (lambda: posenc.ShawRelativePosition(0, 2), ValueError, "head_dim"),
    (lambda: posenc.T5RelativeBias(0), ValueError, "n_heads"),
    (lambda: posenc.rope_inv_freq(7), ValueError, "head_dim"),
    (lambda: posenc.rope_inv_freq(8, base=1.0), ValueError, "base"),
    (lambda: posenc.rope_cos_sin(4, 8, layout="neox"), ValueError, "layout"),
    (lambda: posenc.rope_cos_sin_2d(3, 3, 6), ValueError, "head_dim"),
    (lambda: posenc.rope_cos_sin_2d(0, 3, 8), ValueError, "rows"),
    (lambda: posenc.rope_cos_sin(torch.tensor([1.0]), 8), TypeError, "positions"),
    (lambda: posenc.rope_cos_sin(torch.zeros(2, 2, dtype=torch.long), 8), ValueError, "positions"),
    (lambda: posenc.rope_cos_sin(4, 8, inv_freq=torch.ones(3)), ValueError, "inv_freq"),
    (lambda: posenc.rope_angles(4, torch.ones(2, 2)), ValueError, "inv_freq"),
    (lambda: posenc.apply_rope(x4, *posenc.rope_cos_sin(3, 6)), ValueError, "cos"),  # wider than head_dim
    (lambda: posenc.apply_rope(x4, torch.ones(3, 3), torch.ones(3, 3)), ValueError, "cos"),  # odd width
    (lambda: posenc.apply_rope(x4.long(), c4, s4), TypeError, "x"),
    (lambda: posenc.apply_rope(x4, c4, s4, layout="gptj"), ValueError, "layout"),
    (lambda: posenc.apply_rope(torch.randn(3, 5), *posenc.rope_cos_sin(3, 4)), ValueError, "head_dim"),
    (lambda: posenc.rotate_half([1, 2]), TypeError, "x must be a torch.Tensor"),
    (lambda: posenc.rope_matrix(1.5, 8), TypeError, "position"),
    (lambda: posenc.apply_rope_rotate_half(x4, c4[:, :2], s4), ValueError, "cos"),
    (lambda: posenc.rope_freqs_cis(4, 5), ValueError, "head_dim"),
    (lambda: posenc.apply_rope_complex(x4, torch.ones(3, 2)), TypeError, "freqs_cis"),
    (lambda: posenc.apply_rope_matrix(x4, 5), ValueError, "positions"),
    (lambda: posenc.rope_matrix(1, 9), ValueError, "head_dim"),
    (lambda: posenc.rope_scaled_inv_freq(8, rope_type="ntk"), ValueError, "rope_type"),
    (lambda: posenc.rope_scaled_inv_freq(8, rope_type="linear", factor=0.5), ValueError, "factor"),
    (
        lambda: posenc.rope_scaled_inv_freq(8, rope_type="yarn", factor=2.0),
        ValueError,
        "original_max_position_embeddings",
    ),
    (
        lambda: posenc.rope_scaled_inv_freq(
            8,
            rope_type="llama3",
            factor=2.0,
            original_max_position_embeddings=64,
            low_freq_factor=4.0,
            high_freq_factor=1.0,
        ),
        ValueError,
        "high_freq_factor",
    ),
    (lambda: posenc.interleaved_to_half_permutation(3), ValueError, "head_dim"),
    (lambda: posenc.permute_qk_weight_for_half(torch.zeros(6, 4), 2), ValueError, "n_heads"),
    (lambda: posenc.unpermute_qk_weight_to_interleaved(torch.zeros(8), 2), ValueError, "weight"),
    (lambda: posenc.RotaryEmbedding(8, layout="x"), ValueError, "layout"),
    (lambda: posenc.RotaryEmbedding(8)(torch.randn(1, 3, 6)), ValueError, "head_dim"),
    (lambda: posenc.RotaryEmbedding(4)(x4, torch.tensor([0, 1])), ValueError, "position_ids"),
    (lambda: posenc.RotaryEmbedding(4)(x4, torch.tensor([0, -1, 2])), ValueError, "position_ids"),
    (lambda: posenc.alibi_slopes(0), ValueError, "n_heads"),
    (lambda: posenc.alibi_slopes(2.0), TypeError, "n_heads"),
    (lambda: posenc.alibi_bias(4, 5, 2), ValueError, "k_len"),
    (lambda: posenc.alibi_bias_bloom(4, -1), ValueError, "q_len"),
    (lambda: posenc.rope_decay_bound(7, [1, 2]), ValueError, "head_dim"),
    (lambda: posenc.rope_decay_bound(8, [[1, 2]]), ValueError, "distances"),
    (lambda: posenc.rope_decay_bound(8, [1, 2], base=-3), ValueError, "base"),
    (lambda: posenc.rope_matching_stretch_means(7), ValueError, "head_dim"),
    (lambda: posenc.rope_matching_stretch_means(8, freq_dtype=torch.int64), TypeError, "freq_dtype"),
    (lambda: posenc.rope_matching_stretch_means(8, base=0.5), ValueError, "base"),
    (lambda: posenc.rope_matching_stretch_means(8, max_start=0), ValueError, "max_start"),
    (lambda: posenc.rope_matching_stretch_means(8, max_start=2.5), TypeError, "max_start"),
    (lambda: posenc.rope_matching_trend(torch.tensor([0.5]), 8), ValueError, "distance"),
    (lambda: posenc.rope_matching_trend([20.0], 8), TypeError, "distance"),
    (lambda: posenc.rope_matching_trend(torch.tensor([20.0]), 7), ValueError, "head_dim"),
    (lambda: posenc.rope_matching_trend(torch.tensor([20.0]), 8, base=1.0), ValueError, "base"),
    (lambda: posenc.MultiHeadAttention(10, 3), ValueError, "n_heads"),
    (lambda: posenc.MultiHeadAttention(8, 2, "rotary"), ValueError, "position"),
    (lambda: posenc.MultiHeadAttention(6, 2, "rope"), ValueError, "head dimension"),
    (lambda: posenc.MultiHeadAttention(8, 2)(torch.randn(1, 3, 4)), ValueError, "d_model"),
    (lambda: posenc.causal_mask(3, 1), ValueError, "k_len"),
    (lambda: posenc.linear_attention(x4, x4[..., :2], x4), ValueError, "q, k, v"),
    (lambda: posenc.linear_attention(x4, x4, x4.long()), TypeError, "v"),
    (lambda: posenc.linear_attention(x4[..., :2, :], x4, x4, causal=True), ValueError, "q_len == k_len"),
    (lambda: posenc.kernel_attention(x4, x4, x4[..., :2, :]), ValueError, "q, k, v"),
    (lambda: posenc.book.min_pairwise_distance(torch.zeros(1, 4)), ValueError, "pe"),
    (lambda: posenc.book.min_pairwise_distance(torch.zeros(4)), ValueError, "pe"),
    (lambda: posenc.book.first_repeat([[0.0, 1.0]]), TypeError, "pe"),
    (lambda: posenc.book.diagonal_spread(torch.zeros(3)), ValueError, "matrix"),
    (lambda: posenc.book.diagonal_spread(torch.zeros(3, 3, dtype=torch.long)), TypeError, "matrix"),
    (lambda: posenc.book.shift_map(torch.zeros(5, 2), 5), ValueError, "k"),
    (lambda: posenc.book.shift_map_residual(torch.zeros(5, 2), 0), ValueError, "k"),
    (lambda: posenc.book.toy_vocabulary("the dog"), TypeError, "tokens"),
    (lambda: posenc.book.toy_embeddings(["a", "b"], 4, vocabulary=["a"]), ValueError, "vocabulary"),
    (lambda: posenc.book.toy_embeddings(["a"], 0), ValueError, "d_model"),
    (lambda: posenc.rope_inv_freq(7), ValueError, "head_dim"),
    (lambda: posenc.rope_inv_freq(8, dtype=torch.int64), TypeError, "dtype"),
]

HUGE = 10**9  # sizes whose results cannot fit in memory: refused before allocating

BAD_CALLS += [
    # silent results, now errors
    (lambda: posenc.rope_cos_sin(4, 8, inv_freq=torch.full((4,), float("nan"))), ValueError, "inv_freq"),
    (lambda: posenc.RotaryEmbedding(8, inv_freq=torch.tensor([1.0, float("inf"), 0.1, 0.01])), ValueError, "inv_freq"),
    (lambda: posenc.rope_angles(3, torch.tensor([1.0, float("nan")])), ValueError, "inv_freq"),
    (lambda: posenc.rope_scaled_inv_freq(8, rope_type="linear", factor=float("nan")), ValueError, "factor"),
    (lambda: posenc.rope_scaled_inv_freq(8, factor=float("nan")), ValueError, "factor"),
    (lambda: posenc.rope_cos_sin(torch.tensor([True, False]), 8), TypeError, "positions"),
    (lambda: posenc.rope_cos_sin(4, 8, dtype=torch.int64), TypeError, "dtype"),
    (lambda: posenc.sinusoidal_encoding(4, 8, dtype=torch.bool), TypeError, "dtype"),
    (lambda: posenc.sinusoidal_encoding_at(torch.tensor([True]), 8), TypeError, "positions"),
    (lambda: posenc.t5_relative_bucket(torch.tensor([True])), TypeError, "relative_position"),
    (lambda: posenc.LearnedPositionalEmbedding(4, 4)(torch.tensor([True])), TypeError, "positions"),
    (lambda: posenc.apply_rope(torch.randn(1, 8), *posenc.rope_cos_sin(3, 8)), ValueError, "cos"),
    (lambda: posenc.apply_rope(torch.randn(5, 8), torch.ones(3, 5, 8), torch.ones(3, 5, 8)), ValueError, "cos"),
    (lambda: posenc.apply_rope(torch.randn(8), torch.ones(2, 3, 8), torch.ones(2, 3, 8)), ValueError, "cos"),
    (
        lambda: posenc.apply_rope_rotate_half(torch.randn(5, 8), torch.ones(3, 5, 8), torch.ones(3, 5, 8)),
        ValueError,
        "cos",
    ),
    (
        lambda: posenc.apply_rope_complex(torch.randn(1, 8), torch.ones(3, 4, dtype=torch.complex64)),
        ValueError,
        "freqs_cis",
    ),
    (
        lambda: posenc.RotaryEmbedding(8)(torch.randn(5, 8), torch.zeros(2, 5, dtype=torch.long)),
        ValueError,
        "position_ids",
    ),
    (lambda: posenc.rotate_half(torch.randn(3, 5)), ValueError, "head_dim"),
    (lambda: posenc.kernel_attention(x4, x4, x4, rope_q=(c4, s4, "half")), ValueError, "rope_k"),
    (lambda: posenc.linear_attention(x4, x4, x4, rope_k=(c4, s4, "half")), ValueError, "rope_q"),
    (
        lambda: posenc.linear_attention(x4, x4, x4, rope_q=(c4, s4, "neox"), rope_k=(c4, s4, "half")),
        ValueError,
        "layout",
    ),
    (lambda: posenc.linear_attention(x4, x4[..., :0, :], x4[..., :0, :]), ValueError, "at least one key"),
    (lambda: posenc.kernel_attention(x4, x4[..., :0, :], x4[..., :0, :]), ValueError, "at least one key"),
    (lambda: posenc.kernel_attention(x4, x4, x4, weight=torch.ones(2, 2)), ValueError, "weight"),
    (lambda: posenc.KVCache().append(x4, x4[..., :2, :]), ValueError, "same shape"),
    (
        lambda: posenc.rope_scaled_inv_freq(
            64, rope_type="yarn", factor=4.0, original_max_position_embeddings=64, beta_fast=1.0, beta_slow=32.0
        ),
        ValueError,
        "beta_fast",
    ),
    (lambda: posenc.book.first_repeat(torch.zeros(3, 2), atol=-1.0), ValueError, "atol"),
    # huge sizes, refused before allocation
    (lambda: posenc.rope_cos_sin(HUGE, 128), ValueError, "positions=1000000000"),
    (lambda: posenc.rope_angles(HUGE, posenc.rope_inv_freq(128)), ValueError, "positions"),
    (lambda: posenc.rope_freqs_cis(HUGE, 128), ValueError, "positions"),
    (lambda: posenc.rope_cos_sin_2d(HUGE, HUGE, 8), ValueError, "rows * cols"),
    (lambda: posenc.rope_inv_freq(2 * HUGE**2), ValueError, "head_dim"),
    (lambda: posenc.rope_matrix(0, 2 * HUGE), ValueError, "head_dim"),
    (lambda: posenc.apply_rope_matrix(torch.zeros(HUGE // 10**3, 64), HUGE // 10**3), ValueError, "positions"),
    (lambda: posenc.interleaved_to_half_permutation(2 * HUGE**2), ValueError, "head_dim"),
    (lambda: posenc.rope_scaled_inv_freq(2 * HUGE**2), ValueError, "head_dim"),
    (lambda: posenc.RotaryEmbedding(128, HUGE), ValueError, "max_seq_len"),
    (lambda: posenc.RotaryEmbedding(128)(torch.zeros(1, 128), torch.full((1,), HUGE)), ValueError, "position_ids"),
    (lambda: posenc.alibi_slopes(HUGE), ValueError, "n_heads"),
    (lambda: posenc.alibi_bias(8, 10**6), ValueError, "q_len=1000000"),
    (lambda: posenc.alibi_bias_bloom(8, 10**6), ValueError, "q_len=1000000"),
    (lambda: posenc.relative_positions(10**6), ValueError, "q_len"),
    (lambda: posenc.causal_mask(10**6), ValueError, "q_len"),
    (lambda: posenc.shaw_relative_index(10**6, 4), ValueError, "q_len"),
    (lambda: posenc.ShawRelativePosition(64, HUGE), ValueError, "max_distance"),
    (lambda: posenc.T5RelativeBias(HUGE), ValueError, "n_heads"),
    (lambda: posenc.T5RelativeBias(4)(10**6), ValueError, "q_len"),
    (lambda: posenc.sinusoidal_encoding(HUGE, 512), ValueError, "seq_len"),
    (lambda: posenc.sinusoidal_frequencies(2 * HUGE**2), ValueError, "d_model"),
    (lambda: posenc.sinusoidal_shift_matrix(1, 2 * HUGE), ValueError, "d_model"),
    (lambda: posenc.integer_encoding(HUGE, 512), ValueError, "seq_len"),
    (lambda: posenc.binary_encoding(HUGE, 62), ValueError, "seq_len"),
    (lambda: posenc.LearnedPositionalEmbedding(HUGE, 512), ValueError, "max_len"),
    (lambda: posenc.LearnedPositionalEmbedding(4, 4).resized(HUGE**2), ValueError, "new_max_len"),
    (lambda: posenc.MultiHeadAttention(HUGE, 1), ValueError, "d_model"),
    (lambda: posenc.set_max_tensor_bytes(0), ValueError, "n_bytes"),
    (lambda: posenc.set_max_tensor_bytes(2.0**40), TypeError, "n_bytes"),
    (lambda: posenc.max_tensor_bytes(-1).__enter__(), ValueError, "n_bytes"),
    (lambda: posenc.reset_in_order("model"), TypeError, "module"),
    # a bias of [1, 4, L, L] (without one SDPA builds no [L, L] tensor: tests/test_attention.py)
    (
        lambda: posenc.MultiHeadAttention(64, 4, "alibi")(torch.zeros(1, 1, 64).expand(8, 10**5, 64)),
        ValueError,
        "x of shape",
    ),
    (
        lambda: posenc.shaw_attention(*[torch.zeros(1, 10**5, 4)] * 3, torch.zeros(3, 4), torch.zeros(3, 4)),
        ValueError,
        "q of shape",
    ),
    (
        lambda: posenc.shaw_attention_naive(*[torch.zeros(1, 10**4, 64)] * 3, torch.zeros(3, 64), torch.zeros(3, 64)),
        ValueError,
        "q of shape",
    ),
    (lambda: posenc.kernel_attention(*[torch.zeros(1, 10**5, 4)] * 3), ValueError, "q of shape"),
    (lambda: posenc.linear_attention(*[torch.zeros(1, 10**5, 256)] * 3, causal=True), ValueError, "k of shape"),
    (lambda: posenc.rope_decay_bound(HUGE, torch.zeros(10**4)), ValueError, "distances"),
    (lambda: posenc.rope_matching_stretch_means(HUGE, max_start=10**6), ValueError, "max_start"),
    (lambda: posenc.book.min_pairwise_distance(torch.zeros(10**6, 1)), ValueError, "pe of shape"),
    (lambda: posenc.book.toy_embeddings(["a"], HUGE**2), ValueError, "d_model"),
    # errors that used to come from deep inside, or name an inner parameter
    (
        lambda: posenc.rope_scaled_inv_freq(
            2, rope_type="dynamic", factor=2.0, original_max_position_embeddings=8, seq_len=16
        ),
        ValueError,
        "head_dim",
    ),
    (lambda: posenc.MultiHeadAttention(8, 2, "shaw", max_distance=-1), ValueError, "max_distance"),
    (lambda: posenc.MultiHeadAttention(8, 2, "t5", num_buckets=1), ValueError, "num_buckets"),
    (lambda: posenc.MultiHeadAttention(8, 2, "t5", max_distance=2), ValueError, "max_distance"),
    (lambda: posenc.MultiHeadAttention(8, 2, "t5", shaw_max_distance=2), TypeError, "shaw_max_distance"),
    (lambda: posenc.MultiHeadAttention(9, 3, "sinusoidal"), ValueError, "d_model"),
    (
        lambda: posenc.MultiHeadAttention(8, 2)(torch.randn(1, 3, 8), position_ids=torch.arange(5)),
        ValueError,
        "position_ids",
    ),
    (lambda: posenc.MultiHeadAttention(8, 2)(torch.randn(1, 3, 8), cache="no"), TypeError, "cache"),
    (lambda: posenc.apply_rope(torch.randn(5, 8), torch.ones(4, 8), torch.ones(4, 8)), ValueError, "cos"),
    (lambda: posenc.rope_decay_bound(8, "far"), TypeError, "distances"),
    (lambda: posenc.KVCache(x4, x4).append(torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4)), ValueError, "cached"),
    (lambda: posenc.T5RelativeBias(4).bias_by_distance(torch.tensor([0.5])), TypeError, "distance"),
    (lambda: posenc.permute_qk_weight_for_half(torch.zeros(8, 4), 0), ValueError, "n_heads"),
]


NAN = float("nan")

#: toy data (posenc.book.toy)
TOY_BAD_CALLS = [
    (lambda: posenc.book.toy_vocabulary(None), TypeError, "tokens"),
    (lambda: posenc.book.toy_vocabulary(3), TypeError, "tokens"),
    (lambda: posenc.book.toy_vocabulary(["a", 1]), TypeError, "tokens must hold str"),
    (lambda: posenc.book.toy_embeddings("a b", 4), TypeError, "tokens"),
    (lambda: posenc.book.toy_embeddings(["a", None], 4), TypeError, "tokens"),
    (lambda: posenc.book.toy_embeddings(["a"], 4.0), TypeError, "d_model"),
    (lambda: posenc.book.toy_embeddings(["a"], True), TypeError, "d_model"),
    (lambda: posenc.book.toy_embeddings(["a"], 4, seed=0.5), TypeError, "seed"),
    (lambda: posenc.book.toy_embeddings(["a"], 4, seed=2**64), ValueError, "seed"),  # used to be torch's "Overflow"
    (lambda: posenc.book.toy_embeddings(["a"], 4, vocabulary="a"), TypeError, "vocabulary"),
    (lambda: posenc.book.toy_embeddings(["a"], 4, vocabulary=["a", 2]), TypeError, "vocabulary"),
    (lambda: posenc.book.toy_embeddings(["a"], 4, vocabulary=["a", "b", "a"]), ValueError, "vocabulary must list each"),
]

#: the properties' checks (posenc.book.properties)
PROPERTIES_BAD_CALLS = [
    # a NaN or inf table used to reach torch's internal lstsq assert (shift_map) or give nan/None silently
    (lambda: posenc.book.shift_map(torch.full((5, 2), NAN), 1), ValueError, "pe must be finite"),
    (
        lambda: posenc.book.shift_map_residual(torch.tensor([[0.0, 1.0], [float("inf"), 2.0], [1.0, 2.0]]), 1),
        ValueError,
        "pe must be finite",
    ),
    (lambda: posenc.book.min_pairwise_distance(torch.full((5, 2), NAN)), ValueError, "pe must be finite"),
    (lambda: posenc.book.first_repeat(torch.full((5, 2), NAN)), ValueError, "pe must be finite"),
    (lambda: posenc.book.shift_map(torch.zeros(1, 2), 1), ValueError, "pe must have at least 2 rows"),
    (lambda: posenc.book.shift_map(torch.zeros(4, 2), 1.0), TypeError, "k"),
    (lambda: posenc.book.shift_map(torch.zeros(4, 2), 1, affine=1), TypeError, "affine"),
    (lambda: posenc.book.shift_map_residual(torch.zeros(4, 2, dtype=torch.complex64), 1), TypeError, "pe"),
    (lambda: posenc.book.shift_map_residual(torch.zeros(4, 2), 1, affine="yes"), TypeError, "affine"),
    (lambda: posenc.book.min_pairwise_distance(torch.zeros(3, 2, dtype=torch.complex64)), TypeError, "pe"),
    (lambda: posenc.book.first_repeat(torch.zeros(3, 2), atol=NAN), ValueError, "atol"),
    (lambda: posenc.book.first_repeat(torch.zeros(3, 2), atol="0"), TypeError, "atol"),
    (lambda: posenc.book.first_repeat(torch.zeros(3)), ValueError, "pe"),
    (lambda: posenc.book.diagonal_spread(torch.full((3, 3), NAN)), ValueError, "matrix"),
    (lambda: posenc.book.diagonal_spread([[1.0]]), TypeError, "matrix"),
    (lambda: posenc.book.attention_entropy(torch.tensor([0.0, NAN])), ValueError, "logits"),
    (lambda: posenc.book.attention_entropy(torch.tensor(1.0)), ValueError, "logits"),
    (lambda: posenc.book.attention_entropy(torch.zeros(3, dtype=torch.long)), TypeError, "logits"),
    (lambda: posenc.book.attention_entropy([0.0, 1.0]), TypeError, "logits"),
]

#: the position methods' constructors and public methods (posenc.methods); a hook given a tensor of
#: the wrong rank or width fails at MultiHeadAttention's boundary, which checks x and position_ids
METHOD_BAD_CALLS = [
    (lambda: posenc.SinusoidalMethod(0), ValueError, "d_model"),
    (lambda: posenc.SinusoidalMethod(8.0), TypeError, "d_model"),
    (lambda: posenc.SinusoidalMethod(8, base=NAN), ValueError, "base"),
    (lambda: posenc.SinusoidalMethod(8, base="big"), TypeError, "base"),
    (lambda: posenc.LearnedMethod(0, 8), ValueError, "d_model"),
    (lambda: posenc.LearnedMethod(8, 2.0), TypeError, "max_len"),
    (lambda: posenc.LearnedMethod(10**6, 10**6), ValueError, "max_len"),
    (lambda: posenc.ShawMethod(0), ValueError, "head_dim"),
    (lambda: posenc.ShawMethod(8, 2.5), TypeError, "max_distance"),
    (lambda: posenc.ShawMethod(8, 10**12), ValueError, "max_distance"),
    (lambda: posenc.T5Method(4, causal="no"), TypeError, "causal"),  # used to be read as True
    (lambda: posenc.T5Method(4, num_buckets=8.0), TypeError, "num_buckets"),
    (lambda: posenc.T5Method(4, max_distance=NAN), TypeError, "max_distance"),
    (lambda: posenc.T5Method(10**9), ValueError, "n_heads"),
    (lambda: posenc.RopeMethod(8.0), TypeError, "head_dim"),
    (lambda: posenc.RopeMethod(8, base="big"), TypeError, "base"),
    (lambda: posenc.RopeMethod(8, seq_len=-1), ValueError, "seq_len"),
    (lambda: posenc.RopeMethod(8, layout=None), TypeError, "layout"),
    (lambda: posenc.RopeMethod(128, 10**12), ValueError, "max_len=1000000000000"),  # used to name max_seq_len
    (lambda: posenc.RopeMethod(8).set_scaling(3), TypeError, "rope_type"),
    (
        lambda: posenc.RopeMethod(8).set_scaling(
            "dynamic", factor=2.0, original_max_position_embeddings=8, seq_len=NAN
        ),
        TypeError,
        "seq_len",
    ),
    (lambda: posenc.AlibiMethod(2.0), TypeError, "n_heads"),
    (lambda: posenc.AlibiMethod(10**9), ValueError, "n_heads"),
    (lambda: posenc.KerpleBias(0), ValueError, "n_heads"),
    (lambda: posenc.KerpleBias(2, kind="exp"), ValueError, "kind"),
    (lambda: posenc.KerpleBias(2, causal="yes"), TypeError, "causal"),  # used to be read as True
    (lambda: posenc.KerpleBias(2, r1=NAN), ValueError, "r1"),
    (lambda: posenc.KerpleBias(2, r1=[1.0, NAN]), ValueError, "r1"),
    (lambda: posenc.KerpleBias(2, r1=[1.0]), ValueError, "r1"),
    (lambda: posenc.KerpleBias(2, r1=[1.0, "a"]), TypeError, "r1"),
    (lambda: posenc.KerpleBias(2, r1="a"), TypeError, "r1"),
    (lambda: posenc.KerpleBias(2, r1=-1.0), ValueError, "r1"),
    (lambda: posenc.KerpleBias(2, kind="power", r2=3.0), ValueError, "r2"),
    (lambda: posenc.KerpleBias(2, eps=0.0), ValueError, "eps"),
    (lambda: posenc.KerpleBias(2).bias(-1), ValueError, "q_len"),
    (lambda: posenc.KerpleBias(2).bias(3, causal=1), TypeError, "causal"),
    (lambda: posenc.KerpleBias(2).bias_by_distance([1, 2]), TypeError, "distance"),
    (lambda: posenc.KerpleBias(2).bias_by_distance(torch.tensor([True])), TypeError, "distance"),
    (lambda: posenc.FireBias(0), ValueError, "n_heads"),
    (lambda: posenc.FireBias(2, hidden=0), ValueError, "hidden"),
    (lambda: posenc.FireBias(2, c_init=NAN), ValueError, "c_init"),
    (lambda: posenc.FireBias(2, L_thr_init=0), ValueError, "L_thr_init"),
    (lambda: posenc.FireBias(2, eps=-1.0), ValueError, "eps"),
    (lambda: posenc.FireBias(2, causal=None), TypeError, "causal"),  # used to be read as False
    (lambda: posenc.FireBias(2).bias(4, 2), ValueError, "k_len"),
    (lambda: posenc.FireBias(2).bias(3, causal="no"), TypeError, "causal"),
    (lambda: posenc.FireBias(2).normalized_distance(torch.tensor([NAN]), torch.arange(3)), ValueError, "query_pos"),
    (lambda: posenc.FireBias(2).normalized_distance(torch.tensor([True]), torch.arange(3)), TypeError, "query_pos"),
    (lambda: posenc.FireBias(2).bias_at(torch.arange(3), torch.zeros(1, 3)), ValueError, "key_pos"),
    (lambda: posenc.CoPE(0, npos_max=8), ValueError, "head_dim"),
    (lambda: posenc.CoPE(8), TypeError, "npos_max"),
    (lambda: posenc.CoPE(8, npos_max=1), ValueError, "npos_max"),
    (lambda: posenc.CoPE(8, npos_max=2.5), TypeError, "npos_max"),
    (lambda: posenc.CoPE(8, npos_max=8, causal="x"), TypeError, "causal"),  # used to be read as True
    (lambda: posenc.CoPE(8, npos_max=8).positions(torch.randn(3, 4), torch.randn(3, 4)), ValueError, "head_dim=8"),
    (
        lambda: posenc.CoPE(8, npos_max=8).positions(torch.randn(3, 8), torch.randn(2, 8)),
        ValueError,
        "at least as many positions",
    ),
    (
        lambda: posenc.CoPE(8, npos_max=8).positions(torch.zeros(3, 8, dtype=torch.long), torch.randn(3, 8)),
        TypeError,
        "q must be a floating",
    ),
    (lambda: posenc.CoPE(8, npos_max=8).positions(torch.randn(3, 8), torch.randn(3, 8), causal=1), TypeError, "causal"),
    # options through the registry name the option
    (lambda: posenc.build_method("kerple", d_model=8, n_heads=2, kind=3), TypeError, "kind"),
    (lambda: posenc.build_method("fire", d_model=8, n_heads=2, L_thr_init=NAN), ValueError, "L_thr_init"),
    (lambda: posenc.build_method("cope", d_model=8, n_heads=2, npos_max=1), ValueError, "npos_max"),
    (lambda: posenc.build_method("t5", d_model=8, n_heads=2, max_distance=NAN), TypeError, "max_distance"),
    (lambda: posenc.build_method("rope", d_model=8, n_heads=2, max_len=0), ValueError, "max_len"),
    (lambda: posenc.method_options("rotary"), ValueError, "position"),
    (lambda: posenc.method_options(3), TypeError, "position"),
]
# a hook given x of the wrong rank or width: refused by MultiHeadAttention before any hook runs
_METHODS = {
    "none": lambda: posenc.NoPEMethod(),
    "sinusoidal": lambda: posenc.SinusoidalMethod(8),
    "learned": lambda: posenc.LearnedMethod(8, 16),
    "shaw": lambda: posenc.ShawMethod(4),
    "t5": lambda: posenc.T5Method(2),
    "rope": lambda: posenc.RopeMethod(4),
    "alibi": lambda: posenc.AlibiMethod(2),
    "kerple": lambda: posenc.KerpleBias(2),
    "fire": lambda: posenc.FireBias(2),
    "cope": lambda: posenc.CoPE(4, npos_max=16),
}
METHOD_BAD_CALLS += (
    [
        (lambda make=make: posenc.MultiHeadAttention(8, 2, make())(torch.randn(3, 8)), ValueError, "x must have 3")
        for make in _METHODS.values()
    ]
    + [
        (lambda make=make: posenc.MultiHeadAttention(8, 2, make())(torch.randn(1, 3, 6)), ValueError, "d_model=8")
        for make in _METHODS.values()
    ]
    + [
        (
            lambda make=make: posenc.MultiHeadAttention(8, 2, make())(
                torch.randn(1, 3, 8), position_ids=torch.arange(3.0)
            ),
            TypeError,
            "position_ids",
        )
        for make in _METHODS.values()
    ]
)

#: RoPE's scaling configurations (posenc.scaling)
SCALING_BAD_CALLS = [
    (lambda: posenc.RopeScaling().inv_freq(7), ValueError, "head_dim"),
    (lambda: posenc.RopeScaling().inv_freq(8, base=1.0), ValueError, "base"),
    (lambda: posenc.DefaultScaling().inv_freq(8, seq_len=-1), ValueError, "seq_len"),
    (lambda: posenc.RopeScaling.from_hf("linear"), TypeError, "config"),
    (lambda: posenc.RopeScaling.from_hf({"rope_type": "ntk"}), ValueError, "rope_type"),
    (lambda: posenc.LinearScaling(factor=0.5), ValueError, "factor"),
    (lambda: posenc.LinearScaling(factor=NAN), ValueError, "factor"),
    (lambda: posenc.LinearScaling(factor="2"), TypeError, "factor"),
    (lambda: posenc.DynamicScaling(factor=2.0), ValueError, "original_max_position_embeddings"),
    (lambda: posenc.DynamicScaling(2.0, 0), ValueError, "original_max_position_embeddings"),
    (lambda: posenc.DynamicScaling(2.0, 8).inv_freq(2, seq_len=16), ValueError, "head_dim"),
    (lambda: posenc.YarnScaling(2.0, 64, beta_fast=1.0, beta_slow=32.0), ValueError, "beta_fast"),
    (lambda: posenc.YarnScaling(2.0, 64, truncate=1), TypeError, "truncate"),
    (lambda: posenc.YarnScaling(2.0, 64, attention_factor=0.0), ValueError, "attention_factor"),
    (lambda: posenc.Llama3Scaling(2.0, 64, low_freq_factor=4.0, high_freq_factor=1.0), ValueError, "high_freq_factor"),
    (lambda: posenc.Llama3Scaling(2.0, 64, low_freq_factor=NAN), ValueError, "low_freq_factor"),
    (lambda: posenc.LongRopeScaling(2.0, 64, short_factor=[1.0], long_factor=[1.0, 1.0]), ValueError, "short_factor"),
    (lambda: posenc.LongRopeScaling(2.0, 64, short_factor=[1.0], long_factor=None), ValueError, "long_factor"),
    (
        lambda: posenc.LongRopeScaling(2.0, 64, short_factor=[1.0] * 2, long_factor=[1.0] * 2).inv_freq(8),
        ValueError,
        "head_dim // 2",
    ),
    (lambda: posenc.yarn_mscale(0.0), ValueError, "factor"),
    (lambda: posenc.yarn_mscale(2.0, mscale=-1.0), ValueError, "mscale"),
    (lambda: posenc.yarn_mscale("2"), TypeError, "factor"),
    (lambda: posenc.mrope_axes(7, [2, 1, 0]), ValueError, "head_dim"),
]


CASES = {
    "bad": BAD_CALLS,
    "toy": TOY_BAD_CALLS,
    "properties": PROPERTIES_BAD_CALLS,
    "method": METHOD_BAD_CALLS,
    "scaling": SCALING_BAD_CALLS,
}


@pytest.mark.parametrize(
    "call,exc,name",
    [c for cases in CASES.values() for c in cases],
    ids=[f"{key}{i}" for key, cases in CASES.items() for i in range(len(cases))],
)
def test_bad_input_raises_clear_error(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value)


def test_messages_name_the_allowed_range():
    with pytest.raises(ValueError, match=r"base must be > 1, got 1"):
        posenc.sinusoidal_encoding(4, 8, base=1)
    with pytest.raises(ValueError, match=r"must be even"):
        posenc.rope_inv_freq(5)
    with pytest.raises(ValueError, match=r"one of \('half', 'interleaved'\)"):
        posenc.rope_cos_sin(4, 8, layout="neox")


def test_valid_unusual_inputs_are_accepted():
    # any iterable of str (read once), a negative seed (torch takes it), the same vectors either way
    words = "the dog chased another dog".split()
    table = posenc.book.toy_embeddings(words, 8)
    assert torch.equal(posenc.book.toy_embeddings(iter(words), 8), table)
    assert posenc.book.toy_vocabulary(w for w in words) == ["the", "dog", "chased", "another"]
    assert posenc.book.toy_embeddings(words, 8, seed=-1).shape == (5, 8)
    # a causal mask on logits that depend on j - i only: whole diagonals of -inf have no spread
    logits = posenc.relative_positions(5).double().masked_fill(~posenc.causal_mask(5), float("-inf"))
    assert posenc.book.diagonal_spread(logits) == 0.0
    logits[0, 0] = float("-inf")  # one masked entry on a diagonal of finite ones: not a function of j - i
    assert posenc.book.diagonal_spread(logits) == float("inf")
    # KERPLE's initial values as a NumPy array or a 0-d tensor, as a list
    import numpy as np

    a = posenc.KerpleBias(2, r1=np.array([0.5, 1.0]), r2=torch.tensor(0.25))
    b = posenc.KerpleBias(2, r1=[0.5, 1.0], r2=0.25)
    assert torch.equal(a.r1, b.r1) and torch.equal(a.r2, b.r2)


@pytest.mark.parametrize(
    "position", ["none", "sinusoidal", "learned", "shaw", "t5", "rope", "alibi", "kerple", "fire", "cope"]
)
def test_a_nan_input_gives_nan_not_an_index_error(position):
    # CoPE used to turn a NaN position into an out-of-range index (RuntimeError; a device assert on GPU)
    attn = posenc.MultiHeadAttention(8, 2, position, max_len=16)
    x = torch.randn(1, 4, 8)
    x[0, 1] = float("nan")
    with torch.no_grad():
        out = attn(x)
    assert out.shape == (1, 4, 8) and bool(out[0, 1].isnan().any())


# --------------------------------------------------------------------------- the size limit, public


def test_the_size_limit_is_public_and_restorable():
    default = posenc.get_max_tensor_bytes()
    assert default == 8 * 2**30
    with pytest.raises(ValueError, match=r"q_len=64, k_len=64 .*above 1 KiB.*posenc.set_max_tensor_bytes"):
        with posenc.max_tensor_bytes(1024) as limit:
            assert limit == 1024 == posenc.get_max_tensor_bytes()
            posenc.causal_mask(64)  # 64 * 64 * 9 bytes (mask and its indices)
    assert posenc.get_max_tensor_bytes() == default  # restored on the way out of an exception
    previous = posenc.set_max_tensor_bytes(2**40)
    try:
        assert previous == default and posenc.get_max_tensor_bytes() == 2**40
        assert posenc.causal_mask(64).shape == (64, 64)
    finally:
        assert posenc.set_max_tensor_bytes(None) == 2**40  # None: the default again
    assert posenc.get_max_tensor_bytes() == default


@pytest.mark.parametrize(
    "bad,exc", [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError), ("8GB", TypeError)]
)
def test_the_size_limit_refuses_bad_values_naming_the_argument(bad, exc):
    with pytest.raises(exc, match="n_bytes"):
        posenc.set_max_tensor_bytes(bad)
    with pytest.raises(exc, match="n_bytes"):
        with posenc.max_tensor_bytes(bad):
            pass
    assert posenc.get_max_tensor_bytes() == 8 * 2**30


@pytest.mark.parametrize(
    "call",
    [
        lambda: posenc.causal_mask(2**20),
        lambda: posenc.sinusoidal_encoding(2**30, 64),
        lambda: posenc.LearnedPositionalEmbedding(2**30, 64),
        lambda: posenc.MultiHeadAttention(2**17, 4),
        lambda: posenc.alibi_bias(8, 2**16),
    ],
    ids=["causal_mask", "sinusoidal_encoding", "learned_table", "attention_projections", "alibi_bias"],
)
def test_size_errors_name_the_public_limit_not_an_internal_one(call):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert "posenc.set_max_tensor_bytes" in message and "posenc refuses results above 8 GiB" in message
    assert "_core" not in message and "MAX_TENSOR_BYTES" not in message


@pytest.mark.parametrize(
    ("call", "blamed"),
    [
        (lambda: posenc.rope_cos_sin(1, head_dim=2 * 10**10), "head_dim=20000000000"),
        (lambda: posenc.encodings.rope_forms.rope_freqs_cis(1, 2 * 10**10), "head_dim=20000000000"),
        (lambda: posenc.encodings.rope_forms.apply_rope_matrix(torch.zeros(1, 40_000), 1), r"x.shape\[-1\]=40000"),
        (lambda: posenc.rope_cos_sin(2 * 10**10, 64), "positions=20000000000"),
    ],
    ids=["cos_sin_width", "freqs_cis_width", "matrix_width", "cos_sin_positions"],
)
def test_a_size_error_blames_the_argument_that_is_too_large(call, blamed):
    # one position with a huge head_dim is the width's fault, not the positions'
    with pytest.raises(ValueError, match=f"^{blamed} asks for"):
        call()
