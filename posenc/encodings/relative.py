"""Relative position encodings: Shaw et al.'s clipped embeddings and T5's bucketed bias.

Shape legend used in the docstrings:

- ``Lq``/``Lk``: query and key lengths (``Lk`` defaults to ``Lq``)
- ``b``: batch size, ``h``: number of heads, ``d``: head dimension
- ``k``: Shaw's clipping distance (``max_distance``); ``2k + 1`` relative labels
- ``...``: any leading batch dimensions

Queries are aligned at the end: when ``Lk > Lq`` (decoding with a key/value cache), query row ``i``
sits at absolute position ``i + Lk - Lq`` and key column ``j`` at position ``j``.

References:
    Shaw, Uszkoreit, Vaswani, "Self-Attention with Relative Position Representations", NAACL 2018.
    Raffel et al., "Exploring the Limits of Transfer Learning with a Unified Text-to-Text
    Transformer" (T5), JMLR 2020; Hugging Face ``T5Attention._relative_position_bucket``.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .._core import grid
from .._core.validate import check_int, check_size, check_tensor

__all__ = [
    "relative_positions",
    "shaw_relative_index",
    "t5_relative_bucket",
    "shaw_attention",
    "shaw_attention_naive",
    "ShawRelativePosition",
    "T5RelativeBias",
]


def relative_positions(
    q_len: int, k_len: int | None = None, *, device: torch.device | str | None = None
) -> torch.Tensor:
    """Signed distance from each query to each key, ``key_pos - query_pos``.

    Args:
        q_len (int): number of queries ``Lq`` (>= 0).
        k_len (int, optional): number of keys ``Lk`` (>= ``Lq``); default ``Lq``.
        device: device of the result.

    Returns:
        torch.Tensor: int64 ``[Lq, Lk]``; negative entries are keys in the past.
    """
    q_len, k_len = grid.lengths(q_len, k_len, item_bytes=16)
    return grid.relative(q_len, k_len, device=device)  # [Lq, Lk], queries aligned at the end


def shaw_relative_index(q_len: int, max_distance: int, k_len: int | None = None) -> torch.Tensor:
    """Shaw et al.'s label ``clip(key_pos - query_pos, -k, k) + k`` for each query/key pair.

    Args:
        q_len (int): number of queries ``Lq``.
        max_distance (int): clipping distance ``k`` (>= 0); distances beyond it share a label.
        k_len (int, optional): number of keys ``Lk`` (>= ``Lq``); default ``Lq``.

    Returns:
        torch.Tensor: int64 ``[Lq, Lk]`` with values in ``[0, 2k]``; ``k`` is the diagonal.
    """
    max_distance = check_int("max_distance", max_distance, min_value=0)
    q_len, k_len = grid.lengths(q_len, k_len, item_bytes=24)
    return _shaw_index(q_len, k_len, max_distance)


def _shaw_index(q_len: int, k_len: int, max_distance: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Core of :func:`shaw_relative_index`, trusting its inputs."""
    rel = grid.relative(q_len, k_len, device=device)  # [Lq, Lk], queries aligned at the end
    return rel.clamp(-max_distance, max_distance) + max_distance


