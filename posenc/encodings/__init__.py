"""The position encodings' math, one module per family, in the order of the book's chapters: the
frequency ladder, absolute encodings, relative positions (Shaw, T5), RoPE and its textbook forms,
RoPE's long-term decay bound, and ALiBi."""

from . import absolute, alibi, decay, frequencies, relative, rope, rope_forms
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
from .decay import rope_decay_bound, rope_matching_stretch_means, rope_matching_trend
from .frequencies import DEFAULT_BASE
from .relative import (
    ShawRelativePosition,
    T5RelativeBias,
    relative_positions,
    shaw_attention,
    shaw_attention_naive,
    shaw_relative_index,
    t5_relative_bucket,
)
from .rope import LAYOUTS, RotaryEmbedding, apply_rope, rope_angles, rope_cos_sin, rope_cos_sin_2d, rope_inv_freq
from .rope_forms import (
    apply_rope_complex,
    apply_rope_matrix,
    apply_rope_rotate_half,
    interleaved_to_half_permutation,
    permute_qk_weight_for_half,
    rope_freqs_cis,
    rope_matrix,
    rotate_half,
    unpermute_qk_weight_to_interleaved,
)

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the modules' own __all__.
__all__ = [
    "DEFAULT_BASE",
    "sinusoidal_frequencies",
    "sinusoidal_encoding",
    "sinusoidal_encoding_at",
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
    "LAYOUTS",
    "rope_inv_freq",
    "rope_angles",
    "rope_cos_sin",
    "rope_cos_sin_2d",
    "apply_rope",
    "RotaryEmbedding",
    "rotate_half",
    "apply_rope_rotate_half",
    "rope_freqs_cis",
    "apply_rope_complex",
    "rope_matrix",
    "apply_rope_matrix",
    "interleaved_to_half_permutation",
    "permute_qk_weight_for_half",
    "unpermute_qk_weight_to_interleaved",
    "rope_decay_bound",
    "rope_matching_stretch_means",
    "rope_matching_trend",
    "alibi_slopes",
    "alibi_bias",
    "alibi_bias_bloom",
]
