"""CoPE: contextual position encoding (Golovneva, Wang, Weston, Sukhbaatar, 2024).

Token positions count tokens. CoPE lets each query decide what to count: a gate per
query/key pair,

    g_ij = sigmoid(q_i . k_j / sqrt(d)),

says whether key ``j`` counts for query ``i``, and the position of key ``j`` seen from query ``i``
is the number of counted tokens from ``j`` up to ``i``, both included:

    p_ij = sum_{t = j .. i} g_it.

With every gate at 1, ``p_ij = i - j + 1`` (the query itself counts: the key at the query's own
position is at 1, the key just before it at 2). Positions are fractional, so the learned
position embeddings ``e[0..npos_max-1]`` (one ``[d]`` vector per integer position) are
interpolated: ``e(p) = (ceil(p) - p) e[floor p] + (p - floor p) e[ceil p]``, and the contextual
logit ``q_i . e(p_ij)`` is added to the content logit. Positions above ``npos_max - 1`` are
clamped (the reference code's only way past the trained range).

Follows the reference implementation (facebookresearch/RAM, ``projects/cope/src/cope/context_position.py``,
default options): the gates use the same ``q . k`` as the attention (no separate key
projection), computed as ``sigmoid(q . k / sqrt(d))``; the position embeddings ``[d, npos_max]``
are zero-initialised and shared by the heads of a layer; the logits are ``(q.k + q.e(p)) / sqrt(d)``,
so the bias added to the scaled logits ``q.k / sqrt(d)`` is ``q.e(p) / sqrt(d)`` (the paper's short
listing, like the reference's ``--cope-nodiv`` option, adds ``q.e(p)`` unscaled; the default divides);
the reference's default also gives every layer its own embeddings (``--cope-shared`` off), as
``posenc.experiments.TinyLM`` does. Deviation: the
reference zeroes the gates of future keys and sums from the right (two flips of the ``[L, T]``
matrix); here the running sum from the left gives ``p_ij = C_ii - C_ij + g_ij`` (see
``_positions``), which never reads future gates; the two agree up to float32 rounding. The default
``npos_max = max_len + 1`` of the reference (one extra because position 0 is possible once gates
are masked) is the registry's choice.

Non-causal attention (an extension, not in the paper): the count runs between the query and the
key whichever comes first, ``p_ij = sum_{t between i and j} g_it``, so past and future keys share
the embeddings.

Shape legend: ``b`` batch, ``h`` heads, ``L`` queries, ``T`` keys (queries aligned at the end of
the keys), ``d`` head dimension, ``P`` ``npos_max``.

References:
    Golovneva, Wang, Weston, Sukhbaatar, "Contextual Position Encoding: Learning to Count What's
    Important", arXiv:2405.18719 (2024); code facebookresearch/RAM ``projects/cope``.
"""

from __future__ import annotations

import torch
from torch import nn

from .._core import grid
from .._core.validate import check_int, check_tensor
from .base import PositionMethod

__all__ = ["CoPE"]

_CHUNK = 2**20  # entries of the [rows, L, T] temporaries computed at once without gradients (4 MiB in float32)


