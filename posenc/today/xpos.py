"""xPos: the exponential scale xPos multiplies rotated queries and keys with.

Shape legend: ``L`` positions, ``d`` head dimension ``head_dim`` (even), ``d/2`` rotation pairs.

References:
    Sun et al., "A Length-Extrapolatable Transformer", 2022 (xPos); torchscale ``XPOS``.
"""

from __future__ import annotations

import torch

from .._core.validate import check_even, check_float, check_int, check_size, check_tensor

__all__ = ["xpos_scale"]


def xpos_scale(
    positions: int | torch.Tensor, head_dim: int, *, gamma: float = 0.4, scale_base: float = 512
) -> tuple[torch.Tensor, torch.Tensor]:
    """xPos scales (Sun et al. 2022): ``zeta_i ** (pos / scale_base)`` for queries, the inverse for keys.

    ``zeta_i = (2i/d + gamma) / (1 + gamma)`` lies in ``[gamma/(1+gamma), 1)``: after rotation, pair
    ``i`` of a query at position ``m`` is multiplied by ``zeta_i ** (m / scale_base)`` and of a key at
    ``n`` by ``zeta_i ** (-n / scale_base)``, so their product carries ``zeta_i ** ((m - n) / scale_base)``,
    a decay in the distance ``m - n >= 0`` that is fastest for the fast-turning pairs (small ``i``).
    The scores still depend on ``m - n`` only.

    The positions are used as given. The reference code centres them first so that the scales stay
    near 1 (torchscale: ``pos - ceil(n/2)`` over the ``n`` positions including the cache); centring
    changes no score.

    Args:
        positions: int ``L`` (meaning ``arange(L)``) or an integer tensor ``[L]`` (may be negative).
        head_dim (int): even head dimension ``d``.
        gamma (float): > 0 (torchscale: 0.4).
        scale_base (float): > 0 (torchscale: 512).

    Returns:
        tuple[torch.Tensor, torch.Tensor]: ``(scale_q, scale_k)``, float32 ``[L, d]`` each, in the half
        layout (pair ``i``'s scale in columns ``i`` and ``i + d/2``); multiply the rotated q and k.
    """
    head_dim = check_even("head_dim", head_dim)
    gamma = check_float("gamma", gamma, gt=0.0)
    scale_base = check_float("scale_base", scale_base, gt=0.0)
    if isinstance(positions, torch.Tensor):
        check_tensor("positions", positions, ndim=1, floating=False)
        check_size("positions", f"<{len(positions)} positions>", (len(positions), head_dim), item_bytes=16)
        pos = positions
    else:
        n = check_int("positions", positions, min_value=0)
        check_size("positions", n, (n, head_dim), item_bytes=16)
        pos = torch.arange(n)
    zeta = (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim + gamma) / (1 + gamma)  # [d/2]
    log_q = pos.to(torch.float64)[:, None] / scale_base * zeta.log()[None, :]  # [L, d/2]
    log_q = torch.cat((log_q, log_q), dim=-1)  # [L, d]
    return log_q.exp().float(), (-log_q).exp().float()
