"""Linear (kernelised) attention, and how position information fits into it.

Replace ``exp(q . k)`` by ``phi(q) . phi(k)`` with a positive feature map ``phi``; then
``softmax(QK^T)V`` becomes ``phi(Q) (phi(K)^T V) / (phi(Q) sum_j phi(k_j))`` and, by associativity,
costs ``O(L d^2)`` instead of ``O(L^2 d)``.

Shape legend: ``...`` leading dimensions, ``Lq``/``Lk`` query/key lengths, ``d`` head dimension.

References:
    Katharopoulos et al., "Transformers are RNNs: Fast Autoregressive Transformers with Linear
    Attention", ICML 2020 (``phi(x) = elu(x) + 1``).
    Su et al., RoFormer, 2021, section 3.3 (RoPE with linear attention).
"""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F

from ._validate import check_tensor
from .relative import relative_positions
from .rope import apply_rope

__all__ = ["elu_feature_map", "kernel_attention", "linear_attention"]


def elu_feature_map(x: torch.Tensor) -> torch.Tensor:
    """``elu(x) + 1``: positive, so kernel scores are positive (Katharopoulos et al. 2020)."""
    return F.elu(x) + 1


def _check(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(name, t, min_ndim=2, floating=True)
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(f"q, k, v must be [..., Lq, d], [..., Lk, d], [..., Lk, dv]; got {tuple(q.shape)}, "
                         f"{tuple(k.shape)}, {tuple(v.shape)}")


def _rotate(x: torch.Tensor, rope: tuple | None) -> torch.Tensor:
    if rope is None:
        return x
    cos, sin, layout = rope
    return apply_rope(x, cos, sin, layout=layout)


def kernel_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    feature_map: Callable[[torch.Tensor], torch.Tensor] = elu_feature_map,
    weight: torch.Tensor | None = None,
    causal: bool = False,
    rope_q: tuple | None = None,
    rope_k: tuple | None = None,
) -> torch.Tensor:
    """Kernel attention computed the quadratic way, with the full ``[Lq, Lk]`` score matrix.

    ``out_i = sum_j s_ij v_j / sum_j s'_ij`` with ``s'_ij = phi(q_i) . phi(k_j) * weight_ij`` and
    ``s_ij`` the same but with RoPE applied to ``phi(q_i)`` and ``phi(k_j)`` when ``rope_q``/``rope_k``
    are given (RoFormer eq. 19 rotates the numerator only). ``weight`` is a multiplicative
    ``[Lq, Lk]`` factor such as ``exp(B)`` for an additive logit bias ``B``: the reference against
    which :func:`linear_attention` is checked, and the form that shows why a general bias costs
    ``O(L^2)``.

    Args:
        q, k, v (torch.Tensor): ``[..., Lq, d]``, ``[..., Lk, d]``, ``[..., Lk, dv]``.
        feature_map: ``phi``; default ``elu + 1``.
        weight (torch.Tensor, optional): ``[Lq, Lk]`` non-negative factor per pair.
        causal (bool): keys after the query get weight 0 (queries aligned at the end).
        rope_q, rope_k (tuple, optional): ``(cos, sin, layout)`` tables for the queries' and keys'
            positions.

    Returns:
        torch.Tensor: ``[..., Lq, dv]``.
    """
    _check(q, k, v)
    fq, fk = feature_map(q), feature_map(k)  # [..., Lq, d], [..., Lk, d]
    den = fq @ fk.transpose(-2, -1)  # [..., Lq, Lk]
    num = den if rope_q is None else _rotate(fq, rope_q) @ _rotate(fk, rope_k).transpose(-2, -1)
    mask = torch.ones(q.shape[-2], k.shape[-2], dtype=q.dtype, device=q.device)
    if weight is not None:
        mask = mask * weight
    if causal:
        mask = mask * (relative_positions(q.shape[-2], k.shape[-2], device=q.device) <= 0)
    return (num * mask) @ v / (den * mask).sum(-1, keepdim=True)


def linear_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    feature_map: Callable[[torch.Tensor], torch.Tensor] = elu_feature_map,
    causal: bool = False,
    rope_q: tuple | None = None,
    rope_k: tuple | None = None,
) -> torch.Tensor:
    """Kernel attention in ``O(L d^2)``: sum keys and values first, never form ``[Lq, Lk]``.

    Non-causal: ``S = phi(K)^T V`` (``[d, dv]``) and ``z = sum_j phi(k_j)`` once, then
    ``out_i = phi(q_i) S / (phi(q_i) . z)``. Causal: the same with running (prefix) sums, the
    "Transformers are RNNs" view (queries and keys of equal length). With ``rope_q``/``rope_k`` the
    numerator uses rotated features and the denominator the plain ones, as in RoFormer eq. (19).
    Equals :func:`kernel_attention` without ``weight``.

    Args:
        q, k, v (torch.Tensor): ``[..., L, d]``, ``[..., L, d]``, ``[..., L, dv]`` (``Lq`` may differ
            from ``Lk`` when not causal).
        feature_map: ``phi``; default ``elu + 1``.
        causal (bool): prefix sums instead of full sums.
        rope_q, rope_k (tuple, optional): ``(cos, sin, layout)`` tables.

    Returns:
        torch.Tensor: ``[..., Lq, dv]``.
    """
    _check(q, k, v)
    fq, fk = feature_map(q), feature_map(k)  # [..., Lq, d], [..., Lk, d]
    rq, rk = _rotate(fq, rope_q), _rotate(fk, rope_k)
    if not causal:
        s = rk.transpose(-2, -1) @ v  # [..., d, dv]
        z = fk.sum(-2)  # [..., d]
        return (rq @ s) / (fq @ z.unsqueeze(-1))  # [..., Lq, dv] / [..., Lq, 1]
    if q.shape[-2] != k.shape[-2]:
        raise ValueError(f"causal linear_attention needs q_len == k_len, got {q.shape[-2]} and {k.shape[-2]}")
    s = torch.cumsum(rk.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)  # [..., L, d, dv]: prefix sums
    z = torch.cumsum(fk, dim=-2)  # [..., L, d]
    num = (rq.unsqueeze(-2) @ s).squeeze(-2)  # [..., L, dv]
    return num / (fq * z).sum(-1, keepdim=True)
