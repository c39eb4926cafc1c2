"""The frequency ladder ``base ** (-2i/d)`` shared by the sinusoidal encoding, RoPE and its scalings."""

from __future__ import annotations

import torch

#: The wavelength base of Vaswani et al. 2017 and RoFormer (Su et al. 2021).
DEFAULT_BASE = 10000.0


def frequency_ladder(dim: int, base: float, dtype: torch.dtype = torch.float32, scale: float = 1.0) -> torch.Tensor:
    """The one implementation of the ladder, trusting its inputs: ``1 / (scale * base ** (2i / dim))``,
    ``[dim/2]``; core of :func:`posenc.encodings.rope.rope_inv_freq`.

    ``scale`` divides every frequency, as YaRN's interpolated branch does (Hugging Face computes
    ``1 / (factor * pos_freqs)``; ``scale=1`` leaves the values untouched).
    """
    exponent = torch.arange(0, dim, 2, dtype=torch.int64).to(dtype) / dim  # [d/2]: 2i/d
    wavelength_factor = base**exponent  # [d/2]: base ** (2i/d)
    if scale != 1.0:
        wavelength_factor = scale * wavelength_factor
    return 1.0 / wavelength_factor
