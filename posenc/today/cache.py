"""What a key/value cache holds: its size per token under multi-head, grouped-query and multi-head
latent attention (DeepSeek-V2's MLA with its decoupled RoPE key), and which tokens a StreamingLLM
cache (attention sinks plus a rolling window) keeps, at which positions.

References:
    DeepSeek-AI, "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model",
    2024 (MLA, decoupled RoPE).
    Xiao et al., "Efficient Streaming Language Models with Attention Sinks", 2023 (StreamingLLM).
"""

from __future__ import annotations

import torch

from .._core.validate import check_choice, check_int

__all__ = ["kv_cache_bytes_per_token", "streaming_cache_positions"]

_CACHE_KINDS = ("mha", "gqa", "mla")


def kv_cache_bytes_per_token(
    kind: str,
    *,
    n_layers: int,
    head_dim: int = 128,
    n_kv_heads: int = 1,
    kv_lora_rank: int = 512,
    qk_rope_head_dim: int = 64,
    bytes_per_value: int = 2,
) -> int:
    """KV-cache bytes one token costs across all layers.

    - ``"mha"``/``"gqa"``: a key and a value of ``head_dim`` for each of ``n_kv_heads`` heads:
      ``2 * n_kv_heads * head_dim`` values per layer (MHA: ``n_kv_heads = n_heads``).
    - ``"mla"`` (DeepSeek-V2): the compressed latent ``c_kv`` of ``kv_lora_rank`` values, from which
      keys and values of all heads are re-projected, plus the decoupled rotary key of
      ``qk_rope_head_dim`` values shared by all heads: ``kv_lora_rank + qk_rope_head_dim`` per layer.
      The rotary part has to be cached beside the latent because a position-dependent rotation
      between the key up-projection and the query stops that projection from being absorbed.

    Returns:
        int: bytes per token, ``n_layers * values per layer * bytes_per_value``.
    """
    kind = check_choice("kind", kind, _CACHE_KINDS)
    n_layers = check_int("n_layers", n_layers, min_value=1)
    bytes_per_value = check_int("bytes_per_value", bytes_per_value, min_value=1)
    if kind == "mla":
        per_layer = check_int("kv_lora_rank", kv_lora_rank, min_value=1) + check_int(
            "qk_rope_head_dim", qk_rope_head_dim, min_value=0
        )
    else:
        per_layer = 2 * check_int("n_kv_heads", n_kv_heads, min_value=1) * check_int("head_dim", head_dim, min_value=1)
    return n_layers * per_layer * bytes_per_value


def streaming_cache_positions(
    n_tokens: int, *, n_sink: int = 4, window: int = 1020
) -> tuple[torch.Tensor, torch.Tensor]:
    """The tokens a StreamingLLM cache keeps and the positions they get inside it.

    After ``n_tokens`` tokens the cache holds the first ``n_sink`` (the attention sinks) and the last
    ``window`` tokens (all of them while ``n_tokens <= n_sink + window``). Positions are assigned by
    slot in the cache, ``0 .. n_kept - 1``, not by place in the text (Xiao et al. 2023, section 3.2):
    the next token's query then sits at position ``n_kept`` and no distance exceeds the cache size,
    however long the stream. Keys must therefore be cached before rotation (and rotated by their
    current slot at each step) or re-rotated when they move.

    Returns:
        tuple[torch.Tensor, torch.Tensor]: int64 ``[n_kept]`` token indices (0-based, in the text) and
        int64 ``[n_kept]`` positions in the cache.
    """
    n_tokens = check_int("n_tokens", n_tokens, min_value=0)
    n_sink = check_int("n_sink", n_sink, min_value=0)
    window = check_int("window", window, min_value=1)
    if n_tokens <= n_sink + window:
        kept = torch.arange(n_tokens)
    else:
        kept = torch.cat((torch.arange(n_sink), torch.arange(n_tokens - window, n_tokens)))
    return kept, torch.arange(len(kept))
