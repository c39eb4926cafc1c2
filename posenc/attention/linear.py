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

from collections.abc import Callable

import torch
import torch.nn.functional as F

from .._core import grid, rope as rope_core
from .._core.validate import check_choice, check_size, check_tensor
from ..encodings.rope import LAYOUTS

__all__ = ["elu_feature_map", "kernel_attention", "linear_attention"]


def elu_feature_map(x: torch.Tensor) -> torch.Tensor:
    """``elu(x) + 1``: positive, so kernel scores are positive (Katharopoulos et al. 2020)."""
    check_tensor("x", x, floating=True)
    return F.elu(x) + 1


def _lead(name: str, *tensors: torch.Tensor) -> tuple[int, ...]:
    """The broadcast leading dimensions (all but the last two) of ``tensors``, or a ValueError naming them."""
    try:
        return tuple(torch.broadcast_shapes(*(t.shape[:-2] for t in tensors)))
    except RuntimeError:
        shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
        raise ValueError(
            f"{name} must have broadcastable leading dimensions (all but the last two), got {shapes}"
        ) from None


def _check(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    rope_q: tuple | None,
    rope_k: tuple | None,
    feature_map: Callable,
    causal: bool,
) -> tuple[int, ...]:
    """Validate the arguments the two attentions share; return the leading dimensions of the result."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(name, t, min_ndim=2, floating=True)
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"q, k, v must be [..., Lq, d], [..., Lk, d], [..., Lk, dv]; got {tuple(q.shape)}, "
            f"{tuple(k.shape)}, {tuple(v.shape)}"
        )
    for name, t in (("k", k), ("v", v)):
        if t.dtype != q.dtype:
            raise TypeError(f"{name} must have q's dtype {q.dtype}, got {t.dtype}")
        if t.device != q.device:
            raise ValueError(f"{name} must be on q's device {q.device}, got {t.device}")
    lead = _lead("q, k and v", q, k, v)
    if k.shape[-2] == 0 and q.shape[-2] > 0:
        raise ValueError("k must hold at least one key (Lk >= 1) when there are queries: an empty sum has no average")
    if not callable(feature_map):
        raise TypeError(f"feature_map must be callable, got {type(feature_map).__name__}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__} ({causal!r})")
    if (rope_q is None) != (rope_k is None):
        raise ValueError(
            "rope_q and rope_k must be given together (RoFormer eq. 19 rotates both "
            "queries and keys); got only " + ("rope_q" if rope_k is None else "rope_k")
        )
    for name, rope, x in (("rope_q", rope_q, q), ("rope_k", rope_k, k)):
        if rope is None:
            continue
        if not isinstance(rope, tuple) or len(rope) != 3:
            raise TypeError(f"{name} must be a tuple (cos, sin, layout), got {type(rope).__name__}")
        cos, sin, layout = rope
        check_tensor(f"{name}'s cos", cos, floating=True)
        check_tensor(f"{name}'s sin", sin, floating=True)
        check_choice(f"{name}'s layout", layout, LAYOUTS)
        if x.shape[-1] % 2 or cos.shape != sin.shape or cos.shape[-1] != x.shape[-1]:
            raise ValueError(
                f"{name}'s cos and sin must share a shape ending in the (even) head dimension "
                f"{x.shape[-1]}, got {tuple(cos.shape)} and {tuple(sin.shape)}"
            )
        if cos.device != x.device or sin.device != x.device:
            raise ValueError(
                f"{name}'s cos and sin must be on {'q' if name == 'rope_q' else 'k'}'s device "
                f"{x.device}, got {cos.device} and {sin.device}"
            )
        rope_core.check_table_shape(x, cos.shape, f"{name}'s cos")
    return lead


def _features(feature_map: Callable, q: torch.Tensor, k: torch.Tensor, rope: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """``phi(q)``, ``phi(k)``, checked: ``[..., Lq, m]`` and ``[..., Lk, m]`` of q's dtype (``m = d`` with RoPE)."""
    fq, fk = feature_map(q), feature_map(k)
    for name, f, x in (("q", fq, q), ("k", fk, k)):
        if not isinstance(f, torch.Tensor) or f.shape[:-1] != x.shape[:-1] or f.dtype != x.dtype:
            got = f"{tuple(f.shape)} {f.dtype}" if isinstance(f, torch.Tensor) else type(f).__name__
            raise ValueError(
                f"feature_map must map {name} [..., L, d] to a tensor [..., L, m] of the same "
                f"dtype, got {got} for {name} of shape {tuple(x.shape)} {x.dtype}"
            )
    if fq.shape[-1] != fk.shape[-1] or (rope and fq.shape[-1] != q.shape[-1]):
        raise ValueError(
            f"feature_map must give queries and keys the same width m (m = d = {q.shape[-1]} with "
            f"rope_q/rope_k), got {fq.shape[-1]} and {fk.shape[-1]}"
        )
    return fq, fk


