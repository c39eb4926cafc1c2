"""Shaw et al.'s relative keys and values (2018), as a position method that computes attention itself."""

from __future__ import annotations

import torch

from ..encodings.relative import ShawRelativePosition
from .base import PositionMethod

__all__ = ["ShawMethod"]


class ShawMethod(PositionMethod):
    """Shaw et al.'s learned relative keys and values inside attention (2018), clipped at ``max_distance``.

    Its relative values do not fit ``scaled_dot_product_attention``, so it replaces it (:meth:`attend`).

    Args:
        head_dim (int): per-head dimension ``d``.
        max_distance (int): clipping distance ``k`` (>= 0).
    """

    name = "shaw"

    @classmethod
    def build(
        cls, *, d_model: int, n_heads: int, head_dim: int, causal: bool, max_len: int, max_distance: int = 16
    ) -> ShawMethod:
        return cls(head_dim, max_distance)

    def __init__(self, head_dim: int, max_distance: int = 16) -> None:
        super().__init__()
        self.shaw = ShawRelativePosition(head_dim, max_distance)
        self.head_dim = self.shaw.head_dim

    def reset_parameters(self) -> None:
        """Draw the two tables as :class:`~posenc.encodings.relative.ShawRelativePosition` does:
        ``randn * head_dim ** -0.5``, keys first."""
        with torch.no_grad():
            for table in (self.shaw.rel_k, self.shaw.rel_v):
                table.copy_(torch.randn(table.shape, device=table.device) * self.head_dim**-0.5)

    def workspace(self, batch, n_heads, q_len, k_len, item_bytes):
        return (batch, n_heads, q_len, k_len), 4 * item_bytes  # scores, relative scores, weights, their sums

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool) -> torch.Tensor:
        return self.shaw(q, k, v, causal=causal)  # [b, h, L, d]
