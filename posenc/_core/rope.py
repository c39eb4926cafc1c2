"""RoPE's cores, trusting their inputs: positions, angle tables, the two layouts' pairs and the rotation.

The public functions of :mod:`posenc.encodings.rope` validate and call these; so do the textbook
forms (:mod:`posenc.encodings.rope_forms`), linear attention and the RoPE position method.
Layouts: ``"half"`` pairs dimension ``i`` with ``i + d/2`` (Hugging Face, GPT-NeoX), ``"interleaved"``
pairs ``2i`` with ``2i + 1`` (RoFormer, Meta LLaMA, GPT-J).
"""

from __future__ import annotations

import torch

from .validate import check_int, check_size, check_tensor

#: Bytes per ``[L, d]`` entry while a table is built: float64 angle, cos and sin. The one definition;
#: every size check of a RoPE table uses it.
TABLE_BYTES = 24

#: Input dtypes rotated in float32 and cast back (Meta's ``apply_rotary_emb``, torchtune's
#: ``RotaryPositionalEmbeddings``): one rounding to the input dtype instead of one per operation.
LOW_PRECISION = (torch.float16, torch.bfloat16)


def positions_tensor(
    positions: int | torch.Tensor, width: int, item_bytes: int, width_arg: tuple[str, int] | None = None
) -> torch.Tensor:
    """Validated positions: an int ``L`` becomes ``arange(L)``; a tensor must be 1-D integer.

    Refuses, before allocating, positions whose ``[L, width]`` result of ``item_bytes`` per entry
    would exceed the memory limit. ``width_arg`` (name, value) is the argument that sets ``width``:
    when one row alone is too large, the message blames it rather than the positions.
    """
    if width_arg is not None:
        check_size(width_arg[0], width_arg[1], (1, width), item_bytes=item_bytes)
    if isinstance(positions, torch.Tensor):
        check_tensor("positions", positions, ndim=1, floating=False)
        check_size("positions", lambda: f"<{len(positions)} positions>", (len(positions), width), item_bytes=item_bytes)
        return positions
    n = check_int("positions", positions, min_value=0)
    check_size("positions", n, (n, width), item_bytes=item_bytes)
    return torch.arange(n)


