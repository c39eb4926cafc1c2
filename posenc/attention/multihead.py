"""Multi-head self-attention whose position method is a parameter.

One module for every encoding in the book, so chapters and experiments compare them with
everything else held fixed. The position method is a :class:`~posenc.methods.base.PositionMethod`
(a name of :data:`~posenc.methods.registry.POSITION_METHODS` or an instance); attention calls its hooks
and knows no method by name:

================  ===========================================  ===============================
hook              where position enters                        methods
================  ===========================================  ===============================
``encode_input``  added to the input before the projections    ``sinusoidal``, ``learned``
``rotate_qk``     rotation of q and k, before the cache         ``rope``, ``rope_interleaved``
``logit_bias``    a bias on the logits (SDPA's ``attn_mask``)  ``t5``, ``alibi``, ``kerple``, ``fire``,
                  (content-dependent for CoPE)                 ``cope``
``attend``        replaces SDPA (relative values)              ``shaw``
(none)            nowhere (NoPE)                               ``none``
================  ===========================================  ===============================

Shape legend: ``b`` batch, ``L`` new tokens, ``P`` cached tokens, ``T = P + L`` keys,
``D`` model width ``d_model``, ``h`` heads, ``d = D / h`` head dimension.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from .._core import grid
from .._core.validate import check_choice, check_int, check_size, check_tensor
from ..methods.base import PositionMethod, reset_in_order
from ..methods.registry import POSITION_METHODS, build_method, method_options

__all__ = ["KVCache", "MultiHeadAttention", "causal_mask"]


def causal_mask(q_len: int, k_len: int | None = None, *, device: torch.device | str | None = None) -> torch.Tensor:
    """Boolean ``[Lq, Lk]`` mask, True where a query may attend (queries aligned at the end)."""
    q_len, k_len = grid.lengths(q_len, k_len, item_bytes=9)
    return _causal_mask(q_len, k_len, device)


def _causal_mask(q_len: int, k_len: int, device: torch.device | str | None) -> torch.Tensor:
    return grid.causal(q_len, k_len, device=device)  # [Lq, Lk], queries aligned at the end


@dataclass
class KVCache:
    """Keys and values of the tokens seen so far, ``[b, h, P, d]`` each (RoPE keys stored rotated)."""

    k: torch.Tensor | None = None
    v: torch.Tensor | None = None

    @property
    def length(self) -> int:
        """Number of cached positions ``P``."""
        return 0 if self.k is None else self.k.shape[-2]

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append ``[b, h, L, d]`` keys/values and return all of them, ``[b, h, P + L, d]``.

        Raises:
            ValueError: ``k`` and ``v`` of different shapes, or ``[b, h, d]`` other than the cache's.
        """
        check_tensor("k", k, ndim=4, floating=True)
        check_tensor("v", v, ndim=4, floating=True)
        if k.shape != v.shape:
            raise ValueError(
                f"k and v must have the same shape [b, h, L, d], got {tuple(k.shape)} and {tuple(v.shape)}"
            )
        if self.k is not None and (k.shape[:2] != self.k.shape[:2] or k.shape[-1] != self.k.shape[-1]):
            raise ValueError(
                f"k must match the cached [b, h, P, d] = {tuple(self.k.shape)} in b, h and d, got {tuple(k.shape)}"
            )
        if self.k is None or self.v is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat((self.k, k), dim=-2)
            self.v = torch.cat((self.v, v), dim=-2)
        return self.k, self.v


