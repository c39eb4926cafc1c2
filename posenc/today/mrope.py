"""Multimodal RoPE (M-RoPE): 3-D positions (temporal, height, width) whose rotation pairs are split
between the axes, as Qwen2-VL, Qwen2.5-VL (consecutive runs) and Qwen3-VL (interleaved) build them.

Shape legend: ``L`` positions, ``b`` batch, ``d`` head dimension ``head_dim`` (even), ``d/2``
rotation pairs.

References:
    Wang et al., "Qwen2-VL: Enhancing Vision-Language Model's Perception of the World at Any Resolution",
    2024 (M-RoPE); Hugging Face ``Qwen2VLRotaryEmbedding`` and ``Qwen2VLModel.get_rope_index``.
    Qwen Team, Qwen3-VL, 2025 (interleaved M-RoPE); Hugging Face ``Qwen3VLTextRotaryEmbedding``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .._core.freq import DEFAULT_BASE, frequency_ladder
from .._core.rope import TABLE_BYTES
from .._core.validate import check_dtype, check_even, check_float, check_int, check_size, check_tensor

__all__ = ["mrope_cos_sin", "mrope_position_ids", "mrope_axes"]


def _check_section(mrope_section: Sequence[int], head_dim: int) -> tuple[int, int, int]:
    if isinstance(mrope_section, (str, bytes)) or not isinstance(mrope_section, Sequence):
        raise TypeError(f"mrope_section must be a sequence of 3 ints, got {type(mrope_section).__name__}")
    if len(mrope_section) != 3:
        raise ValueError(f"mrope_section must have 3 entries (temporal, height, width), got {len(mrope_section)}")
    t, h, w = (check_int(f"mrope_section[{i}]", s, min_value=0) for i, s in enumerate(mrope_section))
    section = (t, h, w)
    if sum(section) != head_dim // 2:
        raise ValueError(
            f"mrope_section must sum to head_dim // 2 = {head_dim // 2} (one axis per rotation pair), "
            f"got {list(section)} (sum {sum(section)})"
        )
    return section


def mrope_cos_sin(
    position_ids: torch.Tensor,
    head_dim: int,
    mrope_section: Sequence[int],
    base: float = DEFAULT_BASE,
    *,
    interleaved: bool = False,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Multimodal RoPE tables (M-RoPE), for :func:`~posenc.encodings.rope.apply_rope` with ``layout="half"``.

    Every token has three positions (temporal, height, width). Each of the ``d/2`` rotation pairs,
    with the usual frequencies ``base ** (-2i/d)``, turns with one of the three, chosen by
    ``mrope_section = (s_t, s_h, s_w)``:

    - ``interleaved=False`` (Qwen2-VL, Qwen2.5-VL): three consecutive runs; pair ``i`` turns with the
      temporal position if ``i < s_t``, with the height position if ``s_t <= i < s_t + s_h``, else
      with the width position. Time gets the fastest pairs, width the slowest.
    - ``interleaved=True`` (Qwen3-VL, ``mrope_interleaved``): pair ``i`` turns with the height
      position if ``i % 3 == 1 and i < 3 s_h``, with the width position if ``i % 3 == 2 and
      i < 3 s_w``, else with the temporal position; so every axis gets pairs from the fast end to
      the slow end of the ladder (Qwen3-VL: ``[24, 20, 20]``, pairs 60-63 temporal).

    For a text token the three positions are equal, so M-RoPE is then plain 1-D RoPE either way.

    Equal to what transformers' ``Qwen2VLRotaryEmbedding`` (consecutive) and
    ``Qwen3VLTextRotaryEmbedding`` (interleaved) return, up to float32 rounding of the angles:
    angles here are formed in float64.

    Args:
        position_ids (torch.Tensor): integer ``[3, L]`` (one sequence) or ``[3, b, L]``, the axes in
            the order (temporal, height, width), as ``Qwen2VLModel.get_rope_index`` (or
            :func:`mrope_position_ids`) builds them.
        head_dim (int): even head dimension ``d``.
        mrope_section (sequence of 3 ints): pairs per axis, summing to ``d/2`` (Qwen2-VL: ``[16, 24, 24]``
            for ``d = 128``).
        base (float): wavelength base, > 1 (Qwen2-VL: 1e6; Qwen3-VL: 5e6).
        interleaved (bool): Qwen3-VL's interleaved assignment instead of consecutive runs.
        dtype (torch.dtype): floating dtype of the tables.

    Returns:
        tuple[torch.Tensor, torch.Tensor]: ``(cos, sin)``, each ``[L, d]`` or ``[b, L, d]``.
    """
    check_tensor("position_ids", position_ids, floating=False)
    if position_ids.ndim not in (2, 3) or position_ids.shape[0] != 3:
        raise ValueError(
            f"position_ids must be [3, L] or [3, b, L] (temporal, height, width), got shape {tuple(position_ids.shape)}"
        )
    head_dim = check_even("head_dim", head_dim)
    section = _check_section(mrope_section, head_dim)
    base = check_float("base", base, gt=1.0)
    if not isinstance(interleaved, bool):
        raise TypeError(
            f"interleaved must be a bool (True: Qwen3-VL's interleaved axes), "
            f"got {type(interleaved).__name__} ({interleaved!r})"
        )
    check_dtype("dtype", dtype)
    check_size(
        "position_ids",
        f"<shape {tuple(position_ids.shape)}>",
        (3, *position_ids.shape[1:], head_dim),
        item_bytes=TABLE_BYTES,
    )
    inv_freq = frequency_ladder(head_dim, base).to(torch.float64)  # [d/2]
    angles = position_ids.to(torch.float64)[..., None] * inv_freq  # [3, (b,) L, d/2]
    axis = mrope_axes(head_dim, section, interleaved=interleaved)  # [d/2]: axis of each pair
    index = axis.view(1, *([1] * (angles.ndim - 2)), -1).expand(1, *angles.shape[1:])
    merged = angles.gather(0, index.to(angles.device))[0]  # [(b,) L, d/2]
    merged = torch.cat((merged, merged), dim=-1)  # [(b,) L, d], half layout
    return merged.cos().to(dtype), merged.sin().to(dtype)


