"""Rotary position embedding of queries and keys, as a position method."""

from __future__ import annotations

from typing import Any

import torch

from .._core import rope as rope_core
from .._core.freq import DEFAULT_BASE
from .._core.validate import check_choice, check_even, check_int, check_size
from ..encodings.rope import LAYOUTS, RotaryEmbedding
from ..scaling.config import RopeScaling, rope_scaling
from .base import PositionMethod

__all__ = ["RopeMethod"]


class RopeMethod(PositionMethod):
    """Rotary position embedding of queries and keys (Su et al. 2021), before the key/value cache.

    A context-extension scaling gives the method new frequencies (``scaling`` here, or :meth:`set_scaling`).
    The cos/sin cache lives in a :class:`~posenc.encodings.rope.RotaryEmbedding` (``self.rotary``), which
    compiles whole and can be built on the meta device and filled later with ``to_empty`` and its
    ``reset_parameters`` (called by a loop over ``model.modules()``, as FSDP2 and torchtune do).

    Args:
        head_dim (int): even head dimension ``d``.
        max_len (int): initial length of the cos/sin cache (see :class:`~posenc.encodings.rope.RotaryEmbedding`
            for how it grows, and for the compiled forward).
        base (float): wavelength base, > 1.
        layout (str): ``"half"`` (Hugging Face, GPT-NeoX) or ``"interleaved"`` (Meta LLaMA, RoFormer).
        scaling (RopeScaling, optional): a context-extension scaling (:func:`posenc.rope_scaling`); None: plain RoPE.
        seq_len (int, optional): the current length for the scalings that read it (``"dynamic"``, ``"longrope"``).
    """

    def __init__(
        self,
        head_dim: int,
        max_len: int = 2048,
        base: float = DEFAULT_BASE,
        *,
        layout: str = "half",
        scaling: RopeScaling | None = None,
        seq_len: int | None = None,
    ) -> None:
        super().__init__()
        self.name = "rope_interleaved" if check_choice("layout", layout, LAYOUTS) == "interleaved" else "rope"
        max_len = check_int("max_len", max_len, min_value=1)
        check_size("max_len", max_len, (max_len, check_even("head_dim", head_dim)), item_bytes=rope_core.TABLE_BYTES)
        self.rotary = RotaryEmbedding(head_dim, max_len, base, layout=layout, scaling=scaling, seq_len=seq_len)

    name = "rope"

    @classmethod
    def build(
        cls,
        *,
        d_model: int,
        n_heads: int,
        head_dim: int,
        causal: bool,
        max_len: int,
        base: float = DEFAULT_BASE,
        layout: str = "half",
        scaling: RopeScaling | None = None,
        seq_len: int | None = None,
    ) -> RopeMethod:
        return cls(head_dim, max_len, base, layout=layout, scaling=scaling, seq_len=seq_len)

    @property
    def head_dim(self) -> int:
        """Head dimension ``d``."""
        return self.rotary.head_dim

    @property
    def inv_freq(self) -> torch.Tensor:
        """The frequencies in use, float32 ``[d/2]`` (scaled after :meth:`set_scaling`)."""
        return self.rotary.inv_freq

    @property
    def attention_scaling(self) -> float:
        """The factor on cos and sin (YaRN's attention factor; 1 otherwise)."""
        return self.rotary.attention_scaling

    @property
    def scaling(self) -> RopeScaling:
        """The scaling in use (``RopeScaling()``, the default, for plain RoPE)."""
        return self.rotary.scaling

    def reserve(self, n: int) -> None:
        self.rotary.reserve(n)

    def rotate_qk(self, q, k, position_ids):
        return self.rotary(q, position_ids), self.rotary(k, position_ids)

    def set_scaling(
        self, scaling: RopeScaling | str | None = None, *, seq_len: int | None = None, **params: Any
    ) -> None:
        """Use the frequencies of a context-extension scaling (None or ``"default"``: the plain ones).

        ``scaling`` is a :class:`~posenc.scaling.config.RopeScaling`, or a ``rope_type`` name with
        that type's parameters as keywords (:func:`posenc.rope_scaling`); ``seq_len`` is the current
        length for ``"dynamic"`` and ``"longrope"``. Only this method's cos/sin table is rebuilt (as
        long as the current one).
        """
        scaling = rope_scaling(scaling, **params)
        old = self.rotary
        with torch.device(old.inv_freq.device):  # built where the old one lives, no copy
            self.rotary = RotaryEmbedding(
                old.head_dim, old.cache_len, old.base, layout=old.layout, scaling=scaling, seq_len=seq_len
            )
