"""RoPE as today's models use it: what a 2022-2026 model config names beyond plain RoPE and its
scalings (:mod:`posenc.scaling`, which also holds ``"longrope"``; partial rotary is
:func:`~posenc.encodings.rope.apply_rope` with narrower tables). One module per mechanism:

- :mod:`posenc.today.mrope`: :func:`mrope_cos_sin`, :func:`mrope_position_ids`, :func:`mrope_axes`:
  Qwen2-VL's multimodal RoPE, 3-D positions (temporal, height, width) whose rotation pairs are split
  between the axes by ``mrope_section`` (consecutive runs, Qwen2-VL / Qwen2.5-VL; interleaved, Qwen3-VL).
- :mod:`posenc.today.llama4`: :func:`llama4_attention_temperature`, :func:`llama4_rope_layers`,
  :func:`chunked_causal_mask`: Llama 4's interleaved RoPE/NoPE layers (iRoPE), the query temperature
  of its NoPE (global) layers and the chunked attention of its RoPE (local) layers.
- :mod:`posenc.today.xpos`: :func:`xpos_scale`, the exponential scale xPos multiplies rotated queries
  and keys with.
- :mod:`posenc.today.cache`: :func:`kv_cache_bytes_per_token`, the KV-cache cost of multi-head,
  grouped-query and multi-head latent attention (DeepSeek-V2's MLA with its decoupled RoPE key), and
  :func:`streaming_cache_positions`, which tokens a StreamingLLM cache (attention sinks plus a rolling
  window) keeps and the positions they get inside the cache.
- :mod:`posenc.today.sinks`: :func:`sink_attention`, gpt-oss's attention with a learned sink logit
  per head (a softmax column without a value), optionally over a sliding window.

The published RoPE settings of well-known models (``MODEL_ROPE_CONFIGS``) and the wavelengths their
scalings give (``scaled_wavelengths``) are teaching material: :mod:`posenc.book.models`.
"""

from . import cache, llama4, mrope, sinks, xpos
from .cache import kv_cache_bytes_per_token, streaming_cache_positions
from .llama4 import chunked_causal_mask, llama4_attention_temperature, llama4_rope_layers
from .mrope import mrope_axes, mrope_cos_sin, mrope_position_ids
from .sinks import sink_attention
from .xpos import xpos_scale

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the modules' own __all__.
__all__ = [
    # mrope
    "mrope_cos_sin",
    "mrope_position_ids",
    "mrope_axes",
    # llama4
    "llama4_attention_temperature",
    "llama4_rope_layers",
    "chunked_causal_mask",
    # xpos
    "xpos_scale",
    # cache
    "kv_cache_bytes_per_token",
    "streaming_cache_positions",
    # sinks
    "sink_attention",
]
