"""posenc: position encodings for Transformers, as taught in the posenc book.

The numeric core (importable from here) follows the book's API contract: torch tensors in and out,
queries aligned at the end of the keys when ``k_len > q_len``.

Modules, one concept each, in the order of the book's chapters:

- :mod:`posenc.absolute`: integer, binary, sinusoidal and learned absolute encodings
- :mod:`posenc.relative`: relative positions, Shaw et al.'s attention, T5 buckets
- :mod:`posenc.rope`: rotary position embedding, its layouts and context-extension scalings
- :mod:`posenc.decay`: RoPE's long-term decay bound
- :mod:`posenc.alibi`: ALiBi slopes and biases
- :mod:`posenc.attention`: one multi-head attention with every position method
- :mod:`posenc.widgets`: interactive explorers and their static companions (imported on demand)
"""

from .absolute import (
    LearnedPositionalEmbedding,
    binary_encoding,
    integer_encoding,
    sinusoidal_encoding,
    sinusoidal_encoding_at,
    sinusoidal_frequencies,
    sinusoidal_shift_matrix,
)
from .alibi import alibi_bias, alibi_bias_bloom, alibi_slopes
from .attention import POSITION_METHODS, KVCache, MultiHeadAttention, causal_mask
from .decay import rope_decay_bound
from .relative import (
    ShawRelativePosition,
    T5RelativeBias,
    relative_positions,
    shaw_attention,
    shaw_attention_naive,
    shaw_relative_index,
    t5_relative_bucket,
)
from .rope import (
    RotaryEmbedding,
    apply_rope,
    apply_rope_complex,
    apply_rope_matrix,
    apply_rope_rotate_half,
    interleaved_to_half_permutation,
    permute_qk_weight_for_half,
    rope_angles,
    rope_cos_sin,
    rope_cos_sin_2d,
    rope_freqs_cis,
    rope_inv_freq,
    rope_matrix,
    rope_scaled_inv_freq,
    rotate_half,
    unpermute_qk_weight_to_interleaved,
)

__version__ = "0.1.0"

__all__ = [
    "sinusoidal_encoding",
    "sinusoidal_encoding_at",
    "sinusoidal_frequencies",
    "sinusoidal_shift_matrix",
    "integer_encoding",
    "binary_encoding",
    "LearnedPositionalEmbedding",
    "relative_positions",
    "shaw_relative_index",
    "t5_relative_bucket",
    "shaw_attention",
    "shaw_attention_naive",
    "ShawRelativePosition",
    "T5RelativeBias",
    "rope_inv_freq",
    "rope_angles",
    "rope_cos_sin",
    "rope_cos_sin_2d",
    "rotate_half",
    "apply_rope",
    "apply_rope_rotate_half",
    "rope_freqs_cis",
    "apply_rope_complex",
    "apply_rope_matrix",
    "rope_matrix",
    "rope_scaled_inv_freq",
    "interleaved_to_half_permutation",
    "permute_qk_weight_for_half",
    "unpermute_qk_weight_to_interleaved",
    "RotaryEmbedding",
    "alibi_slopes",
    "alibi_bias",
    "alibi_bias_bloom",
    "rope_decay_bound",
    "POSITION_METHODS",
    "KVCache",
    "MultiHeadAttention",
    "causal_mask",
]

from .properties import first_repeat, min_pairwise_distance, shift_map, shift_map_residual  # noqa: E402

__all__ += ["min_pairwise_distance", "first_repeat", "shift_map", "shift_map_residual"]
from .toy import toy_embeddings, toy_vocabulary  # noqa: E402

__all__ += ["toy_embeddings", "toy_vocabulary"]
from .linear import elu_feature_map, kernel_attention, linear_attention  # noqa: E402

__all__ += ["elu_feature_map", "kernel_attention", "linear_attention"]