def t5_relative_bucket(
    relative_position: torch.Tensor,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    """T5's bucket of each relative position (key minus query).

    The first half of the buckets (per direction) hold distances exactly; the rest cover
    distances up to ``max_distance`` logarithmically; farther distances share the last bucket.
    With ``bidirectional`` the buckets are split between keys before and after the query (the
    encoder); without it, keys after the query all go to bucket 0 (the causal decoder).
    Identical to Hugging Face ``T5Attention._relative_position_bucket``.

    Args:
        relative_position (torch.Tensor): integer tensor ``[...]`` of ``key_pos - query_pos``.
        bidirectional (bool): whether keys after the query get their own buckets.
        num_buckets (int): total number of buckets (>= 2, even when bidirectional).
        max_distance (int): distance where the logarithmic buckets end.

    Returns:
        torch.Tensor: int64 ``[...]`` bucket ids in ``[0, num_buckets)``.
    """
    check_tensor("relative_position", relative_position, floating=False)
    num_buckets, max_distance = _check_t5(num_buckets, max_distance, bool(bidirectional))
    return _t5_bucket(relative_position, bool(bidirectional), num_buckets, max_distance)


def _check_t5(
    num_buckets: int, max_distance: int, bidirectional: bool, names: tuple[str, str] = ("num_buckets", "max_distance")
) -> tuple[int, int]:
    """Validate T5's bucket parameters under the caller's names; returns them as ints."""
    num_buckets = check_int(names[0], num_buckets, min_value=4 if bidirectional else 2)
    if bidirectional and num_buckets % 2:
        raise ValueError(f"{names[0]} must be even when bidirectional (encoder) buckets are used, got {num_buckets}")
    check_size(names[0], num_buckets, (num_buckets,), item_bytes=8)
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    return num_buckets, check_int(names[1], max_distance, min_value=max_exact + 1)


def _t5_bucket(
    relative_position: torch.Tensor, bidirectional: bool, num_buckets: int, max_distance: int
) -> torch.Tensor:
    """Core of :func:`t5_relative_bucket`, trusting its inputs."""
    # distances beyond max_distance all land in the last bucket; clamping first keeps |.| from
    # overflowing at -2**63 and changes no bucket
    relative_position = relative_position.long().clamp(-max_distance, max_distance)
    buckets = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative_position > 0).long() * num_buckets
        distance = relative_position.abs()
    else:
        distance = -torch.clamp(relative_position, max=0)  # only the past counts; future -> 0
    max_exact = num_buckets // 2
    is_small = distance < max_exact
    # log-spaced buckets for max_exact <= distance < max_distance (log(0) is masked out below)
    large = (
        max_exact
        + (
            torch.log(distance.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).long()
    )
    large = torch.clamp(large, max=num_buckets - 1)
    return buckets + torch.where(is_small, distance, large)


def _autocast_on(device_type: str) -> bool:
    try:
        return torch.is_autocast_enabled(device_type)
    except TypeError:  # torch < 2.4: no device argument
        return torch.is_autocast_enabled() if device_type == "cuda" else torch.is_autocast_cpu_enabled()


def _check_shaw(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    rel_k: torch.Tensor,
    rel_v: torch.Tensor,
    causal: bool,
    *,
    scores: int,
    gathers: int = 0,
) -> int:
    """Shaw attention's arguments; returns the clipping distance ``k`` of the ``[2k+1, d]`` tables.

    Refuses, above the memory limit, ``scores`` elements per (query, key) pair of every head (the
    scores and what is built from them) plus ``gathers`` ``[Lq, Lk, d]`` tensors shared by the heads."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(name, t, min_ndim=2, floating=True)
    check_tensor("rel_k", rel_k, ndim=2, floating=True)
    check_tensor("rel_v", rel_v, ndim=2, floating=True)
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__} ({causal!r})")
    for name, t in (("k", k), ("v", v), ("rel_k", rel_k), ("rel_v", rel_v)):
        if t.device != q.device:
            raise ValueError(f"{name} must be on q's device ({q.device}), got {t.device}")
        if t.dtype != q.dtype and not _autocast_on(q.device.type):  # autocast casts the products' operands
            raise TypeError(
                f"{name} must have q's dtype ({q.dtype}), got {t.dtype}: cast one of them, or run under torch.autocast"
            )
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share the head dimension, got {q.shape[-1]} and {k.shape[-1]}")
    if q.shape[-2] > k.shape[-2]:
        raise ValueError(f"q_len ({q.shape[-2]}) must be <= k_len ({k.shape[-2]})")
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    except RuntimeError:
        raise ValueError(
            f"q and k must have broadcastable leading dimensions, got {tuple(q.shape)} and {tuple(k.shape)}"
        ) from None
    d = q.shape[-1]
    if rel_k.shape != rel_v.shape or rel_k.shape[1] != d or rel_k.shape[0] % 2 == 0:
        raise ValueError(f"rel_k and rel_v must both be [2k+1, {d}], got {tuple(rel_k.shape)} and {tuple(rel_v.shape)}")
    item = q.element_size()
    check_size(
        f"q of shape {tuple(q.shape)}, k of shape {tuple(k.shape)}",
        None,
        (q.shape[-2], k.shape[-2]),
        item_bytes=scores * item * math.prod(lead) + gathers * d * item,
    )
    return (rel_k.shape[0] - 1) // 2


def _causal_fill(scores: torch.Tensor, causal: bool) -> torch.Tensor:
    if not causal:
        return scores
    q_len, k_len = scores.shape[-2:]
    future = relative_positions(q_len, k_len, device=scores.device) > 0  # [Lq, Lk]
    return scores.masked_fill(future, float("-inf"))


def shaw_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    rel_k: torch.Tensor,
    rel_v: torch.Tensor,
    *,
    causal: bool = True,
) -> torch.Tensor:
    """Relative attention of Shaw et al. (2018), memory-efficient form.

    ``out_i = sum_j a_ij (v_j + R^V_{ij})`` with
    ``a_i = softmax_j((q_i . k_j + q_i . R^K_{ij}) / sqrt(d))`` and ``R_{ij} = table[clip(j-i, -k, k) + k]``.

    The straightforward version gathers ``R^K`` and ``R^V`` into ``[Lq, Lk, d]`` tensors. Here
    ``q`` meets the ``2k+1`` table rows once (``[..., Lq, 2k+1]``) and the result is indexed
    into the score matrix; on the value side, the attention weights are summed per label
    (``[..., Lq, 2k+1]``) and multiplied by the table. Peak extra memory is
    ``O(Lq * Lk)`` per head instead of ``O(Lq * Lk * d)``.

    The five tensors share one device and one floating dtype (under ``torch.autocast`` the dtypes
    may differ: autocast casts the products' operands).

    Args:
        q (torch.Tensor): queries ``[..., Lq, d]``.
        k (torch.Tensor): keys ``[..., Lk, d]``.
        v (torch.Tensor): values ``[..., Lk, d]``.
        rel_k (torch.Tensor): key-side table ``[2k+1, d]``.
        rel_v (torch.Tensor): value-side table ``[2k+1, d]``.
        causal (bool): mask keys after each query (queries aligned at the end).

    Returns:
        torch.Tensor: ``[..., Lq, d]``.
    """
    max_distance = _check_shaw(q, k, v, rel_k, rel_v, causal, scores=4)
    d = q.shape[-1]
    q_len, k_len = q.shape[-2], k.shape[-2]
    idx = _shaw_index(q_len, k_len, max_distance, q.device)  # [Lq, Lk]
    q = q * d**-0.5  # scale the small tensor, not the [Lq, Lk] scores
    scores = q @ k.transpose(-2, -1)  # [..., Lq, Lk]
    q_rel = q @ rel_k.T  # [..., Lq, 2k+1]
    rel_scores = q_rel.gather(-1, idx.expand(*q_rel.shape[:-1], k_len))  # [..., Lq, Lk]
    if torch.is_grad_enabled() and scores.requires_grad:
        scores = _causal_fill(scores + rel_scores, causal)
    else:  # no autograd: reuse the buffers instead of allocating new [Lq, Lk] tensors
        scores.add_(rel_scores)
        del rel_scores
        if causal:
            scores.masked_fill_(relative_positions(q_len, k_len, device=q.device) > 0, float("-inf"))
    attn = torch.softmax(scores, dim=-1)  # [..., Lq, Lk]
    del scores
    out = attn @ v  # [..., Lq, d]
    label_weight = attn.new_zeros(*attn.shape[:-1], rel_v.shape[0])  # [..., Lq, 2k+1]
    label_weight.scatter_add_(-1, idx.expand_as(attn), attn)
    return out + label_weight @ rel_v  # [..., Lq, d]


def shaw_attention_naive(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    rel_k: torch.Tensor,
    rel_v: torch.Tensor,
    *,
    causal: bool = True,
) -> torch.Tensor:
    """The straightforward Shaw et al. attention that materialises ``[Lq, Lk, d]`` tensors.

    Kept as the reference :func:`shaw_attention` is tested against and as the baseline the
    benchmarks and the book measure. Same arguments and result as :func:`shaw_attention`.
    """
    max_distance = _check_shaw(q, k, v, rel_k, rel_v, causal, scores=4, gathers=2)  # r_k, r_v: [Lq, Lk, d] each
    d = q.shape[-1]
    idx = _shaw_index(q.shape[-2], k.shape[-2], max_distance, q.device)  # [Lq, Lk]
    r_k = rel_k[idx]  # [Lq, Lk, d]
    r_v = rel_v[idx]  # [Lq, Lk, d]
    scores = q @ k.transpose(-2, -1) + torch.einsum("...id,ijd->...ij", q, r_k)  # [..., Lq, Lk]
    attn = torch.softmax(_causal_fill(scores / math.sqrt(d), causal), dim=-1)
    return attn @ v + torch.einsum("...ij,ijd->...id", attn, r_v)  # [..., Lq, d]


class ShawRelativePosition(nn.Module):
    """The two learned ``[2k+1, d]`` tables of Shaw et al. (2018), shared across heads.

    Args:
        head_dim (int): per-head dimension ``d``.
        max_distance (int): clipping distance ``k`` (the paper found ``k >= 2`` enough for MT).
    """

    def __init__(self, head_dim: int, max_distance: int) -> None:
        super().__init__()
        self.head_dim = check_int("head_dim", head_dim, min_value=1)
        self.max_distance = check_int("max_distance", max_distance, min_value=0)
        n_labels = 2 * self.max_distance + 1
        check_size("max_distance", max_distance, (2, n_labels, self.head_dim), item_bytes=4)
        self.rel_k = nn.Parameter(torch.randn(n_labels, self.head_dim) * self.head_dim**-0.5)
        self.rel_v = nn.Parameter(torch.randn(n_labels, self.head_dim) * self.head_dim**-0.5)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool = True) -> torch.Tensor:
        """Attention with relative keys and values: ``[..., Lq, d]`` (see :func:`shaw_attention`)."""
        return shaw_attention(q, k, v, self.rel_k, self.rel_v, causal=causal)

    def extra_repr(self) -> str:
        return f"head_dim={self.head_dim}, max_distance={self.max_distance}"


class T5RelativeBias(nn.Module):
    """T5's learned scalar bias per (bucket, head), added to the attention logits.

    Args:
        n_heads (int): number of heads ``h``.
        num_buckets (int): number of buckets (T5: 32).
        max_distance (int): where the logarithmic buckets end (T5: 128).
        bidirectional (bool): encoder-style (True) or decoder-style causal buckets (False).
    """

    def __init__(
        self, n_heads: int, *, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True
    ) -> None:
        super().__init__()
        self.n_heads = check_int("n_heads", n_heads, min_value=1)
        self.bidirectional = bool(bidirectional)
        self.num_buckets, self.max_distance = _check_t5(num_buckets, max_distance, self.bidirectional)
        check_size("n_heads", n_heads, (self.num_buckets, self.n_heads), item_bytes=4)
        self.bias = nn.Embedding(self.num_buckets, self.n_heads)
        nn.init.normal_(self.bias.weight, std=0.02)

    def bias_by_distance(self, distance: torch.Tensor) -> torch.Tensor:
        """Bias of each distance ``key_pos - query_pos``: ``[n]`` integer -> ``[h, n]``."""
        check_tensor("distance", distance, ndim=1, floating=False)
        return self._bias_by_distance(distance)

    def _bias_by_distance(self, distance: torch.Tensor) -> torch.Tensor:
        buckets = _t5_bucket(distance, self.bidirectional, self.num_buckets, self.max_distance)  # [n]
        return self.bias(buckets).t()  # [n, h] -> [h, n]

    def buckets(self, q_len: int, k_len: int | None = None) -> torch.Tensor:
        """Bucket of each query/key pair, int64 ``[Lq, Lk]``, queries aligned at the end of the keys."""
        q_len, k_len = grid.lengths(q_len, k_len)
        distance = grid.distance_range(q_len, k_len, device=self.bias.weight.device)  # [Lq + Lk - 1]
        buckets = _t5_bucket(distance, self.bidirectional, self.num_buckets, self.max_distance)
        return grid.toeplitz(buckets, q_len, k_len)

    def forward(self, q_len: int, k_len: int | None = None) -> torch.Tensor:
        """Bias ``[h, Lq, Lk]`` (contiguous) for queries aligned at the end of the keys.

        The bias depends on the distance only: it is looked up for the ``Lq + Lk - 1`` distances and
        spread over the grid (``grid.toeplitz``), so the one ``[h, Lq, Lk]`` result is the only
        tensor of that size.
        """
        q_len, k_len = grid.lengths(q_len, k_len, lead=(self.n_heads,), item_bytes=4)
        distance = grid.distance_range(q_len, k_len, device=self.bias.weight.device)  # [Lq + Lk - 1]
        return grid.toeplitz(self._bias_by_distance(distance), q_len, k_len)  # [h, Lq, Lk]

    def extra_repr(self) -> str:
        return (
            f"n_heads={self.n_heads}, num_buckets={self.num_buckets}, "
            f"max_distance={self.max_distance}, bidirectional={self.bidirectional}"
        )
