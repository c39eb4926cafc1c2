"""Rotary position embedding (RoPE, 旋转位置编码) and its context-extension variants.

Shape legend used in the docstrings:

- ``L``: number of positions (sequence length)
- ``d``: head dimension ``head_dim`` (even); ``d/2`` rotation pairs
- ``b``: batch size, ``h``: number of heads, ``...``: any leading dimensions

Two memory layouts of the same rotation exist in the wild (see :func:`rope_cos_sin`):

- ``"interleaved"``: pair ``i`` is ``(x[2i], x[2i+1])`` (RoFormer, Meta's LLaMA complex form, GPT-J).
- ``"half"``: pair ``i`` is ``(x[i], x[i + d/2])`` (Hugging Face ``rotate_half``, GPT-NeoX).

They give identical attention scores once the rows of ``W_q`` and ``W_k`` are permuted
(:func:`permute_qk_weight_for_half`).

References:
    Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", 2021.
    Chen et al., "Extending Context Window of Large Language Models via Positional Interpolation", 2023.
    Peng et al., "YaRN: Efficient Context Window Extension of Large Language Models", 2023.
    Hugging Face transformers ``modeling_rope_utils.py`` and ``modeling_llama.py``.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ._validate import check_choice, check_even, check_float, check_int, check_tensor

__all__ = [
    "LAYOUTS",
    "ROPE_TYPES",
    "rope_inv_freq",
    "rope_angles",
    "rope_cos_sin",
    "rotate_half",
    "apply_rope",
    "rope_matrix",
    "rope_scaled_inv_freq",
    "interleaved_to_half_permutation",
    "permute_qk_weight_for_half",
    "unpermute_qk_weight_to_interleaved",
    "RotaryEmbedding",
    "apply_rope_rotate_half",
    "rope_freqs_cis",
    "apply_rope_complex",
    "apply_rope_matrix",
    "rope_cos_sin_2d",
]

LAYOUTS = ("half", "interleaved")
ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3")


def rope_inv_freq(head_dim: int, base: float = 10000.0) -> torch.Tensor:
    """Rotation frequencies ``theta_i = base ** (-2i / head_dim)``, i = 0 .. d/2 - 1.

    Computed exactly as Hugging Face's default RoPE initialisation (float32), so tables built from
    it match theirs bit for bit.

    Args:
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base (RoFormer: 10000; Llama 3: 500000), > 1.

    Returns:
        torch.Tensor: float32 ``[d/2]``, decreasing from 1.
    """
    head_dim = check_even("head_dim", head_dim)
    base = check_float("base", base, gt=1.0)
    exponent = torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim  # [d/2]
    return 1.0 / (base**exponent)


def _positions(positions: int | torch.Tensor) -> torch.Tensor:
    if isinstance(positions, torch.Tensor):
        check_tensor("positions", positions, ndim=1, floating=False)
        return positions
    n = check_int("positions", positions, min_value=0)
    return torch.arange(n)


def _expand(angles: torch.Tensor, layout: str) -> torch.Tensor:
    if layout == "half":
        return torch.cat((angles, angles), dim=-1)  # [..., d]: (a0..a_{d/2-1}, a0..a_{d/2-1})
    return angles.repeat_interleave(2, dim=-1)  # [..., d]: (a0, a0, a1, a1, ...)


def rope_angles(positions: int | torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """Rotation angles ``m * theta_i`` in float64.

    float64 keeps the angle exact to ~1e-11 rad even at position 1e6; float32 is off by up to
    ``m * 2**-24`` rad and bf16 cannot even represent most large positions.

    Args:
        positions: int ``L`` (meaning ``arange(L)``) or an integer tensor ``[L]``.
        inv_freq (torch.Tensor): ``[d/2]`` frequencies.

    Returns:
        torch.Tensor: float64 ``[L, d/2]``.
    """
    pos = _positions(positions)
    check_tensor("inv_freq", inv_freq, ndim=1, floating=True)
    return pos.to(torch.float64)[:, None] * inv_freq.to(torch.float64)[None, :]  # [L, d/2]


def rope_cos_sin(
    positions: int | torch.Tensor,
    head_dim: int,
    base: float = 10000.0,
    *,
    layout: str = "half",
    inv_freq: torch.Tensor | None = None,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The cos and sin tables that :func:`apply_rope` multiplies with.

    Angles are formed and passed through cos/sin in float64, then cast to ``dtype``, so a bf16
    table is the correctly rounded value rather than the cosine of a rounded angle.

    Args:
        positions: int ``L`` (meaning ``arange(L)``) or a 1-D integer tensor ``[L]`` of positions.
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base, used when ``inv_freq`` is None.
        layout (str): ``"half"`` duplicates the angles as ``cat([a, a])`` (Hugging Face, GPT-NeoX);
            ``"interleaved"`` repeats each angle twice in a row (RoFormer, Meta LLaMA, GPT-J).
        inv_freq (torch.Tensor, optional): ``[d/2]`` frequencies to use instead of
            :func:`rope_inv_freq` (e.g. from :func:`rope_scaled_inv_freq`).
        dtype (torch.dtype): dtype of the returned tables.

    Returns:
        tuple[torch.Tensor, torch.Tensor]: ``(cos, sin)``, each ``[L, d]``.
    """
    head_dim = check_even("head_dim", head_dim)
    check_choice("layout", layout, LAYOUTS)
    if inv_freq is None:
        inv_freq = rope_inv_freq(head_dim, base)
    elif inv_freq.shape != (head_dim // 2,):
        raise ValueError(f"inv_freq must have shape [{head_dim // 2}] (head_dim // 2), got {tuple(inv_freq.shape)}")
    angles = _expand(rope_angles(positions, inv_freq), layout)  # [L, d] float64
    return angles.cos().to(dtype), angles.sin().to(dtype)


def rope_cos_sin_2d(
    rows: int,
    cols: int,
    head_dim: int,
    base: float = 10000.0,
    *,
    layout: str = "half",
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Axial 2-D RoPE tables for a ``rows x cols`` grid of patches, flattened row by row.

    The ``d/2`` rotation pairs are split in two: the first ``d/4`` pairs turn with the row index,
    the last ``d/4`` with the column index, each with frequencies ``base ** (-4i/d)`` (a 1-D RoPE of
    width ``d/2`` per axis). The score of patches ``(r1, c1)`` and ``(r2, c2)`` then depends on
    ``(r2 - r1, c2 - c1)`` only.

    Args:
        rows, cols (int): grid size; position ``p = r * cols + c``.
        head_dim (int): head dimension ``d``, divisible by 4.
        base (float): wavelength base.
        layout (str): ``"half"`` or ``"interleaved"``, as for :func:`rope_cos_sin`.
        dtype (torch.dtype): dtype of the tables.

    Returns:
        tuple[torch.Tensor, torch.Tensor]: ``(cos, sin)``, each ``[rows * cols, d]``.
    """
    rows = check_int("rows", rows, min_value=1)
    cols = check_int("cols", cols, min_value=1)
    head_dim = check_int("head_dim", head_dim, min_value=4)
    if head_dim % 4:
        raise ValueError(f"head_dim must be divisible by 4 for 2-D RoPE (two axes of pairs), got {head_dim}")
    check_choice("layout", layout, LAYOUTS)
    inv_freq = rope_inv_freq(head_dim // 2, base)  # [d/4]
    r, c = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
    angles = torch.cat((rope_angles(r.flatten(), inv_freq), rope_angles(c.flatten(), inv_freq)), dim=-1)  # [P, d/2]
    angles = _expand(angles, layout)  # [P, d]
    return angles.cos().to(dtype), angles.sin().to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """``cat([-x2, x1])`` for ``x = cat([x1, x2])`` along the last dimension (Hugging Face).

    This is *not* a rotation of neighbouring pairs ``(x_i, x_{i+1})``: it pairs coordinate ``i``
    with coordinate ``i + d/2``.

    Args:
        x (torch.Tensor): ``[..., d]`` with even ``d``.

    Returns:
        torch.Tensor: ``[..., d]``.
    """
    x1, x2 = x.chunk(2, dim=-1)  # [..., d/2] each
    return torch.cat((-x2, x1), dim=-1)


def _pairs(t: torch.Tensor, layout: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The two members of every rotation pair, as strided views ``[..., d/2]``."""
    if layout == "half":
        half = t.shape[-1] // 2
        return t[..., :half], t[..., half:]
    return t[..., 0::2], t[..., 1::2]


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, *, layout: str = "half") -> torch.Tensor:
    """Rotate every pair of ``x`` by its position's angle.

    For a pair ``(x0, x1)`` and angle ``a`` the result is
    ``(x0 cos a - x1 sin a, x0 sin a + x1 cos a)``: multiplication of ``x0 + i x1`` by ``e^{i a}``.
    In the ``"half"`` layout this equals Hugging Face's ``x * cos + rotate_half(x) * sin``.

    The arithmetic runs in ``x``'s dtype with ``cos``/``sin`` cast to it, like the reference
    implementations. Without autograd, the interleaved layout (float32/64) is one complex
    multiplication and the half layout writes its two halves straight into the output (about half
    the memory traffic of the ``rotate_half`` form); with autograd the plain formula is used.

    Args:
        x (torch.Tensor): ``[..., L, d]`` queries or keys.
        cos (torch.Tensor): ``[L, d]`` (or anything that broadcasts to ``x``, e.g. ``[b, 1, L, d]``).
        sin (torch.Tensor): same shape as ``cos``.
        layout (str): ``"half"`` or ``"interleaved"``; must match the layout the tables were built with.

    Returns:
        torch.Tensor: same shape and dtype as ``x``.
    """
    check_tensor("x", x, min_ndim=1, floating=True)
    check_tensor("cos", cos, floating=True)
    check_tensor("sin", sin, floating=True)
    check_choice("layout", layout, LAYOUTS)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"x's last dimension (head_dim) must be even, got {d}")
    if cos.shape != sin.shape or cos.shape[-1] != d:
        raise ValueError(f"cos and sin must share a shape ending in head_dim={d}, got {tuple(cos.shape)} and {tuple(sin.shape)}")
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    c, _ = _pairs(cos, layout)  # [..., L, d/2]; both members of a pair share the angle
    s, _ = _pairs(sin, layout)
    x0, x1 = _pairs(x, layout)
    if torch.is_grad_enabled() and (x.requires_grad or cos.requires_grad or sin.requires_grad):
        y0 = x0 * c - x1 * s
        y1 = x0 * s + x1 * c
        if layout == "half":
            return torch.cat((y0, y1), dim=-1)
        return torch.stack((y0, y1), dim=-1).flatten(-2)
    if layout == "interleaved" and x.dtype in (torch.float32, torch.float64) and x.stride(-1) == 1:
        # pairs are adjacent: one complex multiply by e^{i a} (Meta's form) runs at copy speed
        rot = torch.complex(c.contiguous(), s.contiguous())  # [..., L, d/2]
        x_c = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))  # [..., L, d/2]
        return torch.view_as_real(x_c * rot).flatten(-2)  # [..., L, d]
    out = torch.empty(torch.broadcast_shapes(x.shape, cos.shape), dtype=x.dtype, device=x.device)
    y0, y1 = _pairs(out, layout)  # views into out
    torch.mul(x0, c, out=y0)
    y0.addcmul_(x1, s, value=-1)
    torch.mul(x1, c, out=y1)
    y1.addcmul_(x0, s)
    return out


