"""The position-method interface: where and how a position method enters attention.

Every encoding of the book changes attention in one (or two) of four places, and each is one
optional hook of :class:`PositionMethod`; :class:`~posenc.attention.MultiHeadAttention` calls the
hooks and knows no method by name. :class:`CachedBias` is the shared base of the methods whose
logit bias depends on the distance only (T5, ALiBi, KERPLE, FIRE). The registry of the built-in
methods is :mod:`posenc.methods.registry`.

Constructors validate their arguments (the public boundary); the hooks trust theirs. Every hook is
written so that ``torch.compile(fullgraph=True)`` traces it whole: no ``.item()``, no branch on a
tensor's values (the bias cache is bypassed while compiling).

Shape legend: ``b`` batch, ``L`` new tokens (queries), ``P`` cached tokens, ``T = P + L`` keys,
``D`` model width ``d_model``, ``h`` heads, ``d`` head dimension.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["PositionMethod", "CachedBias", "reset_in_order"]


def reset_in_order(module: nn.Module) -> None:
    """Re-initialise ``module``'s submodules in the order they were registered: each one's own
    ``reset_parameters()`` where it has one (which then covers its subtree), else its children's.

    The deferred initialisation of torchtune and FSDP2: build under ``with torch.device("meta"):``,
    ``to_empty(device=...)``, then ``reset_parameters()``. When the submodules were registered in the
    order they were built (every module of posenc), the random draws come in the constructor's order,
    so the same seed gives the same parameters as a normal build.

    Raises:
        TypeError: ``module`` is not a ``torch.nn.Module``.
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    for child in module.children():
        reset = getattr(child, "reset_parameters", None)
        if callable(reset):
            reset()
        else:
            reset_in_order(child)


