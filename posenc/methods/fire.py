"""FIRE: functional interpolation for relative positions (Li et al., ICLR 2024).

T5 learns one number per distance bucket, KERPLE two numbers per head. FIRE learns the whole
function of distance with a small MLP ``f``, applied to a *normalised* distance:

    b(i, j) = f( psi(i - j) / psi(max(i, L_thr)) ),    psi(x) = log(abs(c) x + 1)

for a query at position ``i`` and a key at ``j <= i`` (0-based absolute positions), with
learnable ``c`` (the paper's text writes ``log(c x + 1)``, its listing ``log(|c x| + 1)``) and
threshold ``L_thr``. ``f`` maps one number to one bias per head.

- ``psi`` (log) gives near keys more resolution than far ones, as T5's logarithmic buckets do.
- Progressive interpolation: dividing by ``psi(i)`` maps every distance a query can see into
  ``[0, 1]``, at any length, with the farthest key at 1: far keys are squeezed into the trained
  range instead of falling off its end. The range is the same, not the values in it: a query
  beyond the trained length puts its nearest keys closer to 0 (``psi(1) / psi(i)``) than any
  trained query did, so at a fixed small distance the MLP is read at new inputs. The threshold
  keeps short contexts from being stretched: below ``L_thr`` the divisor is the constant
  ``psi(L_thr)`` and the bias depends on ``i - j`` only.

The computation is the paper's pseudo-code (its appendix listing), with no deviation: ``f`` =
Linear(1, hidden) -> ReLU -> Linear(hidden, h), hidden 32; ``c`` initialised to 0.1 and taken in
absolute value in both logs (the listing computes ``torch.log(torch.abs(self.c * rel_distance) + 1)``
and the same for the divisor, so a ``c`` that training drives negative is as valid as a positive
one); ``L_thr = |m * L0|`` with ``L0`` fixed (512 in the paper, for 2048-token training) and the
multiplier ``m`` learnable (initialised to 1); ``eps`` added to the divisor only. The listing's
``|i - j|`` is written here as the distance back from the query; keys after the query are masked
when causal. ``tests/test_learned_position.py`` compares it with the listing, for either sign of ``c``.

The bias does not depend on content: it is kept between calls when no gradient is needed. Unlike
ALiBi's or KERPLE's it is not a function of ``i - j`` alone once ``i > L_thr``: it is built on the
``[L, T]`` grid, not spread from per-distance values.

Shape legend: ``b`` batch, ``h`` heads ``n_heads``, ``L`` queries, ``T`` keys (queries aligned at
the end of the keys: query row ``r`` sits at position ``T - L + r``), ``d`` head dimension.

References:
    Li, You, Guruganesh, Ainslie, Ontanon, Zaheer, Sanghai, Yang, Kumar, Bhojanapalli,
    "Functional Interpolation for Relative Positions Improves Long Context Transformers",
    ICLR 2024 (arXiv:2310.04418), Sec. 3 and the pseudo-code of its appendix.
"""

from __future__ import annotations

import torch
from torch import nn

from .._core import grid
from .._core.validate import check_float, check_int, check_tensor
from .base import CachedBias

__all__ = ["FireBias"]


