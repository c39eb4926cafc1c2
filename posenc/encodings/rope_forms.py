"""RoPE's textbook forms and layout conversions, kept beside the production path of :mod:`posenc.encodings.rope`.

Each form computes the same rotation as :func:`posenc.encodings.rope.apply_rope`, written the way a paper
or a reference code base writes it; the book shows them, and the tests compare them with the fast
path:

- the rotation matrix ``R_m`` of RoFormer eq. (15) (:func:`rope_matrix`, :func:`apply_rope_matrix`);
- the complex product of Meta's LLaMA code (:func:`rope_freqs_cis`, :func:`apply_rope_complex`);
- Hugging Face's ``x * cos + rotate_half(x) * sin`` (:func:`rotate_half`, :func:`apply_rope_rotate_half`);
- the permutations between the interleaved and half layouts (:func:`interleaved_to_half_permutation`,
  :func:`permute_qk_weight_for_half`, :func:`unpermute_qk_weight_to_interleaved`).

Shape legend: ``L`` positions, ``d`` head dimension (even), ``h`` heads, ``...`` leading dimensions.

References:
    Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", 2021, eqs. (13)-(15), (34).
    Meta ``llama/model.py`` (``precompute_freqs_cis``, ``apply_rotary_emb``).
    Hugging Face ``modeling_llama.py`` (``rotate_half``, ``apply_rotary_pos_emb``) and
    ``convert_llama_weights_to_hf.py`` (``permute``).
"""

from __future__ import annotations

import torch

from .._core import rope as rope_core
from .._core.freq import DEFAULT_BASE, frequency_ladder
from .._core.validate import check_choice, check_dtype, check_even, check_float, check_int, check_size, check_tensor
from .rope import LAYOUTS

__all__ = [
    "rotate_half",
    "apply_rope_rotate_half",
    "rope_freqs_cis",
    "apply_rope_complex",
    "rope_matrix",
    "apply_rope_matrix",
    "interleaved_to_half_permutation",
    "permute_qk_weight_for_half",
    "unpermute_qk_weight_to_interleaved",
]


def _check_even_width(x: torch.Tensor) -> int:
    if x.shape[-1] % 2:
        raise ValueError(f"x's last dimension (head_dim) must be even, got {x.shape[-1]}")
    return x.shape[-1]


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """``cat([-x2, x1])`` for ``x = cat([x1, x2])`` along the last dimension (Hugging Face).

    This is *not* a rotation of neighbouring pairs ``(x_i, x_{i+1})``: it pairs coordinate ``i``
    with coordinate ``i + d/2``.

    Args:
        x (torch.Tensor): ``[..., d]`` with even ``d``.

    Returns:
        torch.Tensor: ``[..., d]``.
    """
    check_tensor("x", x, min_ndim=1)
    _check_even_width(x)
    return _rotate_half(x)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)  # [..., d/2] each
    return torch.cat((-x2, x1), dim=-1)