class CoPE(PositionMethod):
    """Contextual position encoding: gated counts as positions, interpolated embeddings as logits.

    Args:
        head_dim (int): head dimension ``d``.
        npos_max (int): number of learned integer positions ``P`` (0 .. P-1); positions above
            ``P - 1`` are clamped. The reference uses the trained length + 1.
        causal (bool): default of :meth:`positions` (``logit_bias`` follows the attention's ``causal``).

    Attributes:
        pos_emb (nn.Parameter): float32 ``[d, P]``, zero-initialised as in the reference.

    The bias depends on the content (``q``, ``k``): it is computed at every call, never kept.
    """

    name = "cope"

    @classmethod
    def build(
        cls, *, d_model: int, n_heads: int, head_dim: int, causal: bool, max_len: int, npos_max: int | None = None
    ) -> CoPE:
        # one embedding per position up to the trained length (the reference: block_size + 1)
        return cls(head_dim, npos_max=max_len + 1 if npos_max is None else npos_max, causal=causal)

    def __init__(self, head_dim: int, *, npos_max: int, causal: bool = True) -> None:
        super().__init__()
        self.head_dim = check_int("head_dim", head_dim, min_value=1, max_value=2**16)
        self.npos_max = check_int("npos_max", npos_max, min_value=2, max_value=2**24)
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool, got {type(causal).__name__} ({causal!r})")
        self.causal = causal
        self.pos_emb = nn.Parameter(torch.zeros(self.head_dim, self.npos_max))

    def reset_parameters(self) -> None:
        """Zero the position embeddings, as the constructor (and the reference) does."""
        with torch.no_grad():
            self.pos_emb.zero_()

    def _check_qk(self, q: torch.Tensor, k: torch.Tensor) -> None:
        check_tensor("q", q, min_ndim=2, floating=True)
        check_tensor("k", k, min_ndim=2, floating=True)
        if q.shape[-1] != self.head_dim or k.shape[-1] != self.head_dim:
            raise ValueError(f"q and k must end in head_dim={self.head_dim}, got {tuple(q.shape)} and {tuple(k.shape)}")
        if k.shape[-2] < q.shape[-2]:
            raise ValueError(
                f"k must have at least as many positions as q (queries aligned at the end), "
                f"got {k.shape[-2]} < {q.shape[-2]}"
            )

    @staticmethod
    def _future(q_len: int, k_len: int, device) -> torch.Tensor:
        """Bool ``[L, T]``, True where the key is after the query."""
        return grid.future(q_len, k_len, device=device)

    def positions(self, q: torch.Tensor, k: torch.Tensor, *, causal: bool | None = None) -> torch.Tensor:
        """The contextual positions ``p_ij`` (not clamped): ``q`` ``[..., L, d]``, ``k`` ``[..., T, d]``
        -> ``[..., L, T]`` of ``q``'s dtype (queries aligned at the end of the keys).

        Causal: 0 for keys after the query.
        """
        self._check_qk(q, k)
        if causal is not None and not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool or None (the constructor's), got {type(causal).__name__}")
        causal = self.causal if causal is None else causal
        pos = self._positions(self._gates(q, k), causal)
        return pos.masked_fill(self._future(q.shape[-2], k.shape[-2], q.device), 0.0) if causal else pos

    def _gates(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """``sigmoid(q.k / sqrt(d))``, ``[..., L, T]``; future keys are not masked (see ``_positions``)."""
        return torch.sigmoid((q * self.head_dim**-0.5) @ k.transpose(-1, -2))

    @staticmethod
    def _positions(gates: torch.Tensor, causal: bool) -> torch.Tensor:
        """``p_ij``: the gates of query ``i`` summed from key ``j`` to the query's own position.

        With the running sum ``C_ij = sum_{t <= j} g_it`` and ``i`` the query's position,
        ``p_ij = C_ii - C_ij + g_ij`` for ``j <= i``: the gates of keys after the query never enter,
        so they need no mask (the reference zeroes them and sums from the right, which needs two
        flips; the two agree up to float32 rounding of the running sum, ~1e-7 times the count).
        Entries ``j > i`` hold garbage when ``causal`` (the caller masks them); otherwise
        ``p_ij = C_ij - C_ii + g_ii``.
        """
        q_len, k_len = gates.shape[-2], gates.shape[-1]
        cum = gates.cumsum(-1)  # [..., L, T]
        q_idx = grid.query_positions(q_len, k_len, device=gates.device)  # [L]
        index = q_idx.view(q_len, 1).expand(*gates.shape[:-1], 1)
        cum_q = cum.gather(-1, index)  # [..., L, 1]: C_ii
        past = (cum_q - cum).add_(gates)
        if causal:
            return past
        future = (cum - cum_q).add_(gates.gather(-1, index))
        after = grid.future(q_len, k_len, device=gates.device)  # [L, T]
        return torch.where(after, future, past)

    def _interpolated_logits(self, q: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """``q_i . e(p_ij) / sqrt(d)`` with ``e`` linearly interpolated between integer positions.

        ``floor(p)`` is ``p`` truncated (positions are >= 0); the upper neighbour is read from the
        table shifted by one (the last position repeated), so one index tensor serves both.
        """
        pos = pos.clamp(min=0, max=self.npos_max - 1)
        table = (q * self.head_dim**-0.5) @ self.pos_emb.to(q.dtype)  # [..., L, P]: q . e[n] / sqrt(d)
        table_next = torch.cat((table[..., 1:], table[..., -1:]), -1)  # [..., L, P]: q . e[min(n+1, P-1)]
        floor = pos.nan_to_num(0.0).long()  # a NaN position (from a NaN q or k) gives a NaN logit, not a bad index
        lo, hi = table.gather(-1, floor), table_next.gather(-1, floor)
        return torch.lerp(lo, hi, pos - floor)  # differentiable in the positions (the gates)

    def workspace(self, batch, n_heads, q_len, k_len, item_bytes):
        if torch.is_grad_enabled():  # gates, running sums, positions, two gathers, the bias; int64 indices
            return (batch, n_heads, q_len, k_len), 6 * item_bytes + 8
        return (batch, n_heads, q_len, k_len), item_bytes  # the bias; the rest in chunks of _CHUNK entries

    def logit_bias(self, q: torch.Tensor, k: torch.Tensor, *, causal: bool) -> torch.Tensor:
        """Contextual logits ``[b, h, L, T]`` of ``q``'s dtype, added to ``q k^T / sqrt(d)`` (-inf: masked).

        ``q`` ``[b, h, L, d]``, ``k`` ``[b, h, T, d]`` (after the key/value cache, queries aligned
        at the end). Computed at every call (content-dependent). Without gradients it is computed a
        few (batch, head) rows at a time, so the temporaries stay small and only the result is
        ``[b, h, L, T]`` (the chunks change the memory used, not the formula).
        """
        if torch.compiler.is_compiling() or (
            torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or self.pos_emb.requires_grad)
        ):
            return self._bias(q, k, causal)  # compiled: one graph for every length (a compiler plans the memory)
        q_len, k_len = q.shape[-2], k.shape[-2]
        out = torch.empty(*q.shape[:-1], k_len, dtype=q.dtype, device=q.device)  # [b, h, L, T]
        flat_q, flat_k = q.reshape(-1, q_len, self.head_dim), k.reshape(-1, k_len, self.head_dim)
        flat_out = out.view(-1, q_len, k_len)
        step = max(1, _CHUNK // max(1, q_len * k_len))
        for start in range(0, flat_q.shape[0], step):
            rows = slice(start, start + step)
            flat_out[rows] = self._bias(flat_q[rows], flat_k[rows], causal)
        return out

    def _bias(self, q: torch.Tensor, k: torch.Tensor, causal: bool) -> torch.Tensor:
        """``[..., L, T]`` contextual logits for ``q`` ``[..., L, d]``, ``k`` ``[..., T, d]``."""
        bias = self._interpolated_logits(q, self._positions(self._gates(q, k), causal))
        if causal:
            bias = bias.masked_fill_(self._future(q.shape[-2], k.shape[-2], q.device), float("-inf"))
        return bias

    def extra_repr(self) -> str:
        return f"head_dim={self.head_dim}, npos_max={self.npos_max}, causal={self.causal}"
