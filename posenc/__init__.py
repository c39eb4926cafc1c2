"""posenc: position encodings for Transformers, as taught in the posenc book.

The package has two layers.

**The library** (torch and numpy only; importable from here, the book's API contract: torch
tensors in and out, queries aligned at the end of the keys when ``k_len > q_len``):

- :mod:`posenc.encodings`: the encodings' math, one module per family: the frequency ladder,
  absolute encodings, relative positions (Shaw, T5), RoPE and its textbook forms, RoPE's decay
  bound, ALiBi
- :mod:`posenc.scaling`: RoPE's context-extension scalings: one function per type in a registry
  and one typed, validated configuration per type (``rope_scaling``, ``RopeScaling.from_hf``)
- :mod:`posenc.methods`: position methods as strategies (the hooks attention calls), one module per
  method, and their registry (``POSITION_METHODS``, ``build_method``)
- :mod:`posenc.attention`: multi-head attention with any position method; linear attention
- :mod:`posenc.today`: what 2022-2026 models add around RoPE and attention, one module per
  mechanism (M-RoPE, Llama 4's iRoPE, xPos, the KV cache, learned sinks)
- ``posenc._core``: the internal layer they share (validation, the query/key grid, the frequency
  ladder, RoPE's and the biases' cores); not public

**The book's tooling** (imported on demand; it uses the library through the names exported here):

- :mod:`posenc.explorers`: the interactive explorers and their static companions (the ``widgets`` extra)
- :mod:`posenc.experiments`: the extrapolation experiments (data, model, training, evaluation,
  provenance, results)
- :mod:`posenc.measure`: the benchmarks' measurement helpers
- :mod:`posenc.book`: the chapters' set-up, source listings and teaching material (toy data, the
  properties' checks, the model table)
- :mod:`posenc.practice`: the Practice part's checker of a learner's implementation

**Where code goes** (``tests/test_layers.py`` checks each rule):

1. An encoding's math lives in :mod:`posenc.encodings`, in its family's module: functions (tensors
   in, tensors out) and the stand-alone layers a model can use without posenc's attention
   (``LearnedPositionalEmbedding``, ``ShawRelativePosition``, ``T5RelativeBias``,
   ``RotaryEmbedding``). It imports nothing from ``methods`` or ``attention``.
2. A position method's strategy, the ``PositionMethod`` that ``MultiHeadAttention`` calls, lives in
   :mod:`posenc.methods`: one registered class per module and nothing else public in it (beside the
   interface, ``base``, and the registry, ``registry``). It builds on its encoding's math (from
   ``encodings``, or the core both share in ``_core``) where the encoding exists without attention
   (sinusoidal, learned, Shaw, T5, RoPE, ALiBi: a module in each package); a method that exists only
   as a learned attention hook lives there whole (NoPE, KERPLE, FIRE, CoPE: ``methods`` only).
3. A scaling of RoPE's frequencies lives in :mod:`posenc.scaling`: a function in ``ROPE_SCALINGS``
   and a typed configuration.
4. A mechanism a later model adds that is not a position method (a table layout, a temperature, a
   mask, a cache rule, a sink) lives in :mod:`posenc.today`, one module per mechanism.
5. Teaching-only material (toy data, checks of the book's properties, tables of published configs)
   lives in the tooling, and only the tooling reads the saved runs (``posenc/results``); the library
   imports no tooling.

Every name of the library's ``__all__`` is importable from ``posenc`` itself.
"""

from . import attention, encodings, methods, scaling, today
from .attention import (
    KVCache,
    MultiHeadAttention,
    causal_mask,
    elu_feature_map,
    get_max_tensor_bytes,
    kernel_attention,
    linear_attention,
    max_tensor_bytes,
    set_max_tensor_bytes,
)
from .encodings import (
    DEFAULT_BASE,
    LAYOUTS,
    LearnedPositionalEmbedding,
    RotaryEmbedding,
    ShawRelativePosition,
    T5RelativeBias,
    alibi_bias,
    alibi_bias_bloom,
    alibi_slopes,
    apply_rope,
    apply_rope_complex,
    apply_rope_matrix,
    apply_rope_rotate_half,
    binary_encoding,
    integer_encoding,
    interleaved_to_half_permutation,
    permute_qk_weight_for_half,
    relative_positions,
    rope_angles,
    rope_cos_sin,
    rope_cos_sin_2d,
    rope_decay_bound,
    rope_freqs_cis,
    rope_inv_freq,
    rope_matching_stretch_means,
    rope_matching_trend,
    rope_matrix,
    rotate_half,
    shaw_attention,
    shaw_attention_naive,
    shaw_relative_index,
    sinusoidal_encoding,
    sinusoidal_encoding_at,
    sinusoidal_frequencies,
    sinusoidal_shift_matrix,
    t5_relative_bucket,
    unpermute_qk_weight_to_interleaved,
)
from .methods import (
    POSITION_METHODS,
    AlibiMethod,
    CachedBias,
    CoPE,
    FireBias,
    KerpleBias,
    LearnedMethod,
    NoPEMethod,
    PositionMethod,
    RopeMethod,
    ShawMethod,
    SinusoidalMethod,
    T5Method,
    build_method,
    method_options,
    reset_in_order,
)
from .scaling import (
    ROPE_SCALING_CONFIGS,
    ROPE_SCALINGS,
    ROPE_TYPES,
    DefaultScaling,
    DynamicScaling,
    LinearScaling,
    Llama3Scaling,
    LongRopeScaling,
    ProportionalScaling,
    RopeScaling,
    YarnScaling,
    rope_scaled_inv_freq,
    rope_scaling,
    yarn_mscale,
)
from .today import (
    chunked_causal_mask,
    kv_cache_bytes_per_token,
    llama4_attention_temperature,
    llama4_rope_layers,
    mrope_axes,
    mrope_cos_sin,
    mrope_position_ids,
    sink_attention,
    streaming_cache_positions,
    xpos_scale,
)

__version__ = "0.1.0"

_LIBRARY = (encodings, scaling, methods, attention, today)

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the packages' own __all__.
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
    "ROPE_SCALINGS",
    "ROPE_TYPES",
    "yarn_mscale",
    "RopeScaling",
    "DefaultScaling",
    "LinearScaling",
    "DynamicScaling",
    "YarnScaling",
    "Llama3Scaling",
    "LongRopeScaling",
    "ProportionalScaling",
    "ROPE_SCALING_CONFIGS",
    "rope_scaling",
    "rope_scaled_inv_freq",
    "PositionMethod",
    "CachedBias",
    "reset_in_order",
    "NoPEMethod",
    "SinusoidalMethod",
    "LearnedMethod",
    "ShawMethod",
    "T5Method",
    "RopeMethod",
    "AlibiMethod",
    "KerpleBias",
    "FireBias",
    "CoPE",
    "POSITION_METHODS",
    "build_method",
    "method_options",
    "KVCache",
    "MultiHeadAttention",
    "causal_mask",
    "elu_feature_map",
    "kernel_attention",
    "linear_attention",
    "get_max_tensor_bytes",
    "set_max_tensor_bytes",
    "max_tensor_bytes",
    "mrope_cos_sin",
    "mrope_position_ids",
    "mrope_axes",
    "llama4_attention_temperature",
    "llama4_rope_layers",
    "chunked_causal_mask",
    "xpos_scale",
    "kv_cache_bytes_per_token",
    "streaming_cache_positions",
    "sink_attention",
]
