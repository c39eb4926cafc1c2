"""Llama 4's interleaved RoPE/NoPE layers (iRoPE): which layers rotate, the query temperature of its
NoPE layers and the chunked attention of its RoPE layers.

In Llama 4 the RoPE layers are the local ones: they attend within chunks of 8192 tokens. Every fourth
layer is NoPE and attends to the whole context (transformers' ``Llama4TextConfig`` names the layer types
``"chunked_attention"`` and ``"full_attention"``; ``Llama4TextAttention`` rotates only in the former).

Shape legend: ``L`` positions.

References:
    Meta, "The Llama 4 herd", 2025 (iRoPE); Hugging Face ``Llama4TextAttention``.
"""

from __future__ import annotations

import torch

from .._core.validate import check_float, check_int, check_size, check_tensor

__all__ = ["llama4_attention_temperature", "llama4_rope_layers", "chunked_causal_mask"]


def llama4_attention_temperature(
    positions: torch.Tensor, *, floor_scale: int = 8192, attn_scale: float = 0.1
) -> torch.Tensor:
    """Query scale of Llama 4's NoPE layers: ``log(floor((pos + 1) / floor_scale) + 1) * attn_scale + 1``.

    Llama 4 multiplies the queries of its NoPE layers (every fourth layer) by this factor
    (``attn_temperature_tuning``; Hugging Face ``Llama4TextAttention``): 1 for the first
    ``floor_scale - 1`` positions, then growing like ``attn_scale * log(pos / floor_scale)``. A
    logit grows in proportion, which sharpens the softmax over the ever longer set of keys a NoPE
    layer attends to (log-n scaling, in steps of ``floor_scale`` tokens).

    Args:
        positions (torch.Tensor): integer ``[L]`` >= 0, the query positions (Hugging Face: the cache
            slots ``arange(L) + number of cached tokens``).
        floor_scale (int): step length in tokens, >= 1 (Llama 4: 8192).
        attn_scale (float): strength, >= 0 (Llama 4: 0.1).

    Returns:
        torch.Tensor: float32 ``[L]``, >= 1.
    """
    check_tensor("positions", positions, ndim=1, floating=False)
    floor_scale = check_int("floor_scale", floor_scale, min_value=1)
    attn_scale = check_float("attn_scale", attn_scale, ge=0.0)
    if positions.numel() and int(positions.min()) < 0:
        raise ValueError(f"positions must be >= 0, got {int(positions.min())}")
    steps = torch.div(positions.to(torch.int64) + 1, floor_scale, rounding_mode="floor")  # exact integer floor
    return (torch.log1p(steps.to(torch.float64)) * attn_scale + 1.0).to(torch.float32)


def llama4_rope_layers(n_layers: int, *, interval: int = 4) -> list[bool]:
    """Which layers rotate (True) and which are NoPE (False): every ``interval``-th layer is NoPE.

    Hugging Face's default ``no_rope_layers`` (whose 1 means "uses RoPE"): layer ``i`` (0-based)
    uses RoPE unless ``(i + 1) % interval == 0``. In Llama 4 the RoPE layers also use chunked
    attention (:func:`chunked_causal_mask`) and the NoPE layers attend to the whole context.
    """
    n_layers = check_int("n_layers", n_layers, min_value=0)
    interval = check_int("interval", interval, min_value=1)
    check_size("n_layers", n_layers, (n_layers,), item_bytes=1)
    return [(i + 1) % interval != 0 for i in range(n_layers)]


def chunked_causal_mask(seq_len: int, chunk_size: int) -> torch.Tensor:
    """Boolean ``[L, L]`` mask of chunked causal attention (Llama 4's RoPE layers).

    Query ``i`` may attend key ``j`` iff ``j <= i`` and both lie in the same chunk of ``chunk_size``
    tokens (``j // chunk_size == i // chunk_size``), as transformers' ``chunked_causal_mask_function``.
    """
    seq_len = check_int("seq_len", seq_len, min_value=0)
    chunk_size = check_int("chunk_size", chunk_size, min_value=1)
    check_size("seq_len", seq_len, (seq_len, seq_len), item_bytes=1)
    i = torch.arange(seq_len)
    return (i[None, :] <= i[:, None]) & (i[None, :] // chunk_size == i[:, None] // chunk_size)
