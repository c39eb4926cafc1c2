"""T5's learned bias per (distance bucket, head), as a position method."""

from __future__ import annotations

from torch import nn

from .._core import grid
from ..encodings.relative import T5RelativeBias
from .base import CachedBias

__all__ = ["T5Method"]


class T5Method(CachedBias):
    """T5's learned scalar bias per (distance bucket, head) on the logits (Raffel et al. 2020).

    The bias is kept between calls only when no gradient is needed and the table has not changed.

    Args:
        n_heads (int): number of heads ``h``.
        causal (bool): decoder buckets (past only) when True, encoder (bidirectional) buckets when False.
        num_buckets (int): number of buckets (T5: 32).
        max_distance (int): where the logarithmic buckets end (T5: 128).
    """

    name = "t5"

    @classmethod
    def build(
        cls,
        *,
        d_model: int,
        n_heads: int,
        head_dim: int,
        causal: bool,
        max_len: int,
        num_buckets: int = 32,
        max_distance: int = 128,
    ) -> T5Method:
        return cls(n_heads, causal=causal, num_buckets=num_buckets, max_distance=max_distance)

    def __init__(self, n_heads: int, *, causal: bool = True, num_buckets: int = 32, max_distance: int = 128) -> None:
        super().__init__()
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool, got {type(causal).__name__} ({causal!r})")
        self.t5 = T5RelativeBias(n_heads, num_buckets=num_buckets, max_distance=max_distance, bidirectional=not causal)
        self.n_heads = self.t5.n_heads

    def reset_parameters(self) -> None:
        """As the constructor: the embedding's own initialisation, then ``normal(0, 0.02)`` for the bucket
        table, a small scale (transformers' T5 draws it with std ``d_model ** -0.5``, ``_init_weights`` in
        ``modeling_t5.py``)."""
        super().reset_parameters()  # the bias cache and the embedding's reset_parameters
        nn.init.normal_(self.t5.bias.weight, std=0.02)

    def _values(self, causal, dtype, device, q_len, k_len):
        dist = grid.distance_range(q_len, k_len, device=device)  # [L + T - 1]
        values = self.t5.bias_by_distance(dist)  # [h, L + T - 1], in the autograd graph when training
        if causal:
            values = values.masked_fill(dist > 0, float("-inf"))
        return grid.toeplitz(values.to(dtype), q_len, k_len)  # [h, L, T]