def check_inv_freq(inv_freq: torch.Tensor, head_dim: int, width_name: str = "head_dim") -> torch.Tensor:
    """``inv_freq`` must be a finite floating ``[head_dim // 2]`` tensor (a meta tensor has no values to check)."""
    check_tensor("inv_freq", inv_freq, ndim=1, floating=True, finite=not inv_freq.is_meta)
    if inv_freq.shape != (head_dim // 2,):
        raise ValueError(f"inv_freq must have shape [{head_dim // 2}] ({width_name} // 2), got {tuple(inv_freq.shape)}")
    return inv_freq


def expand(angles: torch.Tensor, layout: str) -> torch.Tensor:
    if layout == "half":
        return torch.cat((angles, angles), dim=-1)  # [..., d]: (a0..a_{d/2-1}, a0..a_{d/2-1})
    return angles.repeat_interleave(2, dim=-1)  # [..., d]: (a0, a0, a1, a1, ...)


def position_angles(pos: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """``[L]`` integer positions x ``[d/2]`` frequencies -> float64 ``[L, d/2]`` angles."""
    return pos.to(torch.float64)[:, None] * inv_freq.to(torch.float64)[None, :]


def cos_sin(
    pos: torch.Tensor, inv_freq: torch.Tensor, layout: str, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor]:
    """Core of :func:`rope_cos_sin`: ``[L, d]`` tables, computed in float64 and cast to ``dtype``."""
    angles = expand(position_angles(pos, inv_freq), layout)  # [L, d] float64
    return angles.cos().to(dtype), angles.sin().to(dtype)


def cache_tables(
    inv_freq: torch.Tensor, n: int, layout: str, attention_scaling: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """float32 ``[n, d]`` cos and sin (times ``attention_scaling``) for positions ``0 .. n - 1``, built on
    ``inv_freq``'s device: no copy to or from the host, so nothing waits on the device.

    The angles and their cos/sin are computed in float64 and rounded once to float32 (on the CPU the
    same operations, and so the same bits, as :func:`cos_sin`). A device without float64 (Apple's
    MPS) computes them in float32: the angle ``m * theta_i`` is then off by up to about ``m * 2**-24``
    rad (6e-3 rad at position 1e5) instead of below one float32 rounding of the table. On the meta
    device only the shapes are made.
    """
    device = inv_freq.device
    dtype = torch.float32 if device.type == "mps" else torch.float64
    pos = torch.arange(n, device=device, dtype=torch.int64)
    angles = expand(pos.to(dtype)[:, None] * inv_freq.to(dtype)[None, :], layout)  # [n, d]
    cos, sin = angles.cos(), angles.sin()
    return (cos * attention_scaling).to(torch.float32), (sin * attention_scaling).to(torch.float32)


def pairs(t: torch.Tensor, layout: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The two members of every rotation pair, as strided views ``[..., d/2]``."""
    if layout == "half":
        half = t.shape[-1] // 2
        return t[..., :half], t[..., half:]
    return t[..., 0::2], t[..., 1::2]


def check_table_shape(x: torch.Tensor, shape: torch.Size, name: str, *, broadcast: bool = False) -> None:
    """Tables for ``x [..., L, d]`` must have one row per position of ``x`` and broadcast over its
    leading dimensions without changing its shape.

    ``broadcast=True`` also lets a table of one row (``[1, d]`` or ``[d]``) put every row of ``x`` at
    that one position (torch's broadcasting rule, asked for explicitly: a table of the wrong length
    is otherwise a mistake). A single vector ``x [d]`` may meet tables ``[d]`` or ``[L, d]``: it is then
    rotated to each of the ``L`` positions (result ``[L, d]``).
    """
    if x.ndim == 1:
        if len(shape) > 2:
            raise ValueError(
                f"{name} must be [d] or [L, d] for a single vector x of shape {tuple(x.shape)}, "
                f"got shape {tuple(shape)}"
            )
        return
    rows = shape[-2] if len(shape) >= 2 else 1
    if rows != x.shape[-2] and not broadcast:
        raise ValueError(
            f"{name} has {rows} position(s) but x has L={x.shape[-2]} (x of shape {tuple(x.shape)}, "
            f"{name} of shape {tuple(shape)}): pass one table row per position, or broadcast=True "
            f"to put every row of x at the table's one position"
        )
    try:
        ok = torch.broadcast_shapes(x.shape, shape) == x.shape
    except RuntimeError:
        ok = False
    if not ok:
        raise ValueError(f"{name} of shape {tuple(shape)} must broadcast to x's shape {tuple(x.shape)}")


def apply_partial(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """Rotate the first ``r = cos.shape[-1]`` dimensions of ``x`` and pass the rest through (as HF's
    GPT-NeoX, Phi and GPT-J do); all of them when ``r = d``."""
    r = cos.shape[-1]
    if r == x.shape[-1]:
        return apply(x, cos, sin, layout)
    rotated = apply(x[..., :r], cos, sin, layout)  # [..., L, r]
    passed = x[..., r:].expand(*rotated.shape[:-1], x.shape[-1] - r)  # [..., L, d - r], unchanged
    return torch.cat((rotated, passed), dim=-1)


def rotate_reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """The readable form: ``(x0 c - x1 s, x0 s + x1 c)`` per pair. Differentiable; used with autograd."""
    c, _ = pairs(cos, layout)  # [..., L, d/2]; both members of a pair share the angle
    s, _ = pairs(sin, layout)
    x0, x1 = pairs(x, layout)
    y0 = x0 * c - x1 * s
    y1 = x0 * s + x1 * c
    if layout == "half":
        return torch.cat((y0, y1), dim=-1)
    return torch.stack((y0, y1), dim=-1).flatten(-2)


def complex_viewable(x: torch.Tensor) -> bool:
    """Whether ``x``'s pairs can be viewed as complex numbers without a copy."""
    return (
        x.dtype in (torch.float32, torch.float64)
        and x.numel() > 0
        and x.stride(-1) == 1
        and x.storage_offset() % 2 == 0
        and all(s % 2 == 0 for s in x.stride()[:-1])
    )


#: Bytes of ``x`` rotated per block in the half layout's eager path. With the block's output and
#: its table rows a block touches about 3.5 times this (900 KiB for float32 tables), meant to stay
#: in a core's L2 cache (1 MiB or more on most server cores of 2024) between the three passes.
BLOCK_BYTES = 1 << 18


def apply(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """Core of :func:`apply_rope`, trusting its inputs; the fast paths of :func:`rotate_reference`.

    float16 and bfloat16 inputs are rotated in float32 (tables cast to float32) and the result cast
    back to ``x``'s dtype, as Meta's and torchtune's code do: one rounding, so the result is the
    correctly rounded rotation up to float32 noise. float32 and float64 inputs are computed in their
    own dtype with the tables cast to it.

    Without autograd, the interleaved layout (float32/64, pairs adjacent in memory) is one complex
    multiplication. The half layout is ``x * cos`` over the full width, then the ``-x1 sin`` and
    ``x0 sin`` terms added in place into the two halves (three passes, no ``rotate_half`` copy); a
    contiguous ``x`` with one ``[L, d]`` table is done in blocks of :data:`BLOCK_BYTES`, so the
    three passes stay in cache (meant to; the blocks change which entries each kernel call sees, not the
    operations on an entry). The tests compare the fast paths with the reference form. Inside a
    compiled graph the reference form is used: the compiler fuses it into one kernel, and ``out=``
    writes into views would break the graph.
    """
    if x.dtype in LOW_PRECISION:
        return apply(x.float(), cos, sin, layout).to(x.dtype)
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    grad = torch.is_grad_enabled() and (x.requires_grad or cos.requires_grad or sin.requires_grad)
    if torch.compiler.is_compiling() or x.numel() == 0 or grad:
        return rotate_reference(x, cos, sin, layout)
    if layout == "half":
        return _apply_half(x, cos, sin)
    c, _ = pairs(cos, layout)
    s, _ = pairs(sin, layout)
    if complex_viewable(x):
        # pairs are adjacent: one complex multiply by e^{i a} (Meta's form) runs at copy speed
        rot = torch.complex(c.contiguous(), s.contiguous())  # [..., L, d/2]
        x_c = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))  # [..., L, d/2]
        return torch.view_as_real(x_c * rot).flatten(-2)  # [..., L, d]
    x0, x1 = pairs(x, layout)
    out = torch.empty(torch.broadcast_shapes(x.shape, cos.shape), dtype=x.dtype, device=x.device)
    y0, y1 = pairs(out, layout)  # views into out
    torch.mul(x0, c, out=y0)
    y0.addcmul_(x1, s, value=-1)
    torch.mul(x1, c, out=y1)
    y1.addcmul_(x0, s)
    return out


def _half_terms(x: torch.Tensor, cos: torch.Tensor, s: torch.Tensor, out: torch.Tensor) -> None:
    """``out = x * cos``, then ``out0 -= x1 * s`` and ``out1 += x0 * s`` (half layout), in place."""
    h = x.shape[-1] // 2
    torch.mul(x, cos, out=out)
    out[..., :h].addcmul_(x[..., h:], s, value=-1)
    out[..., h:].addcmul_(x[..., :h], s)


def _apply_half(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """The half layout without autograd; ``cos`` holds each angle twice (``cat([c, c])``)."""
    h = x.shape[-1] // 2
    s = sin[..., :h]
    out = torch.empty(torch.broadcast_shapes(x.shape, cos.shape), dtype=x.dtype, device=x.device)
    if out.shape != x.shape or cos.ndim != 2 or x.ndim < 2 or cos.shape[0] != x.shape[-2] or not x.is_contiguous():
        _half_terms(x, cos, s, out)  # broadcasting or strided x: one block
        return out
    length, d = x.shape[-2:]
    rows = max(1, BLOCK_BYTES // (d * x.element_size()))
    flat_x, flat_out = x.view(-1, length, d), out.view(-1, length, d)
    for j in range(flat_x.shape[0]):
        for i in range(0, length, rows):
            _half_terms(flat_x[j, i : i + rows], cos[i : i + rows], s[i : i + rows], flat_out[j, i : i + rows])
    return out
