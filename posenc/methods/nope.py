"""NoPE: no position encoding at all (the causal mask still breaks permutation symmetry)."""

from __future__ import annotations

from .base import PositionMethod

__all__ = ["NoPEMethod"]


class NoPEMethod(PositionMethod):
    """No position information at all (NoPE; a causal mask still breaks permutation symmetry).

    Kazemnejad et al., "The Impact of Positional Encoding on Length Generalization in Transformers", 2023.
    """

    name = "none"