class MultiHeadAttention(nn.Module):
    """Multi-head self-attention with a pluggable position method.

    Uses ``torch.nn.functional.scaled_dot_product_attention`` unless the method computes attention
    itself (:meth:`~posenc.methods.base.PositionMethod.attend`, Shaw's); a method's logit bias goes in as
    a float ``attn_mask`` (``-inf`` where causal attention must not look), and without one the causal
    mask is SDPA's own (``is_causal``) or, when decoding with a cache, a boolean ``[L, T]`` mask.

    Args:
        d_model (int): model width ``D``.
        n_heads (int): number of heads ``h`` (``D`` divisible by ``h``; ``D / h`` even for RoPE).
        position (str or PositionMethod): a name of :data:`~posenc.methods.registry.POSITION_METHODS`,
            built with :func:`~posenc.methods.registry.build_method` for this attention's sizes, or a
            method object (used as given).
        causal (bool): decoder (True) or encoder (False) attention.
        max_len (int): the trained (or expected) length, which sizes a named method (the learned
            table, RoPE's initial cache, FIRE's threshold, CoPE's positions).
        bias (bool): whether the projections have biases.
        **options: the named method's own options, e.g. ``base=`` and ``scaling=`` for RoPE,
            ``max_distance=`` for Shaw, ``num_buckets=`` and ``max_distance=`` for T5
            (:func:`~posenc.methods.registry.method_options` lists them); none with a method object.

    Deferred initialisation: built under ``with torch.device("meta"):``, the module holds shapes only;
    ``to_empty(device=...)`` then :meth:`reset_parameters` initialises it as a normal build would.

    Size limit: before the hooks run, the forward refuses a query/key-grid tensor above the limit
    (``posenc.set_max_tensor_bytes`` raises it) that this call would build: the method's (a logit bias,
    Shaw's scores; :meth:`~posenc.methods.base.PositionMethod.workspace`) or the boolean ``[L, T]``
    mask when decoding. With no bias and no cache SDPA applies the causal mask itself (``is_causal``),
    and its fused kernels build no ``[L, T]`` tensor: nothing is refused.

    Compiling: ``torch.compile(fullgraph=True)`` traces the forward whole, at several lengths in a row
    (one recompilation, to a graph with a symbolic length) and with ``dynamic=True`` over decoding with
    a :class:`KVCache`. A compiled call does not grow RoPE's cos/sin cache nor check a learned table's
    length: build with ``max_len`` covering the lengths, or call once in eager mode first.

    Attributes:
        method (PositionMethod): the position method (a submodule).
        position (str): the registry name it was built from, else the method's ``name`` or class name.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        position: str | PositionMethod = "none",
        *,
        causal: bool = True,
        max_len: int = 2048,
        bias: bool = False,
        **options: Any,
    ) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, min_value=1)
        self.n_heads = check_int("n_heads", n_heads, min_value=1)
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        check_size("d_model", d_model, (4, self.d_model, self.d_model), item_bytes=4)  # the projections
        self.head_dim = self.d_model // self.n_heads
        self.causal = bool(causal)
        self.max_len = check_int("max_len", max_len, min_value=1)
        if isinstance(position, PositionMethod):
            if options:
                raise TypeError(
                    f"position is a built method ({type(position).__name__}): pass its options to it, "
                    f"not to the attention (got {', '.join(sorted(options))})"
                )
            for size in ("d_model", "n_heads", "head_dim"):
                if getattr(position, size, None) not in (None, getattr(self, size)):
                    raise ValueError(
                        f"position was built for {size}={getattr(position, size)}, this attention has "
                        f"{size}={getattr(self, size)}"
                    )
        else:
            position = check_choice("position", position, POSITION_METHODS)
            unknown = sorted(set(options) - set(method_options(position)))
            if unknown:  # refused before the projections are allocated
                raise TypeError(
                    f"position={position!r} takes no option {', '.join(unknown)}; its options: "
                    f"{', '.join(method_options(position)) or 'none'}"
                )
        self.qkv = nn.Linear(self.d_model, 3 * self.d_model, bias=bias)
        self.out = nn.Linear(self.d_model, self.d_model, bias=bias)
        if isinstance(position, PositionMethod):
            self.method = position
        else:  # built after the projections: their initialisation draws first, as it always has
            try:
                self.method = build_method(
                    position,
                    d_model=self.d_model,
                    n_heads=self.n_heads,
                    causal=self.causal,
                    max_len=self.max_len,
                    **options,
                )
            except ValueError as err:
                raise ValueError(
                    f"position={position!r} with d_model={self.d_model}, n_heads={self.n_heads} "
                    f"(head dimension {self.head_dim}): {err}"
                ) from err
        self.position = position if isinstance(position, str) else (self.method.name or type(self.method).__name__)

    def reset_parameters(self) -> None:
        """Initialise the projections and the method as the constructor does, in its order (the
        projections, then a method built by name), so the same seed gives the same module: the
        deferred initialisation after ``to_empty`` of a module built under ``with torch.device("meta"):``
        (torchtune, FSDP2). A method object passed in was built before the projections; it is reset
        after them here (its draws come second)."""
        reset_in_order(self)

    def forward(
        self,
        x: torch.Tensor,
        *,
        position_ids: torch.Tensor | None = None,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        """Attend.

        Args:
            x (torch.Tensor): ``[b, L, D]`` new tokens.
            position_ids (torch.Tensor, optional): ``[L]`` absolute positions of the new tokens;
                default ``arange(P, P + L)`` where ``P`` is the cache length. Used by the absolute
                encodings and RoPE; the relative methods use the query/key offsets.
            cache (KVCache, optional): filled with this call's keys and values; pass the same object
                at the next step to decode token by token.

        Returns:
            torch.Tensor: ``[b, L, D]``.
        """
        check_tensor("x", x, ndim=3, floating=True)
        b, seq, width = x.shape
        if width != self.d_model:
            raise ValueError(f"x's last dimension must be d_model={self.d_model}, got {width}")
        if cache is not None and not isinstance(cache, KVCache):
            raise TypeError(f"cache must be a posenc.KVCache or None, got {type(cache).__name__}")
        past = 0 if cache is None else cache.length
        self._check_workspace(x, past)
        if position_ids is None:
            position_ids = torch.arange(past, past + seq, device=x.device)
            if not torch.compiler.is_compiling():
                self.method.reserve(past + seq)  # from the shapes: no tensor value is read
        check_tensor("position_ids", position_ids, ndim=1, floating=False)
        if len(position_ids) != seq:
            raise ValueError(f"position_ids must have one entry per token of x (L={seq}), got {len(position_ids)}")
        method = self.method
        x = method.encode_input(x, position_ids)  # [b, L, D]
        q, k, v = self.qkv(x).view(b, seq, 3, self.n_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # 3 x [b, h, L, d]
        q, k = method.rotate_qk(q, k, position_ids)
        if cache is not None:
            k, v = cache.append(k, v)  # [b, h, T, d]
        y = method.attend(q, k, v, causal=self.causal)  # [b, h, L, d] or None
        if y is None:
            k_len = k.shape[-2]
            mask = method.logit_bias(q, k, causal=self.causal)  # [1 or b, h, L, T] or None
            # decided from the cache (a Python value), not from the lengths: under torch.compile's dynamic
            # shapes a comparison of lengths is symbolic, and SDPA's is_causal must be a bool
            if mask is None and self.causal and past:
                mask = _causal_mask(seq, k_len, x.device)  # [L, T] bool
            is_causal = self.causal and mask is None
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal)  # [b, h, L, d]
        y = y.transpose(1, 2).reshape(b, seq, self.d_model)  # [b, L, D]
        return self.out(y)

    def _check_workspace(self, x: torch.Tensor, past: int) -> None:
        """Refuse, before any hook runs, a query/key-grid tensor that this call would build above the size
        limit: the method's own (:meth:`~posenc.methods.base.PositionMethod.workspace`), else the boolean
        ``[L, T]`` causal mask when decoding. None when SDPA applies the causal mask itself (``is_causal``):
        its fused kernels build no ``[L, T]`` tensor, so 16K tokens over 32 heads pass."""
        b, seq = x.shape[0], x.shape[1]
        need = self.method.workspace(b, self.n_heads, seq, past + seq, x.element_size())
        if need is None and self.causal and past:
            need = ((seq, past + seq), 1)  # the boolean causal mask
        if need is not None:  # the message is formatted only on failure: no symbolic size is specialised
            check_size(
                lambda: f"x of shape {tuple(x.shape)} with {past} cached tokens", None, need[0], item_bytes=need[1]
            )

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, n_heads={self.n_heads}, position={self.position!r}, causal={self.causal}"
