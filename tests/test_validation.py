"""Every public function rejects bad input with an error that names the parameter."""
import pytest
import torch

import posenc

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
    (lambda: posenc.shaw_attention_naive(x4[..., :2], x4, x4, torch.zeros(3, 4), torch.zeros(3, 4)), ValueError,
     "head dimension"),
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
    (lambda: posenc.rotate_half([1, 2]), (TypeError, AttributeError), ""),
    (lambda: posenc.rope_matrix(1.5, 8), TypeError, "position"),
    (lambda: posenc.apply_rope_rotate_half(x4, c4[:, :2], s4), ValueError, "cos"),
    (lambda: posenc.rope_freqs_cis(4, 5), ValueError, "head_dim"),
    (lambda: posenc.apply_rope_complex(x4, torch.ones(3, 2)), TypeError, "freqs_cis"),
    (lambda: posenc.apply_rope_matrix(x4, 5), ValueError, "positions"),
    (lambda: posenc.rope_matrix(1, 9), ValueError, "head_dim"),
    (lambda: posenc.rope_scaled_inv_freq(8, rope_type="ntk"), ValueError, "rope_type"),
    (lambda: posenc.rope_scaled_inv_freq(8, rope_type="linear", factor=0.5), ValueError, "factor"),
    (lambda: posenc.rope_scaled_inv_freq(8, rope_type="yarn", factor=2.0), ValueError,
     "original_max_position_embeddings"),
    (lambda: posenc.rope_scaled_inv_freq(8, rope_type="llama3", factor=2.0, original_max_position_embeddings=64,
                                         low_freq_factor=4.0, high_freq_factor=1.0), ValueError, "high_freq_factor"),
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
    (lambda: posenc.MultiHeadAttention(10, 3), ValueError, "n_heads"),
    (lambda: posenc.MultiHeadAttention(8, 2, "rotary"), ValueError, "position"),
    (lambda: posenc.MultiHeadAttention(6, 2, "rope"), ValueError, "head dimension"),
    (lambda: posenc.MultiHeadAttention(8, 2)(torch.randn(1, 3, 4)), ValueError, "d_model"),
    (lambda: posenc.causal_mask(3, 1), ValueError, "k_len"),
    (lambda: posenc.linear_attention(x4, x4[..., :2], x4), ValueError, "q, k, v"),
    (lambda: posenc.linear_attention(x4, x4, x4.long()), TypeError, "v"),
    (lambda: posenc.linear_attention(x4[..., :2, :], x4, x4, causal=True), ValueError, "q_len == k_len"),
    (lambda: posenc.kernel_attention(x4, x4, x4[..., :2, :]), ValueError, "q, k, v"),
    (lambda: posenc.min_pairwise_distance(torch.zeros(1, 4)), ValueError, "pe"),
    (lambda: posenc.min_pairwise_distance(torch.zeros(4)), ValueError, "pe"),
    (lambda: posenc.first_repeat([[0.0, 1.0]]), TypeError, "pe"),
    (lambda: posenc.diagonal_spread(torch.zeros(3)), ValueError, "matrix"),
    (lambda: posenc.diagonal_spread(torch.zeros(3, 3, dtype=torch.long)), TypeError, "matrix"),
    (lambda: posenc.shift_map(torch.zeros(5, 2), 5), ValueError, "k"),
    (lambda: posenc.shift_map_residual(torch.zeros(5, 2), 0), ValueError, "k"),
    (lambda: posenc.toy_vocabulary("the dog"), TypeError, "tokens"),
    (lambda: posenc.toy_embeddings(["a", "b"], 4, vocabulary=["a"]), ValueError, "vocabulary"),
    (lambda: posenc.toy_embeddings(["a"], 0), ValueError, "d_model"),
    (lambda: posenc.inv_freq(7), ValueError, "dim"),
    (lambda: posenc.inv_freq(8, dtype=torch.int64), TypeError, "dtype"),
]

HUGE = 10**9  # sizes whose results cannot fit in memory: refused before allocating