def apply_rope_rotate_half(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Hugging Face's eager form, ``x * cos + rotate_half(x) * sin`` (half layout), as written there.

    Kept as a reference and benchmark baseline; :func:`apply_rope` computes the same values.

    Args:
        x (torch.Tensor): ``[..., L, d]``.
        cos, sin (torch.Tensor): half-layout tables ``[L, d]`` (or broadcastable).

    Returns:
        torch.Tensor: ``[..., L, d]``.
    """
    check_tensor("x", x, min_ndim=1, floating=True)
    if cos.shape != sin.shape or cos.shape[-1] != x.shape[-1]:
        raise ValueError(f"cos and sin must share a shape ending in head_dim={x.shape[-1]}, "
                         f"got {tuple(cos.shape)} and {tuple(sin.shape)}")
    return x * cos.to(x.dtype) + rotate_half(x) * sin.to(x.dtype)


def rope_freqs_cis(positions: int | torch.Tensor, head_dim: int, base: float = 10000.0) -> torch.Tensor:
    """Meta LLaMA's ``precompute_freqs_cis``: unit complex numbers ``e^{i m theta_j}``.

    Args:
        positions: int ``L`` or 1-D integer tensor ``[L]``.
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base.

    Returns:
        torch.Tensor: complex64 ``[L, d/2]``.
    """
    angles = rope_angles(positions, rope_inv_freq(head_dim, base)).float()  # [L, d/2]
    return torch.polar(torch.ones_like(angles), angles)


def apply_rope_complex(x: torch.Tensor, freqs_cis: torch.Tensor) -> torch.Tensor:
    """Meta LLaMA's ``apply_rotary_emb`` (interleaved layout): view pairs as complex numbers and multiply.

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
    x_c = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))  # [..., L, d/2] complex
    return torch.view_as_real(x_c * freqs_cis).flatten(-2).to(x.dtype)  # [..., L, d]