def apply_rope_rotate_half(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Hugging Face's eager form, ``x * cos + rotate_half(x) * sin`` (half layout), as written there.

    Kept as a reference and benchmark baseline; :func:`posenc.encodings.rope.apply_rope` computes the same values.

    Args:
        x (torch.Tensor): ``[..., L, d]``.
        cos, sin (torch.Tensor): half-layout tables ``[L, d]`` (or with ``L`` rows, broadcasting to ``x``).

    Returns:
        torch.Tensor: ``[..., L, d]``.
    """
    check_tensor("x", x, min_ndim=1, floating=True)
    check_tensor("cos", cos, floating=True)
    check_tensor("sin", sin, floating=True)
    d = _check_even_width(x)
    if cos.shape != sin.shape or cos.shape[-1] != d:
        raise ValueError(
            f"cos and sin must share a shape ending in head_dim={d}, got {tuple(cos.shape)} and {tuple(sin.shape)}"
        )
    rope_core.check_table_shape(x, cos.shape, "cos")
    return x * cos.to(x.dtype) + _rotate_half(x) * sin.to(x.dtype)


def rope_freqs_cis(positions: int | torch.Tensor, head_dim: int, base: float = DEFAULT_BASE) -> torch.Tensor:
    """Meta LLaMA's ``precompute_freqs_cis``: unit complex numbers ``e^{i m theta_j}``.

    Args:
        positions: int ``L`` or 1-D integer tensor ``[L]``.
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base.

    Returns:
        torch.Tensor: complex64 ``[L, d/2]``.
    """
    head_dim = check_even("head_dim", head_dim)
    pos = rope_core.positions_tensor(positions, head_dim // 2, item_bytes=16, width_arg=("head_dim", head_dim))
    inv_freq = frequency_ladder(head_dim, check_float("base", base, gt=1.0))
    angles = rope_core.position_angles(pos, inv_freq).float()  # [L, d/2]
    return torch.polar(torch.ones_like(angles), angles)


def apply_rope_complex(x: torch.Tensor, freqs_cis: torch.Tensor) -> torch.Tensor:
    """Meta LLaMA's ``apply_rotary_emb`` (interleaved layout): view pairs as complex numbers and multiply.

    ``x`` may be any strided view and may have ``L = 0`` positions (it is copied to a contiguous
    float32 tensor first, as Meta's code does with ``x.float()``).

    Args:
        x (torch.Tensor): ``[..., L, d]``.
        freqs_cis (torch.Tensor): complex ``[L, d/2]`` from :func:`rope_freqs_cis`.

    Returns:
        torch.Tensor: ``[..., L, d]`` in ``x``'s dtype.
    """
    check_tensor("x", x, min_ndim=2, floating=True)
    check_tensor("freqs_cis", freqs_cis, min_ndim=1)
    if not freqs_cis.is_complex():
        raise TypeError(f"freqs_cis must be a complex tensor, got dtype {freqs_cis.dtype}")
    d = _check_even_width(x)
    rope_core.check_table_shape(x[..., : d // 2], freqs_cis.shape, "freqs_cis")
    x_c = torch.view_as_complex(x.float().contiguous().reshape(*x.shape[:-1], d // 2, 2))  # [..., L, d/2] complex
    return torch.view_as_real(x_c * freqs_cis).flatten(-2).to(x.dtype)  # [..., L, d]


def _rotation_matrices(angles: torch.Tensor, head_dim: int, layout: str) -> torch.Tensor:
    """float64 ``[L, d, d]`` matrices ``R_m`` from float64 angles ``[L, d/2]``."""
    c, s = angles.cos(), angles.sin()  # [L, d/2]
    idx = torch.arange(head_dim // 2)
    first, second = (idx, idx + head_dim // 2) if layout == "half" else (2 * idx, 2 * idx + 1)
    r = torch.zeros(len(angles), head_dim, head_dim, dtype=torch.float64)
    r[:, first, first] = c
    r[:, first, second] = -s
    r[:, second, first] = s
    r[:, second, second] = c
    return r


def rope_matrix(
    position: int,
    head_dim: int,
    base: float = DEFAULT_BASE,
    *,
    layout: str = "interleaved",
    inv_freq: torch.Tensor | None = None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """The orthogonal ``[d, d]`` matrix ``R_m`` of RoFormer eq. (15) for one position.

    ``apply_rope(x, cos_m, sin_m, layout=layout) == x @ R_m.T`` for a row vector ``x`` at position ``m``.
    In the interleaved layout ``R_m`` is block diagonal with 2x2 blocks ``[[cos, -sin], [sin, cos]]``;
    in the half layout the same blocks sit at rows/columns ``(i, i + d/2)``. Multiplying by it costs
    ``O(d^2)``; :func:`posenc.encodings.rope.apply_rope` does the same in ``O(d)``.

    Args:
        position (int): the position ``m`` (any integer).
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base.
        layout (str): ``"interleaved"`` (default, the paper's form) or ``"half"``.
        inv_freq (torch.Tensor, optional): ``[d/2]`` finite frequencies instead of
            :func:`posenc.encodings.rope.rope_inv_freq`.
        dtype (torch.dtype): floating dtype of the result.

    Returns:
        torch.Tensor: ``[d, d]``.
    """
    position = check_int("position", position)
    head_dim = check_even("head_dim", head_dim)
    check_choice("layout", layout, LAYOUTS)
    check_dtype("dtype", dtype)
    check_size("head_dim", head_dim, (head_dim, head_dim), item_bytes=8)
    if inv_freq is None:
        inv_freq = frequency_ladder(head_dim, check_float("base", base, gt=1.0))
    else:
        rope_core.check_inv_freq(inv_freq, head_dim)
    angles = rope_core.position_angles(torch.tensor([position]), inv_freq)  # [1, d/2] float64
    return _rotation_matrices(angles, head_dim, layout)[0].to(dtype)


def apply_rope_matrix(
    x: torch.Tensor,
    positions: int | torch.Tensor,
    base: float = DEFAULT_BASE,
    *,
    layout: str = "interleaved",
) -> torch.Tensor:
    """RoPE as RoFormer eq. (14) writes it: one ``[d, d]`` matrix per position, ``O(d^2)`` per vector.

    Args:
        x (torch.Tensor): ``[..., L, d]`` (``L = 0`` allowed).
        positions: int ``L`` or 1-D integer tensor ``[L]``.
        base (float): wavelength base.
        layout (str): ``"interleaved"`` or ``"half"``.

    Returns:
        torch.Tensor: ``[..., L, d]``; equal to :func:`posenc.encodings.rope.apply_rope` up to rounding.
    """
    check_tensor("x", x, min_ndim=2, floating=True)
    check_choice("layout", layout, LAYOUTS)
    d = _check_even_width(x)
    pos = rope_core.positions_tensor(positions, d * d, item_bytes=8, width_arg=("x.shape[-1]", d))
    if len(pos) != x.shape[-2]:
        raise ValueError(f"positions must have one entry per row of x ({x.shape[-2]}), got {len(pos)}")
    angles = rope_core.position_angles(pos, frequency_ladder(d, check_float("base", base, gt=1.0)))  # [L, d/2]
    mats = _rotation_matrices(angles, d, layout).to(x.dtype)  # [L, d, d]
    return torch.einsum("...le,lde->...ld", x, mats)  # x_l @ R_l^T


def interleaved_to_half_permutation(head_dim: int) -> torch.Tensor:
    """Index ``perm`` with ``x_half = x_interleaved[..., perm]``: even coordinates, then odd ones.

    Under it, interleaved pair ``(2i, 2i+1)`` lands on half-layout pair ``(i, i + d/2)``, so
    ``apply_rope(x[..., perm], layout="half") == apply_rope(x, layout="interleaved")[..., perm]``.

    Args:
        head_dim (int): even head dimension ``d``.

    Returns:
        torch.Tensor: int64 ``[d]``.
    """
    head_dim = check_even("head_dim", head_dim)
    check_size("head_dim", head_dim, (head_dim,), item_bytes=8)
    return torch.cat((torch.arange(0, head_dim, 2), torch.arange(1, head_dim, 2)))


def _check_qk_weight(weight: torch.Tensor, n_heads: int) -> int:
    check_tensor("weight", weight, ndim=2)
    n_heads = check_int("n_heads", n_heads, min_value=1)
    rows = weight.shape[0]
    if rows % (2 * n_heads):
        raise ValueError(f"weight rows ({rows}) must be divisible by 2 * n_heads ({2 * n_heads})")
    return n_heads


def permute_qk_weight_for_half(weight: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Reorder the rows of a Meta-style ``W_q`` or ``W_k`` for half-layout RoPE.

    The Hugging Face LLaMA conversion script applies this to ``wq`` (with the query head count)
    and ``wk`` (with the key/value head count), never to ``wv``: it is the per-head
    :func:`interleaved_to_half_permutation` of the output rows,
    ``w.view(h, d/2, 2, in).transpose(1, 2).reshape(h*d, in)``.

    Args:
        weight (torch.Tensor): ``[h * d, in_features]`` (``nn.Linear`` layout).
        n_heads (int): number of heads ``h`` the rows are split into.

    Returns:
        torch.Tensor: ``[h * d, in_features]``.
    """
    n_heads = _check_qk_weight(weight, n_heads)
    rows, cols = weight.shape
    return weight.reshape(n_heads, rows // n_heads // 2, 2, cols).transpose(1, 2).reshape(rows, cols)


def unpermute_qk_weight_to_interleaved(weight: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Inverse of :func:`permute_qk_weight_for_half` (Hugging Face rows back to Meta's order).

    Args:
        weight (torch.Tensor): ``[h * d, in_features]``.
        n_heads (int): number of heads ``h``.

    Returns:
        torch.Tensor: ``[h * d, in_features]``.
    """
    n_heads = _check_qk_weight(weight, n_heads)
    rows, cols = weight.shape
    return weight.reshape(n_heads, 2, rows // n_heads // 2, cols).transpose(1, 2).reshape(rows, cols)
