"""KERPLE: kernelized relative positional embedding (Chi, Fan, Ramadge, Rudnicky, NeurIPS 2022).

ALiBi fixes the shape of the distance penalty by hand. KERPLE learns it, inside a family its paper
calls valid: every head adds a *conditionally positive definite* (CPD) kernel of the distance to its
logits,

- logarithmic: ``b(i, j) = -r1 * log(1 + r2 * |i - j|)``
- power:       ``b(i, j) = -r1 * |i - j| ** r2``,  ``0 < r2 <= 2``

with learnable ``r1, r2 > 0`` per head. A CPD kernel ``k`` satisfies ``c^T K c >= 0`` for every
weight vector ``c`` with ``sum(c) = 0``. A *strictly* CPD kernel (``c^T K c > 0`` unless ``c = 0``)
plus a large enough constant is positive definite on a given finite set of positions (the constant
grows with the set), and the constant cancels in the softmax (adding one number to a whole row of
logits changes nothing), so the biased logits are an inner product in some feature space. The log
kernel and the power kernel with ``r2 < 2`` are strictly CPD; at ``r2 = 2`` the power kernel is CPD
but not strictly, and no constant makes it positive semidefinite on three adjacent positions
(chapter 11 checks both). The bias *is*
the CPD kernel (sign included): ``-|x - y| ** p`` is CPD for ``0 < p <= 2`` and
``-log(1 + r2 |x - y|)`` is CPD (paper, Sec. 3 and Prop. 1). ALiBi is the power variant with
``r2 = 1`` and ``r1`` the head's ALiBi slope, both fixed.

Positivity, as in the official code (chijames/KERPLE, ``ParallelKerpleLog``/``ParallelKerplePower``):
``r1, r2`` are plain parameters kept in ``[eps, inf)`` (``r2`` of the power variant in
``[eps, 2]``), ``eps = 0.01``. The official code clamps ``param.data`` in place at every forward (a
projected gradient step); here the clamp is applied to the value only, with the gradient passed
through unchanged (a straight-through clamp), so a forward pass never mutates the module and the
optimiser sees the same gradient. Initialisation as the official code: log ``r1 ~ U(0, 2)``,
``r2 ~ U(0, 1)``; power ``r1 ~ U(0, 1)``, ``r2 ~ U(0, 2)`` (uniform draws from torch's global
generator), unless given.

Like the official code, the bias is added to the logits after the ``1/sqrt(d)`` scaling.

One ``KerpleBias`` holds one set of ``(r1, r2)`` per head. The official code builds one such module
and hands the same object to every layer (``megatron/model/gpt2_model.py``: one ``rpe_emb`` passed
to each ``ParallelTransformerLayerPipe``), so all layers share ``h`` pairs. Sharing is the caller's
choice here: ``posenc.experiments.TinyLM`` builds one position object per layer, so its KERPLE model has
``n_layers * h`` pairs and each layer learns its own kernel.

Shape legend: ``b`` batch, ``h`` heads ``n_heads``, ``L`` queries, ``T`` keys (queries aligned at
the end of the keys), ``d`` head dimension, ``n`` number of distances.

References:
    Chi, Fan, Ramadge, Rudnicky, "KERPLE: Kernelized Relative Positional Embedding for Length
    Extrapolation", NeurIPS 2022 (arXiv:2205.09921); official code chijames/KERPLE
    (``megatron/mpu/layers.py``).
"""

from __future__ import annotations

import numbers

import numpy as np
import torch
from torch import nn

from .._core import grid
from .._core.validate import check_choice, check_float, check_int, check_tensor
from .base import CachedBias

__all__ = ["KerpleBias"]

#: The two kernel families of the paper.
KERPLE_KINDS = ("log", "power")


def _straight_through_clamp(x: torch.Tensor, lo: float, hi: float | None) -> torch.Tensor:
    """``x`` clamped to ``[lo, hi]`` in value, with the gradient of the identity."""
    return x + (x.clamp(min=lo, max=hi) - x).detach()


def _initial(name: str, value, n_heads: int, *, le: float | None) -> torch.Tensor | None:
    """``None``, a positive number or ``n_heads`` positive numbers -> float32 ``[h]`` (validated)."""
    if value is None:
        return None
    if isinstance(value, torch.Tensor) and value.ndim == 0 and value.dtype != torch.bool and not value.is_complex():
        value = value.item()  # one number as a 0-d tensor
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return torch.full((n_heads,), check_float(name, value, gt=0.0, le=le), dtype=torch.float32)
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            value = torch.as_tensor(np.asarray(value, dtype=np.float64), dtype=torch.float32)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a number or a sequence of numbers (one per head), got {value!r}") from None
    check_tensor(name, value, ndim=1, floating=True, finite=True)
    if value.shape[0] != n_heads:
        raise ValueError(
            f"{name} must be a number or have one entry per head (n_heads={n_heads}), got shape {tuple(value.shape)}"
        )
    if not bool((value > 0).all()) or (le is not None and not bool((value <= le).all())):
        bound = "> 0" if le is None else f"in (0, {le:g}]"
        raise ValueError(f"{name} must be {bound}, got {value.tolist()}")
    return value.detach().to(torch.float32).clone()


