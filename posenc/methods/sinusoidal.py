"""The fixed sinusoidal encoding added to the input, as a position method."""

from __future__ import annotations

import torch

from .._core.bias import sinusoidal_table
from .._core.freq import DEFAULT_BASE, frequency_ladder
from .._core.validate import check_float, check_int
from .base import PositionMethod

__all__ = ["SinusoidalMethod"]


class SinusoidalMethod(PositionMethod):
    """The fixed sinusoidal encoding added to the input (Vaswani et al. 2017, Section 3.5).

    The float64 frequencies are a buffer (``inv_freq``, ``[D/2]``, not saved in the state dict),
    computed once on the CPU and moved with the module, so a forward builds only the ``[L, D]`` table,
    on the input's device. They stay float64 through a module-wide cast such as ``model.half()``
    (recomputed, not rounded); ``reset_parameters()`` recomputes them after ``to_empty``.

    Args:
        d_model (int): even model width ``D``.
        base (float): wavelength base, > 1.
    """

    name = "sinusoidal"
    inv_freq: torch.Tensor  # a buffer, float64 [D/2]

    @classmethod
    def build(
        cls, *, d_model: int, n_heads: int, head_dim: int, causal: bool, max_len: int, base: float = DEFAULT_BASE
    ) -> SinusoidalMethod:
        return cls(d_model, base)

    def __init__(self, d_model: int, base: float = DEFAULT_BASE) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, min_value=1)
        if self.d_model % 2:
            raise ValueError(f"d_model must be even for sinusoidal encodings (sin/cos pairs), got {self.d_model}")
        self.base = check_float("base", base, gt=1.0)
        self.register_buffer("inv_freq", self._ladder(torch.get_default_device()), persistent=False)

    def _ladder(self, device: torch.device | str) -> torch.Tensor:
        """float64 ``[D/2]``, computed on the CPU (the same bits on every device) and moved to ``device``."""
        with torch.device("cpu"):
            return frequency_ladder(self.d_model, self.base, torch.float64).to(device)

    def reset_parameters(self) -> None:
        self.inv_freq = self._ladder(self.inv_freq.device)

    def _apply(self, fn, recurse=True):
        super()._apply(fn, recurse)
        if self.inv_freq.dtype != torch.float64:  # a module-wide dtype cast: recompute instead of rounding
            self.inv_freq = self._ladder(self.inv_freq.device)
        return self

    def encode_input(self, x: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        # angles in float64, one rounding to x's dtype
        inv_freq = self.inv_freq.to(x.device)  # a no-op on the module's own device
        return x + sinusoidal_table(position_ids, self.d_model, self.base, x.dtype, x.device, inv_freq)  # [b, L, D]

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, base={self.base:g}"
