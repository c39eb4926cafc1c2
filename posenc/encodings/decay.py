"""RoPE's long-term decay: the relative upper bound of RoFormer section 3.4.3.

With summation by parts (Abel's transformation), ``sum_i h_i e^{i r theta_i}`` (``h_i`` the complex
products of query and key pairs) is bounded by ``(max_i |h_{i+1} - h_i|) * sum_j |S_j|`` with partial sums
``S_j = sum_{k<j} e^{i r theta_k}``. The mean ``(1/(d/2)) sum_j |S_j|`` is the curve of RoFormer's
Figure 2: it falls on average as the relative distance ``r`` grows, with ripples, and (checked up to
``r = 10**5`` for ``d = 128``) stays low without falling monotonically. A much larger base keeps it
higher on average over each octave ``2**j <= r < 2**(j+1)`` with ``r < 2**17`` (``10**4``,
``5 * 10**5`` and ``10**6`` for the head sizes 64, 96, 128, 192 and 256 checked; some widths in
between, such as 82 and 98, break it). Not beyond: over ``2**17 <= r < 2**18``, base
``5 * 10**5`` averages below ``10**4`` for head sizes 64 and 128. Smaller heads and nearby bases cross
in some octaves, and the curves cross at single distances (chapter 5 of the book). It bounds the
score of a fixed query and key; it says nothing about the score itself, whose expectation for
independent random vectors is 0 at every distance.

References:
    Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", 2021, section 3.4.3.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from .._core.freq import DEFAULT_BASE, frequency_ladder
from .._core.validate import check_dtype, check_even, check_float, check_int, check_size
from .rope import rope_inv_freq

__all__ = ["rope_decay_bound", "rope_matching_stretch_means", "rope_matching_trend"]


def rope_decay_bound(
    head_dim: int, distances: Sequence[float] | torch.Tensor, base: float = DEFAULT_BASE
) -> torch.Tensor:
    """RoFormer's relative upper bound ``(1/(d/2)) * sum_{j=1}^{d/2} |S_j|`` at each distance.

    Computed in float64: the partial sums cancel strongly at large ``r``.

    Args:
        head_dim (int): even head dimension ``d``.
        distances: ``[n]`` finite relative distances ``r`` (any real numbers; a 1-D tensor, list or range).
        base (float): wavelength base, ``theta_k = base ** (-2k/d)``
            (:func:`posenc.encodings.rope.rope_inv_freq`).

    Returns:
        torch.Tensor: float64 ``[n]``, non-negative. At ``r = 0`` every term is 1, so
        ``|S_j| = j`` and the bound is its largest value, ``(d/2 + 1) / 2``.
    """
    head_dim = check_even("head_dim", head_dim)
    base = check_float("base", base, gt=1.0)
    if isinstance(distances, torch.Tensor) and (distances.is_complex() or distances.dtype == torch.bool):
        raise TypeError(f"distances must be real numbers, got dtype {distances.dtype}")
    try:
        r = torch.as_tensor(distances, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as err:
        raise TypeError(f"distances must be a 1-D sequence or tensor of real numbers: {err}") from None
    if r.ndim != 1:
        raise ValueError(f"distances must be 1-D, got shape {tuple(r.shape)}")
    if not torch.isfinite(r).all():
        raise ValueError("distances must be finite")
    check_size("distances", f"<{len(r)} distances>", (len(r), head_dim // 2), item_bytes=48)
    theta = frequency_ladder(head_dim, base, torch.float64)  # [d/2]
    phase = r[:, None] * theta[None, :]  # [n, d/2]
    terms = torch.polar(torch.ones_like(phase), phase)  # [n, d/2] complex128
    partial = torch.cumsum(terms, dim=-1)  # [n, d/2]: S_1 .. S_{d/2}
    return partial.abs().mean(dim=-1)  # [n]


def rope_matching_stretch_means(
    head_dim: int, base: float = DEFAULT_BASE, max_start: int = 32768, *, freq_dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """A matching key's mean score per pair over each stretch of distances ``[a, 2a)``, for every ``a`` at once.

    For ``q = k`` with every pair of unit length, pair ``k`` contributes ``cos(r * theta_k)`` at distance
    ``r``; its sum over ``r = a .. 2a - 1`` has the closed form
    ``(sin((2a - 1/2) theta) - sin((a - 1/2) theta)) / (2 sin(theta / 2))``. Entry ``a - 1`` is that sum
    divided by ``a``, averaged over the ``d/2`` pairs: chapter 10's comparison of bases.

    Args:
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base; the frequencies are :func:`posenc.encodings.rope.rope_inv_freq`'s
            in ``freq_dtype``, then summed in float64.
        max_start (int): the largest ``a``; entries run over ``a = 1 .. max_start``.
        freq_dtype (torch.dtype): the frequencies' dtype: float32 by default, as models form them;
            float64 to check that a result does not hang on their rounding.

    Returns:
        torch.Tensor: float64 ``[max_start]``, each in ``[-1, 1]``.
    """
    head_dim = check_even("head_dim", head_dim)
    base = check_float("base", base, gt=1.0)
    max_start = check_int("max_start", max_start, min_value=1)
    freq_dtype = check_dtype("freq_dtype", freq_dtype)
    check_size("max_start", max_start, (max_start, head_dim // 2), item_bytes=48)
    theta = rope_inv_freq(head_dim, base, dtype=freq_dtype).double()  # [d/2]: float32 by default, as models use
    a = torch.arange(1, max_start + 1, dtype=torch.float64)[:, None]  # [max_start, 1]
    sums = (torch.sin((2 * a - 0.5) * theta) - torch.sin((a - 0.5) * theta)) / (2 * torch.sin(theta / 2))
    return (sums / a).mean(dim=-1)  # [max_start]


#: Euler's constant, from the cosine integral's expansion Ci(x) = gamma + ln x + O(x**2).
EULER_GAMMA = 0.5772156649015329


def rope_matching_trend(distance: torch.Tensor, head_dim: int, base: float = DEFAULT_BASE) -> torch.Tensor:
    """The trend of a matching key's score, ``E(r) = 2 sum_k cos(r theta_k)``: ``d (1 - (ln r + gamma) / ln b)``.

    With ``theta_k = b**(-2k/d)`` the sum over pairs is close to ``(d/2) (Ci(r) - Ci(r/b)) / ln b``
    (a Riemann sum over ``t = 2k/d``); for ``1 << r << b``, ``Ci(r)`` is near 0 and ``Ci(r/b)`` near
    ``gamma + ln(r/b)``. So ``E`` falls with the logarithm of the distance, more slowly for a larger base,
    and this trend reaches zero at ``b e**-gamma``, about ``0.56 b``; the ``Ci`` form does at about ``0.62 b``. Near
    there ``E`` ripples around zero, so chapter 5 gives the zero, for ``d = 128``, as between about ``0.5 b``
    and ``0.62 b``. It is a trend, not a value at each ``r``:
    chapter 5 checks means over stretches of ``r`` from about 20 to ``b/2`` (within 3 % of ``d`` for
    ``d`` 64 and 128, ``b`` ``10**4`` and ``5 * 10**5``); single distances ripple around it.

    Args:
        distance (torch.Tensor): distances ``r``, each at least 1, any shape.
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base ``b``.

    Returns:
        torch.Tensor: float64, the shape of ``distance``.
    """
    head_dim = check_even("head_dim", head_dim)
    base = check_float("base", base, gt=1.0)
    if not isinstance(distance, torch.Tensor):
        raise TypeError(f"distance must be a torch.Tensor, got {type(distance).__name__}")
    r = distance.to(torch.float64)
    if r.numel() and float(r.min()) < 1:
        raise ValueError(f"distance must be at least 1, got a smallest distance of {float(r.min())}")
    return head_dim * (1 - (torch.log(r) + EULER_GAMMA) / math.log(base))
