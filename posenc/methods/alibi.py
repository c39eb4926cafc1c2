"""ALiBi's fixed linear distance bias (Press et al. 2022), as a position method."""

from __future__ import annotations

import torch

from .._core.bias import alibi_bias_from_slopes
from ..encodings.alibi import alibi_slopes
from .base import CachedBias

__all__ = ["AlibiMethod"]


class AlibiMethod(CachedBias):
    """ALiBi's fixed linear distance bias ``-m_h |j - i|`` on the logits (Press et al. 2022),
    :func:`~posenc.encodings.alibi.alibi_bias`'s core with the slopes of :func:`~posenc.encodings.alibi.alibi_slopes`.

    Args:
        n_heads (int): number of heads ``h``.
    """

    name = "alibi"
    slopes: torch.Tensor  # a buffer, [h]

    @classmethod
    def build(cls, *, d_model: int, n_heads: int, head_dim: int, causal: bool, max_len: int) -> AlibiMethod:
        return cls(n_heads)

    def __init__(self, n_heads: int) -> None:
        super().__init__()
        self.register_buffer("slopes", alibi_slopes(n_heads), persistent=False)  # [h]
        self.n_heads = len(self.slopes)

    def reset_parameters(self) -> None:
        """Recompute the slopes on their device (after ``to_empty``)."""
        super().reset_parameters()
        with torch.device("cpu"):
            self.slopes = alibi_slopes(self.n_heads).to(self.slopes.device)

    def _values(self, causal, dtype, device, q_len, k_len):
        return alibi_bias_from_slopes(self.slopes, q_len, k_len, causal=causal, dtype=dtype)  # [h, L, T]