class KerpleBias(CachedBias):
    """KERPLE's learnable CPD-kernel bias on the attention logits, one ``(r1, r2)`` per head.

    Args:
        n_heads (int): number of heads ``h``.
        kind (str): ``"log"`` (``-r1 log(1 + r2 |i-j|)``, the paper's best) or ``"power"``
            (``-r1 |i-j|^r2``).
        causal (bool): default for :meth:`bias` (``logit_bias`` follows the attention's ``causal``).
        r1, r2 (float or sequence of float, optional): initial values (one number, or one per head as a
            list, tuple, NumPy array or 1-D float tensor);
            default: the official code's uniform draws. ``r1 > 0``; ``r2 > 0`` and, for ``"power"``,
            ``r2 <= 2`` (beyond 2 the kernel is no longer CPD).
        eps (float): lower bound of ``r1`` and ``r2`` (official: 0.01).

    Attributes:
        r1, r2 (nn.Parameter): float32 ``[h]``; the values used are clamped (see the module docstring).

    As a position method, ``logit_bias(q, k, *, causal)`` returns the float ``[1, h, L, T]`` bias of
    ``q``'s dtype (``-inf`` where causal-masked) to add to ``q k^T / sqrt(d)``: built from the
    ``L + T - 1`` per-distance values of each head and kept between calls when no gradient is needed.
    """

    name = "kerple"

    @classmethod
    def build(
        cls,
        *,
        d_model: int,
        n_heads: int,
        head_dim: int,
        causal: bool,
        max_len: int,
        kind: str = "log",
        r1=None,
        r2=None,
        eps: float = 1e-2,
    ) -> KerpleBias:
        return cls(n_heads, kind=kind, causal=causal, r1=r1, r2=r2, eps=eps)

    def __init__(
        self, n_heads: int, *, kind: str = "log", causal: bool = True, r1=None, r2=None, eps: float = 1e-2
    ) -> None:
        super().__init__()
        self.n_heads = check_int("n_heads", n_heads, min_value=1, max_value=2**20)
        self.kind = check_choice("kind", kind, KERPLE_KINDS)
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool, got {type(causal).__name__} ({causal!r})")
        self.causal = causal
        self.eps = check_float("eps", eps, gt=0.0, le=1.0)
        self._r2_max = 2.0 if self.kind == "power" else None
        with torch.device("cpu"):  # given values are checked (read) on the CPU, even under a meta device
            self._inits = (_initial("r1", r1, self.n_heads, le=None), _initial("r2", r2, self.n_heads, le=self._r2_max))
        self.r1 = nn.Parameter(torch.empty(self.n_heads))
        self.r2 = nn.Parameter(torch.empty(self.n_heads))
        self._draw()

    def _draw(self) -> None:
        """The official code's uniform draws (``r1`` first), or the given initial values."""
        scales = (2.0, 1.0) if self.kind == "log" else (1.0, 2.0)  # official uniform ranges
        with torch.no_grad():
            for param, init, scale in zip((self.r1, self.r2), self._inits, scales):
                param.copy_(torch.rand(self.n_heads, device=param.device) * scale if init is None else init)

    def reset_parameters(self) -> None:
        """Draw ``r1`` and ``r2`` as the constructor does (after ``to_empty``)."""
        super().reset_parameters()  # the bias cache
        self._draw()

    def coefficients(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The ``(r1, r2)`` the bias uses, each float32 ``[h]``, clamped (differentiable)."""
        return (
            _straight_through_clamp(self.r1, self.eps, None),
            _straight_through_clamp(self.r2, self.eps, self._r2_max),
        )

    def bias_by_distance(self, distance: torch.Tensor) -> torch.Tensor:
        """The kernel at each distance: ``[...]`` -> ``[h, ...]``.

        ``distance`` may be signed (``key_pos - query_pos``) and fractional: the kernel uses
        ``|distance|`` and is symmetric. No causal mask here. Float64 distances give a float64
        result (for checks against the float32 noise floor); any other dtype gives float32.
        """
        check_tensor("distance", distance)
        if distance.dtype == torch.bool or distance.is_complex():
            raise TypeError(f"distance must be a real tensor, got dtype {distance.dtype}")
        return self._kernel(distance if distance.dtype == torch.float64 else distance.to(torch.float32))

    def _kernel(self, distance: torch.Tensor) -> torch.Tensor:
        r1, r2 = self.coefficients()
        shape = (self.n_heads,) + (1,) * distance.ndim
        r1, r2, dist = r1.view(shape), r2.view(shape), distance.abs()[None]
        if self.kind == "log":
            return -r1 * torch.log1p(r2 * dist)
        return -r1 * dist.pow(r2)

    def bias(self, q_len: int, k_len: int | None = None, *, causal: bool | None = None) -> torch.Tensor:
        """The bias ``[h, L, T]`` (float32) for queries aligned at the end of the keys.

        Args:
            q_len (int): number of queries ``L``.
            k_len (int, optional): number of keys ``T >= L``; default ``L``.
            causal (bool, optional): ``-inf`` where the key is after the query; default: the
                constructor's ``causal``.
        """
        q_len, k_len = grid.lengths(q_len, k_len, lead=(self.n_heads,), item_bytes=4)
        if causal is not None and not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool or None (the constructor's), got {type(causal).__name__}")
        causal = self.causal if causal is None else causal
        return self._bias(q_len, k_len, causal, torch.float32)

    def _bias(self, q_len: int, k_len: int, causal: bool, dtype: torch.dtype) -> torch.Tensor:
        """``[h, L, T]`` from the ``L + T - 1`` per-distance values of each head (Toeplitz spread)."""
        dist = grid.distance_range(q_len, k_len, device=self.r1.device, dtype=torch.float32)  # [L + T - 1]
        values = self._kernel(dist)  # [h, L + T - 1]
        if causal:
            values = values.masked_fill(dist > 0, float("-inf"))  # keys after the query
        return grid.toeplitz(values.to(dtype), q_len, k_len)

    def _values(self, causal, dtype, device, q_len, k_len):
        return self._bias(q_len, k_len, causal, dtype)  # [h, L, T]

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}, kind={self.kind!r}, causal={self.causal}, eps={self.eps:g}"
