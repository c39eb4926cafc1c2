"""The fixed sinusoidal encoding added to the input, as a position method."""

from __future__ import annotations

import torch

from .._core.bias import sinusoidal_table
from .._core.freq import DEFAULT_BASE
from .._core.validate import check_float, check_int
from .base import PositionMethod

__all__ = ['SinusoidalMethod']


class SinusoidalMethod(PositionMethod):
    """The fixed sinusoidal encoding added to the input (Vaswani et al. 2017, Section 3.5).

    Args:
        d_model (int): even model width ``D``.
        base (float): wavelength base, > 1.
    """

    name = "sinusoidal"

    @classmethod
    def build(cls, *, d_model: int, n_heads: int, head_dim: int, causal: bool, max_len: int,
              base: float = DEFAULT_BASE) -> SinusoidalMethod:
        return cls(d_model, base)

    def __init__(self, d_model: int, base: float = DEFAULT_BASE) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, min_value=1)
        if self.d_model % 2:
            raise ValueError(f"d_model must be even for sinusoidal encodings (sin/cos pairs), got {self.d_model}")
        self.base = check_float("base", base, gt=1.0)

    def encode_input(self, x: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        # angles in float64, one rounding to x's dtype
        return x + sinusoidal_table(position_ids, self.d_model, self.base, x.dtype, x.device)  # [b, L, D]

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, base={self.base:g}"

