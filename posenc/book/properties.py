"""Numerical checks of the properties an ideal position encoding should have.

Chapter 1 lists them; later chapters fill in the checklist for each method using these functions.

Shape legend: ``L`` positions, ``d`` encoding width, ``k`` a position offset.
"""

from __future__ import annotations

import torch

from posenc._core.validate import check_float, check_int, check_size, check_tensor

__all__ = [
    "min_pairwise_distance",
    "first_repeat",
    "shift_map",
    "shift_map_residual",
    "diagonal_spread",
    "attention_entropy",
]


def _table(pe: torch.Tensor, *, pairwise: bool = False) -> torch.Tensor:
    """``pe`` ``[L, d]`` (real, finite) in float64; ``pairwise``: its ``[L, L]`` distances must fit in memory."""
    check_tensor("pe", pe, ndim=2)
    if pe.is_complex():
        raise TypeError(f"pe must be a real tensor, got dtype {pe.dtype}")
    if pairwise:  # the [L, L] distance matrix and its mask
        check_size(f"pe of shape {tuple(pe.shape)}", None, (pe.shape[0], pe.shape[0]), item_bytes=10)
    check_tensor("pe", pe, finite=True)  # a NaN row has no distance to the others, and breaks lstsq
    return pe.to(torch.float64)


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__} ({value!r})")
    return value


def min_pairwise_distance(pe: torch.Tensor) -> float:
    """Smallest Euclidean distance between two different rows (positions) of ``pe`` ``[L, d]``.

    Zero means two positions share an encoding (property 1, uniqueness, fails).
    """
    pe = _table(pe, pairwise=True)
    if pe.shape[0] < 2:
        raise ValueError(f"pe must have at least 2 rows (positions), got {pe.shape[0]}")
    dist = torch.cdist(pe, pe)  # [L, L]
    dist.fill_diagonal_(float("inf"))
    return float(dist.min())


def first_repeat(pe: torch.Tensor, *, atol: float = 0.0) -> tuple[int, int] | None:
    """The first pair of positions ``(p, q)``, ``p < q``, whose encodings agree within ``atol``.

    Returns None when every row of ``pe`` ``[L, d]`` is distinct.
    """
    pe = _table(pe, pairwise=True)
    atol = check_float("atol", atol, ge=0.0)
    dist = torch.cdist(pe, pe)  # [L, L]
    close = torch.triu(dist <= atol, diagonal=1)  # [L, L]
    if not close.any():
        return None
    q_first = int(close.any(dim=0).nonzero()[0])
    p = int(close[:, q_first].nonzero()[0])
    return p, q_first


def shift_map(pe: torch.Tensor, k: int, *, affine: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Least-squares map ``M_k`` (and offset ``b_k``) with ``PE[p + k] ~= M_k PE[p] + b_k`` for all ``p``.

    Args:
        pe (torch.Tensor): ``[L, d]`` encoding table.
        k (int): offset, ``1 <= k < L``.
        affine (bool): also fit an offset ``b_k``.

    Returns:
        ``(M_k [d, d], b_k [d] or None)`` in float64.
    """
    pe = _table(pe)
    affine = _flag("affine", affine)
    if pe.shape[0] < 2:
        raise ValueError(f"pe must have at least 2 rows (positions) for an offset k >= 1, got shape {tuple(pe.shape)}")
    k = check_int("k", k, min_value=1, max_value=pe.shape[0] - 1)
    src, dst = pe[:-k], pe[k:]  # [L-k, d] each
    if affine:
        src = torch.cat([src, torch.ones(src.shape[0], 1, dtype=src.dtype)], dim=1)  # [L-k, d+1]
    sol = torch.linalg.lstsq(src, dst, driver="gelsd").solution  # [d(+1), d]
    if affine:
        return sol[:-1].T, sol[-1]
    return sol.T, None


def shift_map_residual(pe: torch.Tensor, k: int, *, affine: bool = False) -> float:
    """Largest error of the best fixed (affine) map from ``PE[p]`` to ``PE[p + k]`` over all ``p``.

    About 0 (float64 round-off) when the encoding has property 2: position ``p + k`` follows from
    position ``p`` by one map that depends on ``k`` only.
    """
    m, b = shift_map(pe, k, affine=affine)
    pe = _table(pe)
    pred = pe[:-k] @ m.T + (0 if b is None else b)  # [L-k, d]
    return float((pred - pe[k:]).abs().max())


def diagonal_spread(matrix: torch.Tensor) -> float:
    """Largest ``max - min`` along one diagonal of ``matrix`` ``[Lq, Lk]``.

    Zero exactly when ``matrix[i, j]`` depends on ``j - i`` only (constant along every diagonal):
    the test the book applies to logits and scores to show that they see the relative position
    alone. Compare the result with the rounding noise of the dtype, not with 0. Masked entries
    (``-inf``) are allowed: a diagonal masked whole has spread 0, a partly masked one ``inf``.
    """
    check_tensor("matrix", matrix, ndim=2, floating=True)
    if bool(matrix.isnan().any()):
        raise ValueError("matrix must not contain NaN (a diagonal with NaN has no spread)")
    rows, cols = matrix.shape
    if rows == 0 or cols == 0:
        return 0.0
    # a diagonal of equal entries has spread 0, also when they are all -inf (a causal mask)
    return max(
        0.0 if hi == lo else float(hi - lo)
        for hi, lo in ((d.max(), d.min()) for d in (matrix.diagonal(o) for o in range(1 - rows, cols)))
    )


def attention_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of each row's attention weights ``softmax(logits)``: ``[..., T]`` -> ``[...]``.

    The book's measure of how sharp attention is (chapters 7 and 10: a temperature or YaRN's
    attention factor above 1 lowers it); ``log T`` for uniform weights, 0 for one-hot. Masked keys
    (``-inf`` logits) count as weight 0.
    """
    check_tensor("logits", logits, floating=True)
    if logits.ndim == 0:
        raise ValueError("logits must have at least one dimension (the keys)")
    if bool(logits.isnan().any()):
        raise ValueError("logits must not contain NaN (-inf marks a masked key)")
    weights = logits.softmax(-1)
    return -torch.special.xlogy(weights, weights).sum(-1)
