"""The one frequency ladder behind sinusoidal encodings, RoPE and its scalings.

Pair ``i`` of a ``dim``-wide encoding turns at ``theta_i = base ** (-2i / dim)`` radians per
position, ``i = 0 .. dim/2 - 1``: from one radian per position down to almost ``1 / base``
(wavelengths ``2 pi`` .. ``2 pi * base``). The sinusoidal encoding (Vaswani et al. 2017, section
3.5), RoPE (Su et al. 2021), RoPE's decay bound and the YaRN and Llama 3 scalings all start here.

Shape legend: ``dim`` the encoding width (``d_model`` or ``head_dim``), ``dim/2`` pairs.

References:
    Vaswani et al., "Attention Is All You Need", 2017, section 3.5.
    Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", 2021, eq. (15).
    Hugging Face transformers ``modeling_rope_utils._compute_default_rope_parameters``.
"""

from __future__ import annotations

import torch

from .._core.freq import DEFAULT_BASE, frequency_ladder
from .._core.validate import check_dtype, check_even, check_float, check_size

__all__ = ["DEFAULT_BASE", "inv_freq"]



def inv_freq(dim: int, base: float = DEFAULT_BASE, *, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Frequencies ``theta_i = base ** (-2i / dim)``, ``i = 0 .. dim/2 - 1``.

    Computed as Hugging Face's default RoPE initialisation does, ``1 / base ** (2i / dim)`` with
    every step in ``dtype``: in float32 the result equals theirs bit for bit.

    Args:
        dim (int): even width ``d`` (``d_model`` for the sinusoidal encoding, ``head_dim`` for RoPE).
        base (float): wavelength base, > 1 (Vaswani et al. and RoFormer: 10000; Llama 3: 500000).
        dtype (torch.dtype): floating dtype of the computation and the result.

    Returns:
        torch.Tensor: ``[d/2]``, decreasing from 1.

    Raises:
        ValueError: odd or non-positive ``dim``, ``base <= 1`` or not finite, or a result too large.
        TypeError: non-integer ``dim``, non-real ``base``, non-floating ``dtype``.
    """
    dim = check_even("dim", dim)
    check_size("dim", dim, (dim // 2,), item_bytes=8)
    return frequency_ladder(dim, check_float("base", base, gt=1.0), check_dtype("dtype", dtype))


