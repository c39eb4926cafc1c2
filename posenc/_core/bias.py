"""Cores of the sinusoidal table and ALiBi's bias, shared by the encodings and the position methods."""

from __future__ import annotations

import torch

from .freq import frequency_ladder
from .grid import distance_range, toeplitz


def sinusoidal_table(
    positions: torch.Tensor,
    d_model: int,
    base: float,
    dtype: torch.dtype,
    device: torch.device | str | None,
    inv_freq: torch.Tensor | None = None,
) -> torch.Tensor:
    """Core of the sinusoidal encodings, trusting its inputs: ``[...]`` positions -> ``[..., d]``.

    ``inv_freq``: the float64 ladder ``frequency_ladder(d_model, base, torch.float64)`` already on the
    positions' device (a module keeps it as a buffer); None computes it here, on the CPU, and copies it.
    """
    if inv_freq is None:
        inv_freq = frequency_ladder(d_model, base, torch.float64).to(positions.device)  # [d/2]
    angles = positions.to(torch.float64)[..., None] * inv_freq  # [..., d/2]
    pe = torch.stack((angles.sin(), angles.cos()), dim=-1)  # [..., d/2, 2]
    return pe.flatten(-2).to(dtype=dtype, device=device if device is not None else positions.device)  # [..., d]


def alibi_bias_from_slopes(
    slopes: torch.Tensor, q_len: int, k_len: int, *, causal: bool, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """``[h, Lq, Lk]`` of ``dtype`` from the slopes ``[h]``: the ``Lq + Lk - 1`` per-distance values of
    each head (computed in float32), spread over the grid, so the result is the only tensor of that size."""
    dist = distance_range(q_len, k_len, device=slopes.device, dtype=torch.float32)  # [n], exact below 2**24
    values = slopes[:, None] * dist.abs().neg()[None]  # [h, n]
    if causal:
        values = values.masked_fill(dist > 0, float("-inf"))  # keys after the query
    return toeplitz(values.to(dtype), q_len, k_len)