def apply_rope_matrix(
    x: torch.Tensor,
    positions: int | torch.Tensor,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
) -> torch.Tensor:
    """RoPE as RoFormer eq. (14) writes it: one ``[d, d]`` matrix per position, ``O(d^2)`` per vector.

    Args:
        x (torch.Tensor): ``[..., L, d]``.
        positions: int ``L`` or 1-D integer tensor ``[L]``.
        base (float): wavelength base.
        layout (str): ``"interleaved"`` or ``"half"``.

    Returns:
        torch.Tensor: ``[..., L, d]``; equal to :func:`apply_rope` up to rounding.
    """
    check_tensor("x", x, min_ndim=2, floating=True)
    pos = _positions(positions)
    d = x.shape[-1]
    if len(pos) != x.shape[-2]:
        raise ValueError(f"positions must have one entry per row of x ({x.shape[-2]}), got {len(pos)}")
    mats = torch.stack([rope_matrix(int(m), d, base, layout=layout, dtype=x.dtype) for m in pos])  # [L, d, d]
    return torch.einsum("...le,lde->...ld", x, mats)  # x_l @ R_l^T


def rope_matrix(
    position: int,
    head_dim: int,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    inv_freq: torch.Tensor | None = None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """The orthogonal ``[d, d]`` matrix ``R_m`` of RoFormer eq. (15) for one position.

    ``apply_rope(x, cos_m, sin_m, layout=layout) == x @ R_m.T`` for a row vector ``x`` at position ``m``.
    In the interleaved layout ``R_m`` is block diagonal with 2x2 blocks ``[[cos, -sin], [sin, cos]]``;
    in the half layout the same blocks sit at rows/columns ``(i, i + d/2)``. Multiplying by it costs
    ``O(d^2)``; :func:`apply_rope` does the same in ``O(d)``.

    Args:
        position (int): the position ``m`` (any integer).
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base.
        layout (str): ``"interleaved"`` (default, the paper's form) or ``"half"``.
        inv_freq (torch.Tensor, optional): ``[d/2]`` frequencies instead of :func:`rope_inv_freq`.
        dtype (torch.dtype): dtype of the result.

    Returns:
        torch.Tensor: ``[d, d]``.
    """
    position = check_int("position", position)
    head_dim = check_even("head_dim", head_dim)
    check_choice("layout", layout, LAYOUTS)
    if inv_freq is None:
        inv_freq = rope_inv_freq(head_dim, base)
    angles = rope_angles(torch.tensor([position]), inv_freq)[0]  # [d/2] float64
    c, s = angles.cos(), angles.sin()
    half = head_dim // 2
    idx = torch.arange(half)
    first, second = (idx, idx + half) if layout == "half" else (2 * idx, 2 * idx + 1)
    r = torch.zeros(head_dim, head_dim, dtype=torch.float64)
    r[first, first] = c
    r[first, second] = -s
    r[second, first] = s
    r[second, second] = c
    return r.to(dtype)


def rope_scaled_inv_freq(
    head_dim: int,
    base: float = 10000.0,
    *,
    rope_type: str = "default",
    factor: float = 1.0,
    original_max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    attention_factor: float | None = None,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> tuple[torch.Tensor, float]:
    """RoPE frequencies for context extension, as Hugging Face's ``ROPE_INIT_FUNCTIONS``.

    - ``"default"``: :func:`rope_inv_freq`.
    - ``"linear"`` (position interpolation, Chen et al. 2023): every frequency divided by ``factor``.
    - ``"dynamic"`` (dynamic NTK): the base grows to ``base * (factor * L / L_orig - (factor - 1)) ** (d / (d - 2))``
      for the current length ``L = seq_len > L_orig``; equals the default otherwise.
    - ``"yarn"`` (Peng et al. 2023): high frequencies (more than ``beta_fast`` turns over ``L_orig``) kept,
      low frequencies (fewer than ``beta_slow`` turns) interpolated by ``factor``, a linear ramp between;
      attention factor ``0.1 ln(factor) + 1`` (applied to cos and sin, so logits scale by its square).
    - ``"llama3"``: wavelengths above ``L_orig / low_freq_factor`` divided by ``factor``, below
      ``L_orig / high_freq_factor`` kept, smoothly blended between.

    Args:
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base.
        rope_type (str): one of ``"default", "linear", "dynamic", "yarn", "llama3"``.
        factor (float): extension factor (>= 1 for the scaled types).
        original_max_position_embeddings (int): trained context ``L_orig``; needed by dynamic, yarn, llama3.
        seq_len (int, optional): current length for ``"dynamic"``.
        beta_fast, beta_slow (float): YaRN ramp boundaries in rotations.
        attention_factor (float, optional): YaRN's cos/sin scale; default ``0.1 ln(factor) + 1``.
        low_freq_factor, high_freq_factor (float): Llama 3 band edges.

    Returns:
        tuple[torch.Tensor, float]: float32 ``[d/2]`` frequencies and the attention scaling
        (1.0 except for YaRN).
    """
    head_dim = check_even("head_dim", head_dim)
    base = check_float("base", base, gt=1.0)
    check_choice("rope_type", rope_type, ROPE_TYPES)
    inv_freq = rope_inv_freq(head_dim, base)  # [d/2] float32
    if rope_type == "default":
        return inv_freq, 1.0
    factor = check_float("factor", factor, ge=1.0)
    if rope_type == "linear":
        return inv_freq / factor, 1.0
    if original_max_position_embeddings is None:
        raise ValueError(f"original_max_position_embeddings is required for rope_type={rope_type!r}")
    l_orig = check_int("original_max_position_embeddings", original_max_position_embeddings, min_value=1)
    dim = head_dim
    if rope_type == "dynamic":
        if seq_len is None or check_int("seq_len", seq_len, min_value=0) <= l_orig:
            return inv_freq, 1.0
        new_base = base * ((factor * seq_len / l_orig) - (factor - 1)) ** (dim / (dim - 2))
        return rope_inv_freq(head_dim, new_base), 1.0
    if rope_type == "yarn":
        beta_fast = check_float("beta_fast", beta_fast, gt=0.0)
        beta_slow = check_float("beta_slow", beta_slow, gt=0.0)
        if attention_factor is None:
            attention_factor = 1.0 if factor <= 1 else 0.1 * math.log(factor) + 1.0
        attention_factor = check_float("attention_factor", attention_factor, gt=0.0)

        def correction_dim(n_rotations: float) -> float:
            # the pair index whose wavelength fits n_rotations times into l_orig
            return (dim * math.log(l_orig / (n_rotations * 2 * math.pi))) / (2 * math.log(base))

        low = max(math.floor(correction_dim(beta_fast)), 0)
        high = min(math.ceil(correction_dim(beta_slow)), dim - 1)
        if low == high:
            high += 0.001  # avoid a zero-width ramp
        pos_freqs = base ** (torch.arange(0, dim, 2).float() / dim)  # [d/2]
        ramp = ((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low)).clamp(0, 1)  # [d/2]
        extrapolation = 1 - ramp  # 1: keep the original frequency, 0: interpolate
        inv = (1.0 / (factor * pos_freqs)) * (1 - extrapolation) + (1.0 / pos_freqs) * extrapolation
        return inv, attention_factor
    # llama3
    low_freq_factor = check_float("low_freq_factor", low_freq_factor, gt=0.0)
    high_freq_factor = check_float("high_freq_factor", high_freq_factor, gt=low_freq_factor)
    low_freq_wavelen = l_orig / low_freq_factor
    high_freq_wavelen = l_orig / high_freq_factor
    wavelen = 2 * math.pi / inv_freq  # [d/2]
    scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (l_orig / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, scaled), 1.0


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
    return torch.cat((torch.arange(0, head_dim, 2), torch.arange(1, head_dim, 2)))


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
    check_tensor("weight", weight, ndim=2)
    n_heads = check_int("n_heads", n_heads, min_value=1)
    rows, cols = weight.shape
    if rows % (2 * n_heads):
        raise ValueError(f"weight rows ({rows}) must be divisible by 2 * n_heads ({2 * n_heads})")
    return weight.view(n_heads, rows // n_heads // 2, 2, cols).transpose(1, 2).reshape(rows, cols)


def unpermute_qk_weight_to_interleaved(weight: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Inverse of :func:`permute_qk_weight_for_half` (Hugging Face rows back to Meta's order).

    Args:
        weight (torch.Tensor): ``[h * d, in_features]``.
        n_heads (int): number of heads ``h``.

    Returns:
        torch.Tensor: ``[h * d, in_features]``.
    """
    check_tensor("weight", weight, ndim=2)
    n_heads = check_int("n_heads", n_heads, min_value=1)
    rows, cols = weight.shape
    if rows % (2 * n_heads):
        raise ValueError(f"weight rows ({rows}) must be divisible by 2 * n_heads ({2 * n_heads})")
    return weight.view(n_heads, 2, rows // n_heads // 2, cols).transpose(1, 2).reshape(rows, cols)


class RotaryEmbedding(nn.Module):
    """RoPE as a module: a cos/sin cache that grows on demand and explicit positions.

    Modelled on torchtune's ``RotaryPositionalEmbeddings``: :meth:`forward` takes ``position_ids``
    so key/value-cache decoding (positions ``past, past+1, ...``) and packed sequences (positions
    restarting per document) rotate each token by its own position. The cache is computed in
    float64, stored in float32 and cast to the input dtype when applied; when a position beyond the
    cache is requested the cache is rebuilt at twice the needed size.

    Args:
        head_dim (int): even head dimension ``d``.
        max_seq_len (int): initial cache length.
        base (float): wavelength base.
        layout (str): ``"half"`` (Hugging Face) or ``"interleaved"`` (Meta, RoFormer).
        inv_freq (torch.Tensor, optional): ``[d/2]`` frequencies (e.g. from :func:`rope_scaled_inv_freq`).
        attention_scaling (float): multiplies cos and sin (YaRN's attention factor); default 1.
    """

    def __init__(
        self,
        head_dim: int,
        max_seq_len: int = 4096,
        base: float = 10000.0,
        *,
        layout: str = "half",
        inv_freq: torch.Tensor | None = None,
        attention_scaling: float = 1.0,
    ) -> None:
        super().__init__()
        self.head_dim = check_even("head_dim", head_dim)
        self.base = check_float("base", base, gt=1.0)
        self.layout = check_choice("layout", layout, LAYOUTS)
        max_seq_len = check_int("max_seq_len", max_seq_len, min_value=1)
        self.attention_scaling = check_float("attention_scaling", attention_scaling, gt=0.0)
        if inv_freq is None:
            inv_freq = rope_inv_freq(self.head_dim, self.base)
        elif tuple(inv_freq.shape) != (self.head_dim // 2,):
            raise ValueError(f"inv_freq must have shape [{self.head_dim // 2}], got {tuple(inv_freq.shape)}")
        self.register_buffer("inv_freq", inv_freq.float().clone(), persistent=False)
        self._build_cache(max_seq_len)

    def _build_cache(self, n: int) -> None:
        cos, sin = rope_cos_sin(n, self.head_dim, layout=self.layout, inv_freq=self.inv_freq.cpu(),
                                dtype=torch.float64)  # [n, d] each
        device = self.inv_freq.device
        self.register_buffer("cos_cached", (cos * self.attention_scaling).float().to(device), persistent=False)
        self.register_buffer("sin_cached", (sin * self.attention_scaling).float().to(device), persistent=False)

    @property
    def cache_len(self) -> int:
        """Number of positions currently in the cache."""
        return self.cos_cached.shape[0]

    def cos_sin(self, position_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Cached tables for the given positions: ``[..., d]`` each, for ``position_ids`` ``[...]``."""
        check_tensor("position_ids", position_ids, floating=False)
        if position_ids.numel() == 0:
            shape = (*position_ids.shape, self.head_dim)
            return self.cos_cached.new_empty(shape), self.sin_cached.new_empty(shape)
        if int(position_ids.min()) < 0:
            raise ValueError(f"position_ids must be >= 0, got {int(position_ids.min())}")
        needed = int(position_ids.max()) + 1
        if needed > self.cache_len:
            self._build_cache(max(needed, 2 * self.cache_len))
        ids = position_ids.to(self.cos_cached.device)
        return self.cos_cached[ids], self.sin_cached[ids]

    def forward(self, x: torch.Tensor, position_ids: torch.Tensor | None = None) -> torch.Tensor:
        """Rotate ``x`` by its positions.

        Args:
            x (torch.Tensor): ``[b, h, L, d]`` (or any ``[..., L, d]``).
            position_ids (torch.Tensor, optional): ``[L]`` shared by the batch, or ``[b, L]`` per
                sequence; default ``arange(L)``.

        Returns:
            torch.Tensor: same shape and dtype as ``x``.
        """
        check_tensor("x", x, min_ndim=2, floating=True)
        if x.shape[-1] != self.head_dim:
            raise ValueError(f"x's last dimension must be head_dim={self.head_dim}, got {x.shape[-1]}")
        seq_len = x.shape[-2]
        if position_ids is None:
            position_ids = torch.arange(seq_len, device=x.device)
        if position_ids.shape[-1] != seq_len or position_ids.ndim > 2:
            raise ValueError(
                f"position_ids must be [L] or [b, L] with L={seq_len}, got shape {tuple(position_ids.shape)}"
            )
        cos, sin = self.cos_sin(position_ids)  # [L, d] or [b, L, d]
        if position_ids.ndim == 2 and x.ndim == 4:
            cos, sin = cos[:, None], sin[:, None]  # [b, 1, L, d]: broadcast over heads
        return apply_rope(x, cos, sin, layout=self.layout)

    def extra_repr(self) -> str:
        return f"head_dim={self.head_dim}, base={self.base:g}, layout={self.layout!r}, cache_len={self.cache_len}"
