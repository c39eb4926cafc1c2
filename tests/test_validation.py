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
    (lambda: posenc.apply_rope(x4, c4[:, :2], s4[:, :2]), ValueError, "cos"),
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
    (lambda: posenc.shift_map(torch.zeros(5, 2), 5), ValueError, "k"),
    (lambda: posenc.shift_map_residual(torch.zeros(5, 2), 0), ValueError, "k"),
    (lambda: posenc.toy_vocabulary("the dog"), TypeError, "tokens"),
    (lambda: posenc.toy_embeddings(["a", "b"], 4, vocabulary=["a"]), ValueError, "vocabulary"),
    (lambda: posenc.toy_embeddings(["a"], 0), ValueError, "d_model"),
]


@pytest.mark.parametrize("call,exc,name", BAD_CALLS, ids=[f"bad{i}" for i in range(len(BAD_CALLS))])
def test_bad_input_raises_clear_error(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value)


def test_every_public_function_has_a_bad_input_case():
    import inspect

    src = inspect.getsource(inspect.getmodule(test_every_public_function_has_a_bad_input_case))
    skip = ("POSITION_METHODS", "KVCache", "elu_feature_map")  # constants, a dataclass, a pure map
    untested = [n for n in posenc.__all__ if n not in skip and f"posenc.{n}(" not in src]
    assert untested == []


def test_messages_name_the_allowed_range():
    with pytest.raises(ValueError, match=r"base must be > 1, got 1"):
        posenc.sinusoidal_encoding(4, 8, base=1)
    with pytest.raises(ValueError, match=r"must be even"):
        posenc.rope_inv_freq(5)
    with pytest.raises(ValueError, match=r"one of \('half', 'interleaved'\)"):
        posenc.rope_cos_sin(4, 8, layout="neox")