def _rotate(x: torch.Tensor, rope: tuple | None) -> torch.Tensor:
    if rope is None:
        return x
    cos, sin, layout = rope
    return rope_core.apply(x, cos, sin, layout)


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
        weight (torch.Tensor, optional): ``[Lq, Lk]`` finite, non-negative factor per pair (leading
            dimensions broadcast with ``q``'s); a pair of weight 0 is left out.
        causal (bool): keys after the query are left out (queries aligned at the end).
        rope_q, rope_k (tuple, optional): ``(cos, sin, layout)`` tables for the queries' and keys'
            positions.

    ``q``, ``k`` and ``v`` share a dtype and a device; their leading dimensions broadcast. A pair
    left out (causal mask, weight 0) is replaced by 0, not multiplied by 0, so a NaN or inf score
    there does not reach the row, as in :func:`linear_attention`'s prefix sums (a non-finite
    *value* ``v_j`` still does: ``0 * nan`` in the product with ``v``, as in SDPA's math path).

    Returns:
        torch.Tensor: ``[..., Lq, dv]``.
    """
    lead = _check(q, k, v, rope_q, rope_k, feature_map, causal)
    q_len, k_len = q.shape[-2], k.shape[-2]
    if causal and q_len > k_len:
        raise ValueError(
            f"causal kernel_attention needs q_len <= k_len (queries aligned at the end), got {q_len} and {k_len}"
        )
    if weight is not None:
        check_tensor("weight", weight, min_ndim=2, floating=True)
        if weight.shape[-2:] != (q_len, k_len):
            raise ValueError(
                f"weight must be [Lq, Lk] = [{q_len}, {k_len}] (or broadcast with leading dims), "
                f"got {tuple(weight.shape)}"
            )
        if weight.device != q.device:
            raise ValueError(f"weight must be on q's device {q.device}, got {weight.device}")
        lead = _lead("q, k, v and weight", q, k, v, weight)
    check_size(
        f"q of shape {tuple(q.shape)}, k of shape {tuple(k.shape)}",
        None,
        (*lead, q_len, k_len),
        item_bytes=4 * q.element_size(),
    )
    if weight is not None:  # after the size check: reading the values costs as much as the scores
        check_tensor("weight", weight, finite=True)
        if not bool((weight >= 0).all()):
            raise ValueError("weight must be >= 0 (a multiplicative factor such as exp(B))")
    fq, fk = _features(feature_map, q, k, rope_q is not None)  # [..., Lq, m], [..., Lk, m]
    den = fq @ fk.transpose(-2, -1)  # [..., Lq, Lk]
    num = den if rope_q is None else _rotate(fq, rope_q) @ _rotate(fk, rope_k).transpose(-2, -1)
    if weight is not None:
        num, den = num * weight, den * weight
    keep = None  # [Lq, Lk] (or with weight's leading dims): the pairs that count
    if causal:
        keep = grid.causal(q_len, k_len, device=q.device)  # [Lq, Lk], queries aligned at the end
    if weight is not None:
        keep = weight != 0 if keep is None else keep & (weight != 0)
    if keep is not None:  # zeros selected, not multiplied in: a NaN or inf score of a dropped pair stays out
        zero = torch.zeros((), dtype=num.dtype, device=num.device)
        num, den = torch.where(keep, num, zero), torch.where(keep, den, zero)
    return num @ v / den.sum(-1, keepdim=True)


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

    ``q``, ``k`` and ``v`` share a dtype and a device; their leading dimensions broadcast.
    ``feature_map`` maps ``[..., L, d]`` to ``[..., L, m]`` of the same dtype (``m = d`` with RoPE).

    Returns:
        torch.Tensor: ``[..., Lq, dv]``.
    """
    _check(q, k, v, rope_q, rope_k, feature_map, causal)
    if causal and q.shape[-2] != k.shape[-2]:
        raise ValueError(f"causal linear_attention needs q_len == k_len, got {q.shape[-2]} and {k.shape[-2]}")
    fq, fk = _features(feature_map, q, k, rope_q is not None)  # [..., Lq, m], [..., Lk, m]
    if causal:  # the prefix sums [..., L, m, dv], refused before they are built
        check_size(
            f"k of shape {tuple(k.shape)}, v of shape {tuple(v.shape)}",
            None,
            (*_lead("k and v", k, v), k.shape[-2], fk.shape[-1], v.shape[-1]),
            item_bytes=2 * k.element_size(),
        )
    rq, rk = _rotate(fq, rope_q), _rotate(fk, rope_k)
    if not causal:
        s = rk.transpose(-2, -1) @ v  # [..., d, dv]
        z = fk.sum(-2)  # [..., d]
        return (rq @ s) / (fq @ z.unsqueeze(-1))  # [..., Lq, dv] / [..., Lq, 1]
    s = torch.cumsum(rk.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)  # [..., L, d, dv]: prefix sums
    z = torch.cumsum(fk, dim=-2)  # [..., L, d]
    num = (rq.unsqueeze(-2) @ s).squeeze(-2)  # [..., L, dv]
    return num / (fq * z).sum(-1, keepdim=True)