def mrope_axes(head_dim: int, mrope_section: Sequence[int], *, interleaved: bool = False) -> torch.Tensor:
    """The axis (0 temporal, 1 height, 2 width) each of the ``d/2`` pairs turns with, int64 ``[d/2]``.

    The assignment :func:`mrope_cos_sin` uses: consecutive runs (Qwen2-VL) or, with
    ``interleaved=True``, Qwen3-VL's ``i % 3`` pattern (height and width up to ``3 s_h`` and ``3 s_w``).
    """
    head_dim = check_even("head_dim", head_dim)
    section = _check_section(mrope_section, head_dim)
    if not interleaved:
        return torch.repeat_interleave(torch.arange(3), torch.tensor(section))
    i = torch.arange(head_dim // 2)
    axis = torch.zeros(head_dim // 2, dtype=torch.int64)
    axis[(i % 3 == 1) & (i < 3 * section[1])] = 1
    axis[(i % 3 == 2) & (i < 3 * section[2])] = 2
    return axis


def mrope_position_ids(segments: Sequence[int | tuple[int, int, int]]) -> torch.Tensor:
    """3-D positions of a sequence of text runs and vision grids, as Qwen2-VL assigns them.

    A text run of ``n`` tokens continues the count on all three axes: ``p, p+1, ..., p+n-1`` each.
    A vision grid of ``(t, h, w)`` tokens (after the 2x2 patch merge) starts at ``p`` on every axis:
    token ``(k, y, x)`` gets temporal ``p + k``, height ``p + y``, width ``p + x``, flattened in
    ``(t, h, w)`` order. The next segment starts at one past the largest position used so far,
    ``p + max(t, h, w)`` after a grid (Qwen2-VL paper; for images, ``t = 1``, this equals
    transformers' ``get_rope_index``, which advances by ``max(h, w)``).

    Args:
        segments: ints (text runs of that many tokens) and 3-tuples ``(t, h, w)`` (vision grids).

    Returns:
        torch.Tensor: int64 ``[3, L]``, rows (temporal, height, width).
    """
    if isinstance(segments, (str, bytes)) or not isinstance(segments, Sequence):
        raise TypeError(f"segments must be a sequence of ints and (t, h, w) tuples, got {type(segments).__name__}")
    parts, start, total = [], 0, 0
    for i, seg in enumerate(segments):
        if isinstance(seg, (tuple, list)):
            if len(seg) != 3:
                raise ValueError(f"segments[{i}] must be a (t, h, w) grid of 3 ints, got {seg!r}")
            t, h, w = (check_int(f"segments[{i}][{j}]", v, min_value=1) for j, v in enumerate(seg))
            total += t * h * w
            check_size("segments", f"<{total} tokens>", (3, total), item_bytes=8)
            grid = torch.stack(torch.meshgrid(torch.arange(t), torch.arange(h), torch.arange(w), indexing="ij"))
            parts.append(grid.reshape(3, -1) + start)  # [3, t*h*w]
            start += max(t, h, w)
        else:
            n = check_int(f"segments[{i}]", seg, min_value=0)
            total += n
            check_size("segments", f"<{total} tokens>", (3, total), item_bytes=8)
            parts.append((torch.arange(n) + start).expand(3, n))  # [3, n]
            start += n
    return torch.cat(parts, dim=1) if parts else torch.zeros(3, 0, dtype=torch.int64)