BAD_CALLS += [
    # silent results, now errors
    (lambda: posenc.rope_cos_sin(4, 8, inv_freq=torch.full((4,), float("nan"))), ValueError, "inv_freq"),
    (lambda: posenc.RotaryEmbedding(8, inv_freq=torch.tensor([1.0, float("inf"), 0.1, 0.01])), ValueError,
     "inv_freq"),
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
    (lambda: posenc.apply_rope_rotate_half(torch.randn(5, 8), torch.ones(3, 5, 8), torch.ones(3, 5, 8)),
     ValueError, "cos"),
    (lambda: posenc.apply_rope_complex(torch.randn(1, 8), torch.ones(3, 4, dtype=torch.complex64)), ValueError,
     "freqs_cis"),
    (lambda: posenc.RotaryEmbedding(8)(torch.randn(5, 8), torch.zeros(2, 5, dtype=torch.long)), ValueError,
     "position_ids"),
    (lambda: posenc.rotate_half(torch.randn(3, 5)), ValueError, "head_dim"),
    (lambda: posenc.kernel_attention(x4, x4, x4, rope_q=(c4, s4, "half")), ValueError, "rope_k"),
    (lambda: posenc.linear_attention(x4, x4, x4, rope_k=(c4, s4, "half")), ValueError, "rope_q"),
    (lambda: posenc.linear_attention(x4, x4, x4, rope_q=(c4, s4, "neox"), rope_k=(c4, s4, "half")), ValueError,
     "layout"),
    (lambda: posenc.linear_attention(x4, x4[..., :0, :], x4[..., :0, :]), ValueError, "at least one key"),
    (lambda: posenc.kernel_attention(x4, x4[..., :0, :], x4[..., :0, :]), ValueError, "at least one key"),
    (lambda: posenc.kernel_attention(x4, x4, x4, weight=torch.ones(2, 2)), ValueError, "weight"),
    (lambda: posenc.KVCache().append(x4, x4[..., :2, :]), ValueError, "same shape"),
    (lambda: posenc.rope_scaled_inv_freq(64, rope_type="yarn", factor=4.0, original_max_position_embeddings=64,
                                         beta_fast=1.0, beta_slow=32.0), ValueError, "beta_fast"),
    (lambda: posenc.first_repeat(torch.zeros(3, 2), atol=-1.0), ValueError, "atol"),
    # huge sizes, refused before allocation
    (lambda: posenc.rope_cos_sin(HUGE, 128), ValueError, "positions=1000000000"),
    (lambda: posenc.rope_angles(HUGE, posenc.rope_inv_freq(128)), ValueError, "positions"),
    (lambda: posenc.rope_freqs_cis(HUGE, 128), ValueError, "positions"),
    (lambda: posenc.rope_cos_sin_2d(HUGE, HUGE, 8), ValueError, "rows * cols"),
    (lambda: posenc.rope_inv_freq(2 * HUGE**2), ValueError, "head_dim"),
    (lambda: posenc.inv_freq(2 * HUGE**2), ValueError, "dim"),
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
    (lambda: posenc.MultiHeadAttention(64, 4)(torch.zeros(1, 1, 64).expand(8, 10**5, 64)), ValueError, "x of shape"),
    (lambda: posenc.shaw_attention(*[torch.zeros(1, 10**5, 4)] * 3, torch.zeros(3, 4), torch.zeros(3, 4)),
     ValueError, "q of shape"),
    (lambda: posenc.shaw_attention_naive(*[torch.zeros(1, 10**4, 64)] * 3, torch.zeros(3, 64), torch.zeros(3, 64)),
     ValueError, "q of shape"),
    (lambda: posenc.kernel_attention(*[torch.zeros(1, 10**5, 4)] * 3), ValueError, "q of shape"),
    (lambda: posenc.linear_attention(*[torch.zeros(1, 10**5, 256)] * 3, causal=True), ValueError, "k of shape"),
    (lambda: posenc.rope_decay_bound(HUGE, torch.zeros(10**4)), ValueError, "distances"),
    (lambda: posenc.min_pairwise_distance(torch.zeros(10**6, 1)), ValueError, "pe of shape"),
    (lambda: posenc.toy_embeddings(["a"], HUGE**2), ValueError, "d_model"),
    # errors that used to come from deep inside, or name an inner parameter
    (lambda: posenc.rope_scaled_inv_freq(2, rope_type="dynamic", factor=2.0, original_max_position_embeddings=8,
                                         seq_len=16), ValueError, "head_dim"),
    (lambda: posenc.MultiHeadAttention(8, 2, "shaw", max_distance=-1), ValueError, "max_distance"),
    (lambda: posenc.MultiHeadAttention(8, 2, "t5", num_buckets=1), ValueError, "num_buckets"),
    (lambda: posenc.MultiHeadAttention(8, 2, "t5", max_distance=2), ValueError, "max_distance"),
    (lambda: posenc.MultiHeadAttention(8, 2, "t5", shaw_max_distance=2), TypeError, "shaw_max_distance"),
    (lambda: posenc.MultiHeadAttention(9, 3, "sinusoidal"), ValueError, "d_model"),
    (lambda: posenc.MultiHeadAttention(8, 2)(torch.randn(1, 3, 8), position_ids=torch.arange(5)), ValueError,
     "position_ids"),
    (lambda: posenc.MultiHeadAttention(8, 2)(torch.randn(1, 3, 8), cache="no"), TypeError, "cache"),
    (lambda: posenc.apply_rope(torch.randn(5, 8), torch.ones(4, 8), torch.ones(4, 8)), ValueError, "cos"),
    (lambda: posenc.rope_decay_bound(8, "far"), TypeError, "distances"),
    (lambda: posenc.KVCache(x4, x4).append(torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4)), ValueError, "cached"),
    (lambda: posenc.T5RelativeBias(4).bias_by_distance(torch.tensor([0.5])), TypeError, "distance"),
    (lambda: posenc.permute_qk_weight_for_half(torch.zeros(8, 4), 0), ValueError, "n_heads"),
]


@pytest.mark.parametrize("call,exc,name", BAD_CALLS, ids=[f"bad{i}" for i in range(len(BAD_CALLS))])
def test_bad_input_raises_clear_error(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value)


def test_every_public_function_has_a_bad_input_case():
    """Each public callable is called as ``posenc.NAME(`` in some test file (its bad-input cases may
    live in the test file of its own module)."""
    from pathlib import Path

    src = "".join(p.read_text(encoding="utf-8") for p in sorted(Path(__file__).parent.glob("test_*.py")))
    # constants and registries, a dataclass (its append is tested), a pure map, classes without arguments
    skip = ("POSITION_METHODS", "LAYOUTS", "ROPE_TYPES", "ROPE_SCALINGS", "DEFAULT_BASE", "KVCache",
            "elu_feature_map", "PositionMethod", "NoPEMethod", "MODEL_ROPE_CONFIGS", "SCALING_EXAMPLES")
    untested = [n for n in posenc.__all__ if n not in skip and f"posenc.{n}(" not in src]
    assert untested == []


def test_messages_name_the_allowed_range():
    with pytest.raises(ValueError, match=r"base must be > 1, got 1"):
        posenc.sinusoidal_encoding(4, 8, base=1)
    with pytest.raises(ValueError, match=r"must be even"):
        posenc.rope_inv_freq(5)
    with pytest.raises(ValueError, match=r"one of \('half', 'interleaved'\)"):
        posenc.rope_cos_sin(4, 8, layout="neox")