class PositionMethod(nn.Module):
    """A position method for :class:`~posenc.attention.MultiHeadAttention`; every hook is optional.

    The base versions do nothing, so a subclass overrides only the hooks of its method. A method
    built for a size sets it as an attribute (``d_model``, ``n_heads`` or ``head_dim``), which
    attention checks against its own. In the order attention calls them:

    - :meth:`encode_input`: ``x [b, L, D]`` -> ``[b, L, D]`` before the projections (absolute encodings).
    - :meth:`rotate_qk`: ``q, k [b, h, L, d]`` -> ``(q, k)`` before the key/value cache (RoPE).
    - :meth:`attend`: replaces ``scaled_dot_product_attention`` entirely (Shaw); None = use SDPA.
    - :meth:`logit_bias`: a float ``[1 or b, h, L, T]`` added to ``q.k / sqrt(d)``, or None.

    Attributes:
        name (str or None): the registry name of a built-in method (None for other methods).
    """

    name: str | None = None

    @classmethod
    def build(cls, *, d_model: int, n_heads: int, head_dim: int, causal: bool, max_len: int) -> PositionMethod:
        """The method for an attention of these sizes (``max_len``: the trained or expected length),
        with the method's own options as keyword arguments after them; the registry calls it.
        The base builds ``cls()`` and takes no option."""
        return cls()

    @classmethod
    def acts_on_input(cls) -> bool:
        """Whether the method encodes the input (overrides :meth:`encode_input`): an absolute encoding,
        which a language model adds once to its token embeddings rather than in every layer."""
        return cls.encode_input is not PositionMethod.encode_input

    def reset_parameters(self) -> None:
        """Initialise the parameters and recompute the buffers as the constructor does (after
        ``to_empty`` of a method built on the meta device); the base resets the submodules in order
        (:func:`reset_in_order`)."""
        reset_in_order(self)

    def reserve(self, n: int) -> None:
        """Prepare for positions ``0 .. n - 1`` (attention calls it with ``n`` from shapes, outside any
        compiled graph, before the hooks). The base does nothing; RoPE grows its cos/sin cache."""

    def workspace(
        self, batch: int, n_heads: int, q_len: int, k_len: int, item_bytes: int
    ) -> tuple[tuple[int, ...], int] | None:
        """The query/key-grid tensors the hooks build for ``batch`` x ``n_heads`` heads, ``q_len`` queries
        and ``k_len`` keys of ``item_bytes`` per element, as ``(shape, bytes per entry)``, or None (the
        base: no ``[L, T]`` tensor). Attention refuses it above the size limit before calling the hooks
        (``posenc.set_max_tensor_bytes`` raises the limit)."""
        return None

    def encode_input(self, x: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        """``x [b, L, D]`` with position ``position_ids [L]`` (int) encoded; the base returns ``x``."""
        return x

    def rotate_qk(
        self, q: torch.Tensor, k: torch.Tensor, position_ids: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """New queries and keys ``[b, h, L, d]`` at ``position_ids [L]``, before the cache; the base returns them."""
        return q, k

    def logit_bias(self, q: torch.Tensor, k: torch.Tensor, *, causal: bool) -> torch.Tensor | None:
        """Float ``[1 or b, h, L, T]`` added to the logits, ``-inf`` where a causal query must not look.

        ``q [b, h, L, d]``, ``k [b, h, T, d]`` (after the cache; queries aligned at the end of the
        keys). The base returns None: attention then applies the plain causal mask itself.
        """
        return None

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool) -> torch.Tensor | None:
        """Attention output ``[b, h, L, d]`` computed by the method itself, or None (the base) to use SDPA."""
        return None


class CachedBias(PositionMethod):
    """A bias that depends on the distance only: built for ``L + T - 1`` distances per head, spread
    over the grid (``grid.toeplitz``, no ``[L, T]`` temporaries) and kept per shape, dtype and device, in
    the 4-D ``[1, h, L, T]`` layout that SDPA's CPU kernel reads fastest (a 3-D mask takes a slower path)."""

    def __init__(self) -> None:
        super().__init__()
        self._bias_cache: dict = {}  # (L, T, dtype, device, causal, table version, inference mode) -> [1, h, L, T]

    def workspace(self, batch, n_heads, q_len, k_len, item_bytes):
        return (1, n_heads, q_len, k_len), item_bytes  # the bias (its per-distance values are O(L + T))

    def _values(self, causal: bool, dtype: torch.dtype, device: torch.device, q_len: int, k_len: int) -> torch.Tensor:
        """The ``[h, L, T]`` bias of ``dtype`` for ``L`` queries aligned at the end of ``T`` keys."""
        raise NotImplementedError

    def reset_parameters(self) -> None:
        self._bias_cache.clear()  # built from the old values
        super().reset_parameters()

    def _parameter_versions(self) -> tuple:
        """Changes whenever the bias would: the parameters' in-place version counters (every
        optimiser step or ``load_state_dict`` bumps them) and storage."""
        return parameter_versions(self)

    def _reusable(self) -> bool:
        """Whether a built bias may be kept: only when it would not be part of an autograd graph."""
        return no_grad_needed(self)

    def logit_bias(self, q: torch.Tensor, k: torch.Tensor, *, causal: bool) -> torch.Tensor:
        q_len, k_len = q.shape[-2], k.shape[-2]
        if torch.compiler.is_compiling():  # inside a compiled graph the bias is part of the graph
            return self._values(causal, q.dtype, q.device, q_len, k_len).unsqueeze(0)
        # a bias built under inference_mode is an inference tensor, which autograd refuses to save:
        # one cache entry for each side
        key = (q_len, k_len, q.dtype, q.device, causal, self._parameter_versions(), torch.is_inference_mode_enabled())
        reusable = self._reusable()
        if reusable and key in self._bias_cache:
            return self._bias_cache[key]
        bias = self._values(causal, q.dtype, q.device, q_len, k_len).unsqueeze(0)  # [1, h, L, T], a view
        if reusable:
            while len(self._bias_cache) >= 2:  # the current shape and one other (e.g. evaluation)
                self._bias_cache.pop(next(iter(self._bias_cache)))
            self._bias_cache[key] = bias
        return bias


def parameter_versions(module: nn.Module) -> tuple:
    """Changes whenever a parameter of ``module`` is changed in place or replaced."""
    return tuple((p._version, p.data_ptr()) for p in module.parameters())


def no_grad_needed(module: nn.Module) -> bool:
    """True when a bias built from ``module``'s parameters would not be part of an autograd graph."""
    return not (torch.is_grad_enabled() and any(p.requires_grad for p in module.parameters()))
