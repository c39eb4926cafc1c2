"""A trainable table of absolute positions added to the input, as a position method."""

from __future__ import annotations

import torch

from ..encodings.absolute import LearnedPositionalEmbedding
from .base import PositionMethod

__all__ = ["LearnedMethod"]


class LearnedMethod(PositionMethod):
    """A trainable table of absolute positions added to the input (GPT-2, BERT).

    Positions at or beyond ``max_len`` raise: the default positions ``0 .. L-1`` from the shapes
    (:meth:`reserve`), explicit ones on the CPU from their values (see
    :class:`~posenc.encodings.absolute.LearnedPositionalEmbedding` for when a check reads a tensor).

    Args:
        d_model (int): model width ``D``.
        max_len (int): rows of the table (the trained length).
    """

    name = "learned"

    @classmethod
    def build(cls, *, d_model: int, n_heads: int, head_dim: int, causal: bool, max_len: int) -> LearnedMethod:
        return cls(d_model, max_len)

    def __init__(self, d_model: int, max_len: int) -> None:
        super().__init__()
        self.table = LearnedPositionalEmbedding(max_len, d_model)
        self.d_model = self.table.d_model

    def reserve(self, n: int) -> None:
        """Refuse positions ``0 .. n - 1`` beyond the table, from the shapes (no tensor is read)."""
        self.table.check_length(n)

    def encode_input(self, x: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        return x + self.table(position_ids).to(x.dtype)  # [b, L, D]