class FireBias(CachedBias):
    """FIRE's learned bias: an MLP of the progressively normalised log distance.

    Args:
        n_heads (int): number of heads ``h`` (the MLP's outputs).
        hidden (int): width of the MLP's hidden layer (paper: 32).
        c_init (float): initial ``c`` of ``psi(x) = log(c x + 1)`` (paper: 0.1; > 0).
        L_thr_init (float): initial threshold ``L_thr`` (paper: 512 for 2048-token training; > 0).
        causal (bool): default for :meth:`bias` (``logit_bias`` follows the attention's ``causal``).
        eps (float): added to the divisor ``psi(max(i, L_thr))`` (paper's pseudo-code: 1e-6).

    Attributes:
        mlp (nn.Sequential): ``Linear(1, hidden) -> ReLU -> Linear(hidden, h)``.
        c (nn.Parameter): scalar; used as ``|c|``, as in the paper's listing.
        L_multiplier (nn.Parameter): scalar; ``L_thr = |L_multiplier * L_thr_init|``.

    As a position method, ``logit_bias(q, k, *, causal)`` returns the float ``[1, h, L, T]`` bias of
    ``q``'s dtype (``-inf`` where causal-masked) to add to ``q k^T / sqrt(d)``, kept between calls
    when no gradient is needed.
    """

    name = "fire"
    L_thr_init: torch.Tensor  # a buffer

    @classmethod
    def build(
        cls,
        *,
        d_model: int,
        n_heads: int,
        head_dim: int,
        causal: bool,
        max_len: int,
        hidden: int = 32,
        c_init: float = 0.1,
        L_thr_init: float | None = None,
        eps: float = 1e-6,
    ) -> FireBias:
        # the threshold starts at a quarter of the trained length (the paper: 512 for 2048 tokens)
        return cls(
            n_heads,
            hidden=hidden,
            c_init=c_init,
            L_thr_init=max_len / 4 if L_thr_init is None else L_thr_init,
            causal=causal,
            eps=eps,
        )

    def __init__(
        self,
        n_heads: int,
        *,
        hidden: int = 32,
        c_init: float = 0.1,
        L_thr_init: float = 512.0,
        causal: bool = True,
        eps: float = 1e-6,
    ) -> None:
        super().__init__()
        self.n_heads = check_int("n_heads", n_heads, min_value=1, max_value=2**16)
        self.hidden = check_int("hidden", hidden, min_value=1, max_value=2**16)
        c_init = check_float("c_init", c_init, gt=0.0)
        L_thr_init = check_float("L_thr_init", L_thr_init, gt=0.0)
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool, got {type(causal).__name__} ({causal!r})")
        self.causal = causal
        self.eps = check_float("eps", eps, ge=0.0, le=1.0)
        self.mlp = nn.Sequential(nn.Linear(1, self.hidden), nn.ReLU(), nn.Linear(self.hidden, self.n_heads))
        self._inits = (c_init, L_thr_init)
        self.c = nn.Parameter(torch.tensor(c_init, dtype=torch.float32))
        self.register_buffer("L_thr_init", torch.tensor(L_thr_init, dtype=torch.float32))
        self.L_multiplier = nn.Parameter(torch.tensor(1.0, dtype=torch.float32))

    def reset_parameters(self) -> None:
        """As the constructor: the MLP's layers (their own initialisation, in order), ``c = c_init``,
        ``L_thr_init`` and ``L_multiplier = 1``."""
        super().reset_parameters()  # the bias cache and the MLP
        c_init, L_thr_init = self._inits
        with torch.no_grad():
            self.c.fill_(c_init)
            self.L_thr_init.fill_(L_thr_init)
            self.L_multiplier.fill_(1.0)

    @property
    def threshold(self) -> torch.Tensor:
        """The current ``L_thr = |L_multiplier * L_thr_init|`` (scalar float32, differentiable)."""
        return (self.L_multiplier * self.L_thr_init).abs()

    def _psi(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log1p(self.c.abs() * x)

    def normalized_distance(self, query_pos: torch.Tensor, key_pos: torch.Tensor) -> torch.Tensor:
        """The MLP's input ``psi(|i - j|) / psi(max(i, L_thr))`` on the grid: ``[L]``, ``[T]`` -> ``[L, T]``.

        Args:
            query_pos (torch.Tensor): 1-D absolute query positions ``i`` (integer or float, >= 0).
            key_pos (torch.Tensor): 1-D absolute key positions ``j``.

        Returns:
            torch.Tensor: float32 ``[L, T]``; in ``[0, 1]`` wherever ``0 <= j <= i``.
        """
        check_tensor("query_pos", query_pos, ndim=1)
        check_tensor("key_pos", key_pos, ndim=1)
        for name, pos in (("query_pos", query_pos), ("key_pos", key_pos)):
            if pos.dtype == torch.bool or pos.is_complex():
                raise TypeError(f"{name} must hold real positions (an integer or float tensor), got dtype {pos.dtype}")
            if not bool(torch.isfinite(pos).all()) or bool((pos < 0).any()):
                raise ValueError(f"{name} must hold real positions >= 0 (finite, not NaN)")
        return self._normalized(query_pos.to(torch.float32), key_pos.to(torch.float32))

    def _normalized(self, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
        dist = (q_pos[:, None] - k_pos[None, :]).abs()  # [L, T]
        divisor = self._psi(torch.maximum(q_pos, self.threshold)) + self.eps  # [L]
        return self._psi(dist) / divisor[:, None]

    def bias_at(self, query_pos: torch.Tensor, key_pos: torch.Tensor) -> torch.Tensor:
        """The bias ``f(normalised distance)`` at the given positions, float32 ``[h, L, T]`` (no mask)."""
        u = self.normalized_distance(query_pos, key_pos)  # validates
        return self._mlp(u)

    def _mlp(self, u: torch.Tensor) -> torch.Tensor:
        """``[L, T]`` -> ``[h, L, T]``."""
        return self.mlp(u.unsqueeze(-1)).permute(2, 0, 1)

    def bias(self, q_len: int, k_len: int | None = None, *, causal: bool | None = None) -> torch.Tensor:
        """The bias ``[h, L, T]`` (float32) for queries aligned at the end of the keys.

        Args:
            q_len (int): number of queries ``L``.
            k_len (int, optional): number of keys ``T >= L``; default ``L``.
            causal (bool, optional): ``-inf`` where the key is after the query; default: the
                constructor's ``causal``.
        """
        q_len, k_len = grid.lengths(q_len, k_len, lead=(self.n_heads + self.hidden + 2,), item_bytes=4)
        if causal is not None and not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool or None (the constructor's), got {type(causal).__name__}")
        causal = self.causal if causal is None else causal
        return self._bias(q_len, k_len, causal, torch.float32, self.c.device)

    def _bias(self, q_len: int, k_len: int, causal: bool, dtype: torch.dtype, device) -> torch.Tensor:
        k_pos = torch.arange(k_len, device=device, dtype=self.c.dtype)  # [T], in the parameters' dtype
        q_pos = grid.query_positions(q_len, k_len, device=device, dtype=self.c.dtype)  # [L], aligned at the end
        bias = self._mlp(self._normalized(q_pos, k_pos))  # [h, L, T]
        if causal:
            bias = bias.masked_fill(grid.future(q_len, k_len, device=device), float("-inf"))
        return bias.to(dtype)

    def workspace(self, batch, n_heads, q_len, k_len, item_bytes):
        # float32 [L, T] distances and MLP input, [L, T, hidden] and [L, T, h] activations, then the bias
        return (self.n_heads + self.hidden + 2, q_len, k_len), max(4, item_bytes)

    def _values(self, causal, dtype, device, q_len, k_len):
        return self._bias(q_len, k_len, causal, dtype, device)  # [h, L, T]

    def extra_repr(self) -> str:
        return (
            f"n_heads={self.n_heads}, hidden={self.hidden}, "
            f"L_thr_init={self._inits[1] if self.L_thr_init.is_meta else self.L_thr_init.item():g}, "
            f"causal={self.causal}"
        )
