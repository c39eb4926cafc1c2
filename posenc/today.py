"""RoPE as today's models use it: M-RoPE, Llama 4's NoPE temperature, xPos, MLA, sinks, model configs.

The pieces a 2024-2026 model config names beyond plain RoPE and its 2023 scalings
(:mod:`posenc.scaling`, which also holds ``"longrope"``; partial rotary is :func:`posenc.rope.apply_rope`
with narrower tables):

- :func:`mrope_cos_sin`, :func:`mrope_position_ids`: Qwen2-VL's multimodal RoPE, 3-D positions
  (temporal, height, width) whose rotation pairs are split between the axes by ``mrope_section``
  (consecutive runs, Qwen2-VL / Qwen2.5-VL; interleaved, Qwen3-VL).
- :func:`llama4_attention_temperature`, :func:`llama4_rope_layers`, :func:`chunked_causal_mask`:
  Llama 4's interleaved RoPE/NoPE layers (iRoPE), the query temperature of its NoPE layers and the
  chunked attention of its RoPE layers.
- :func:`xpos_scale`: the exponential scale xPos multiplies rotated queries and keys with.
- :func:`kv_cache_bytes_per_token`: the KV-cache cost of multi-head, grouped-query and multi-head
  latent attention (DeepSeek-V2's MLA with its decoupled RoPE key).
- :func:`streaming_cache_positions`: which tokens a StreamingLLM cache (attention sinks plus a
  rolling window) keeps, and the positions they get inside the cache.
- :func:`sink_attention`: gpt-oss's attention with a learned sink logit per head (a softmax column
  without a value), optionally over a sliding window.
- :data:`MODEL_ROPE_CONFIGS` and :func:`scaled_wavelengths`: published RoPE settings of well-known
  models, and how each one's scaling reshapes the per-pair wavelengths against its trained length.

Shape legend: ``L`` positions, ``b`` batch, ``d`` head dimension ``head_dim`` (even), ``d/2``
rotation pairs, ``r`` rotated width (``d`` or the partial rotary dim).

References:
    Wang et al., "Qwen2-VL: Enhancing Vision-Language Model's Perception of the World at Any Resolution",
    2024 (M-RoPE); Hugging Face ``Qwen2VLRotaryEmbedding`` and ``Qwen2VLModel.get_rope_index``.
    Meta, "The Llama 4 herd", 2025 (iRoPE); Hugging Face ``Llama4TextAttention``.
    Sun et al., "A Length-Extrapolatable Transformer", 2022 (xPos); torchscale ``XPOS``.
    DeepSeek-AI, "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model",
    2024 (MLA, decoupled RoPE).
    Xiao et al., "Efficient Streaming Language Models with Attention Sinks", 2023 (StreamingLLM).
    Qwen Team, Qwen3-VL, 2025 (interleaved M-RoPE); Hugging Face ``Qwen3VLTextRotaryEmbedding``.
    OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card", 2025 (learned attention sinks, YaRN without
    truncation, 128-token sliding-window layers); Hugging Face ``gpt_oss`` ``eager_attention_forward``.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch

from ._core.validate import check_choice, check_dtype, check_even, check_float, check_int, check_size, check_tensor
from ._core.freq import DEFAULT_BASE, frequency_ladder
from .scaling import DynamicScaling, LongRopeScaling, RopeScaling

__all__ = [
    "mrope_cos_sin",
    "mrope_position_ids",
    "mrope_axes",
    "llama4_attention_temperature",
    "llama4_rope_layers",
    "chunked_causal_mask",
    "xpos_scale",
    "kv_cache_bytes_per_token",
    "streaming_cache_positions",
    "sink_attention",
    "MODEL_ROPE_CONFIGS",
    "SCALING_EXAMPLES",
    "scaled_wavelengths",
]

_TABLE_BYTES = 24  # bytes per table entry while built: float64 angle, cos and sin


# --------------------------------------------------------------------------- M-RoPE (Qwen2-VL)

def _check_section(mrope_section: Sequence[int], head_dim: int) -> tuple[int, int, int]:
    if isinstance(mrope_section, (str, bytes)) or not isinstance(mrope_section, Sequence):
        raise TypeError(f"mrope_section must be a sequence of 3 ints, got {type(mrope_section).__name__}")
    if len(mrope_section) != 3:
        raise ValueError(f"mrope_section must have 3 entries (temporal, height, width), got {len(mrope_section)}")
    section = tuple(check_int(f"mrope_section[{i}]", s, min_value=0) for i, s in enumerate(mrope_section))
    if sum(section) != head_dim // 2:
        raise ValueError(f"mrope_section must sum to head_dim // 2 = {head_dim // 2} (one axis per rotation pair), "
                         f"got {list(section)} (sum {sum(section)})")
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
    """Multimodal RoPE tables (M-RoPE), for :func:`~posenc.rope.apply_rope` with ``layout="half"``.

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
        raise ValueError(f"position_ids must be [3, L] or [3, b, L] (temporal, height, width), "
                         f"got shape {tuple(position_ids.shape)}")
    head_dim = check_even("head_dim", head_dim)
    section = _check_section(mrope_section, head_dim)
    base = check_float("base", base, gt=1.0)
    if not isinstance(interleaved, bool):
        raise TypeError(f"interleaved must be a bool (True: Qwen3-VL's interleaved axes), "
                        f"got {type(interleaved).__name__} ({interleaved!r})")
    check_dtype("dtype", dtype)
    check_size("position_ids", f"<shape {tuple(position_ids.shape)}>", (3, *position_ids.shape[1:], head_dim),
               item_bytes=_TABLE_BYTES)
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


# --------------------------------------------------------------------------- Llama 4 (iRoPE)

def llama4_attention_temperature(positions: torch.Tensor, *, floor_scale: int = 8192,
                                 attn_scale: float = 0.1) -> torch.Tensor:
    """Query scale of Llama 4's NoPE layers: ``log(floor((pos + 1) / floor_scale) + 1) * attn_scale + 1``.

    Llama 4 multiplies the queries of its NoPE layers (every fourth layer) by this factor
    (``attn_temperature_tuning``; Hugging Face ``Llama4TextAttention``): 1 for the first
    ``floor_scale - 1`` positions, then growing like ``attn_scale * log(pos / floor_scale)``. A
    logit grows in proportion, which sharpens the softmax over the ever longer set of keys a NoPE
    layer attends to (log-n scaling, in steps of ``floor_scale`` tokens).

    Args:
        positions (torch.Tensor): integer ``[L]`` >= 0, the query positions (Hugging Face: the cache
            slots ``arange(L) + number of cached tokens``).
        floor_scale (int): step length in tokens, >= 1 (Llama 4: 8192).
        attn_scale (float): strength, >= 0 (Llama 4: 0.1).

    Returns:
        torch.Tensor: float32 ``[L]``, >= 1.
    """
    check_tensor("positions", positions, ndim=1, floating=False)
    floor_scale = check_int("floor_scale", floor_scale, min_value=1)
    attn_scale = check_float("attn_scale", attn_scale, ge=0.0)
    if positions.numel() and int(positions.min()) < 0:
        raise ValueError(f"positions must be >= 0, got {int(positions.min())}")
    steps = torch.div(positions.to(torch.int64) + 1, floor_scale, rounding_mode="floor")  # exact integer floor
    return (torch.log1p(steps.to(torch.float64)) * attn_scale + 1.0).to(torch.float32)


def llama4_rope_layers(n_layers: int, *, interval: int = 4) -> list[bool]:
    """Which layers rotate (True) and which are NoPE (False): every ``interval``-th layer is NoPE.

    Hugging Face's default ``no_rope_layers`` (whose 1 means "uses RoPE"): layer ``i`` (0-based)
    uses RoPE unless ``(i + 1) % interval == 0``. In Llama 4 the RoPE layers also use chunked
    attention (:func:`chunked_causal_mask`) and the NoPE layers attend to the whole context.
    """
    n_layers = check_int("n_layers", n_layers, min_value=0)
    interval = check_int("interval", interval, min_value=1)
    check_size("n_layers", n_layers, (n_layers,), item_bytes=1)
    return [(i + 1) % interval != 0 for i in range(n_layers)]


def chunked_causal_mask(seq_len: int, chunk_size: int) -> torch.Tensor:
    """Boolean ``[L, L]`` mask of chunked causal attention (Llama 4's RoPE layers).

    Query ``i`` may attend key ``j`` iff ``j <= i`` and both lie in the same chunk of ``chunk_size``
    tokens (``j // chunk_size == i // chunk_size``), as transformers' ``chunked_causal_mask_function``.
    """
    seq_len = check_int("seq_len", seq_len, min_value=0)
    chunk_size = check_int("chunk_size", chunk_size, min_value=1)
    check_size("seq_len", seq_len, (seq_len, seq_len), item_bytes=1)
    i = torch.arange(seq_len)
    return (i[None, :] <= i[:, None]) & (i[None, :] // chunk_size == i[:, None] // chunk_size)


# --------------------------------------------------------------------------- xPos

def xpos_scale(positions: int | torch.Tensor, head_dim: int, *, gamma: float = 0.4,
               scale_base: float = 512) -> tuple[torch.Tensor, torch.Tensor]:
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


# --------------------------------------------------------------------------- MLA (DeepSeek-V2/V3)

_CACHE_KINDS = ("mha", "gqa", "mla")


def kv_cache_bytes_per_token(kind: str, *, n_layers: int, head_dim: int = 128, n_kv_heads: int = 1,
                             kv_lora_rank: int = 512, qk_rope_head_dim: int = 64,
                             bytes_per_value: int = 2) -> int:
    """KV-cache bytes one token costs across all layers.

    - ``"mha"``/``"gqa"``: a key and a value of ``head_dim`` for each of ``n_kv_heads`` heads:
      ``2 * n_kv_heads * head_dim`` values per layer (MHA: ``n_kv_heads = n_heads``).
    - ``"mla"`` (DeepSeek-V2): the compressed latent ``c_kv`` of ``kv_lora_rank`` values, from which
      keys and values of all heads are re-projected, plus the decoupled rotary key of
      ``qk_rope_head_dim`` values shared by all heads: ``kv_lora_rank + qk_rope_head_dim`` per layer.
      The rotary part has to be cached beside the latent because a position-dependent rotation
      between the key up-projection and the query stops that projection from being absorbed.

    Returns:
        int: bytes per token, ``n_layers * values per layer * bytes_per_value``.
    """
    kind = check_choice("kind", kind, _CACHE_KINDS)
    n_layers = check_int("n_layers", n_layers, min_value=1)
    bytes_per_value = check_int("bytes_per_value", bytes_per_value, min_value=1)
    if kind == "mla":
        per_layer = (check_int("kv_lora_rank", kv_lora_rank, min_value=1)
                     + check_int("qk_rope_head_dim", qk_rope_head_dim, min_value=0))
    else:
        per_layer = 2 * check_int("n_kv_heads", n_kv_heads, min_value=1) * check_int("head_dim", head_dim,
                                                                                      min_value=1)
    return n_layers * per_layer * bytes_per_value


# --------------------------------------------------------------------------- StreamingLLM

def streaming_cache_positions(n_tokens: int, *, n_sink: int = 4,
                              window: int = 1020) -> tuple[torch.Tensor, torch.Tensor]:
    """The tokens a StreamingLLM cache keeps and the positions they get inside it.

    After ``n_tokens`` tokens the cache holds the first ``n_sink`` (the attention sinks) and the last
    ``window`` tokens (all of them while ``n_tokens <= n_sink + window``). Positions are assigned by
    slot in the cache, ``0 .. n_kept - 1``, not by place in the text (Xiao et al. 2023, section 3.2):
    the next token's query then sits at position ``n_kept`` and no distance exceeds the cache size,
    however long the stream. Keys must therefore be cached before rotation (and rotated by their
    current slot at each step) or re-rotated when they move.

    Returns:
        tuple[torch.Tensor, torch.Tensor]: int64 ``[n_kept]`` token indices (0-based, in the text) and
        int64 ``[n_kept]`` positions in the cache.
    """
    n_tokens = check_int("n_tokens", n_tokens, min_value=0)
    n_sink = check_int("n_sink", n_sink, min_value=0)
    window = check_int("window", window, min_value=1)
    if n_tokens <= n_sink + window:
        kept = torch.arange(n_tokens)
    else:
        kept = torch.cat((torch.arange(n_sink), torch.arange(n_tokens - window, n_tokens)))
    return kept, torch.arange(len(kept))


# --------------------------------------------------------------------------- learned sinks (gpt-oss)

def sink_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sinks: torch.Tensor, *, causal: bool = True,
                   sliding_window: int | None = None, scale: float | None = None) -> torch.Tensor:
    """Softmax attention with a learned sink logit per head (gpt-oss).

    Each head ``h`` has one learned number ``sinks[h]``. It joins every row of logits as an extra
    column, ``softmax([q.k_1 * scale, ..., q.k_T * scale, sinks[h]])``, and its probability is then
    dropped: it takes mass without bringing a value, so a row of weights sums to
    ``1 - p_sink < 1`` and a query that finds nothing relevant can attend to (almost) nothing.
    StreamingLLM's sinks are *tokens* whose keys the model learned to attend to; here the sink is a
    parameter, with no position and no key (OpenAI 2025; Hugging Face ``gpt_oss``
    ``eager_attention_forward``, to which this is equal).

    Queries sit at the last ``L`` of the ``T`` key positions (query ``i`` at ``i + T - L``).
    ``causal`` masks the keys after the query; ``sliding_window=W`` keeps only the ``W`` most recent
    keys, the query's own included (``query_pos - key_pos < W``; gpt-oss: ``W = 128`` in every other
    layer).

    Args:
        q (torch.Tensor): float ``[b, h, L, d]``.
        k (torch.Tensor): float ``[b, h, T, d]``, ``T >= L`` (repeat grouped key/value heads first).
        v (torch.Tensor): float ``[b, h, T, d_v]``.
        sinks (torch.Tensor): float ``[h]``, one logit per head.
        causal (bool): mask keys after the query.
        sliding_window (int, optional): >= 1, keep keys with ``query_pos - key_pos < sliding_window``.
        scale (float, optional): > 0, logit scale; default ``d ** -0.5``.

    Returns:
        torch.Tensor: ``[b, h, L, d_v]``, in ``v``'s dtype.
    """
    for name, x in (("q", q), ("k", k), ("v", v)):
        check_tensor(name, x, ndim=4, floating=True)
    check_tensor("sinks", sinks, ndim=1, floating=True)
    b, h, n_q, d = q.shape
    if k.shape[:2] != (b, h) or k.shape[3] != d:
        raise ValueError(f"k must be [b, h, T, d] = [{b}, {h}, T, {d}] like q {tuple(q.shape)}, got {tuple(k.shape)}")
    n_k = k.shape[2]
    if v.shape[:3] != k.shape[:3]:
        raise ValueError(f"v must be [b, h, T, d_v] with [b, h, T] = {list(k.shape[:3])} as k, got {tuple(v.shape)}")
    if n_k < n_q:
        raise ValueError(f"k must have at least as many positions as q (queries sit at the last L of the T "
                         f"key positions), got T = {n_k} < L = {n_q}")
    if sinks.shape != (h,):
        raise ValueError(f"sinks must have one logit per head, shape ({h},), got {tuple(sinks.shape)}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__} ({causal!r})")
    if sliding_window is not None:
        sliding_window = check_int("sliding_window", sliding_window, min_value=1)
    scale = d**-0.5 if scale is None else check_float("scale", scale, gt=0.0)
    check_size("q", f"<shape {tuple(q.shape)}>", (b, h, n_q, n_k + 1), item_bytes=3 * q.element_size())
    logits = torch.matmul(q, k.transpose(-1, -2)) * scale  # [b, h, L, T]
    query_pos = torch.arange(n_q, device=q.device)[:, None] + (n_k - n_q)  # [L, 1]
    offset = query_pos - torch.arange(n_k, device=q.device)[None, :]  # [L, T]: query_pos - key_pos
    allowed = torch.ones_like(offset, dtype=torch.bool)
    if causal:
        allowed &= offset >= 0
    if sliding_window is not None:
        allowed &= offset < sliding_window
    logits = logits.masked_fill(~allowed, float("-inf"))
    sink_column = sinks.to(logits.dtype).view(1, h, 1, 1).expand(b, h, n_q, 1)
    combined = torch.cat((logits, sink_column), dim=-1)  # [b, h, L, T + 1]
    combined = combined - combined.max(dim=-1, keepdim=True).values  # the sink column is finite
    probs = torch.softmax(combined, dim=-1)[..., :-1]  # the sink's share dropped
    return torch.matmul(probs.to(v.dtype), v)


# --------------------------------------------------------------------------- model configs

#: Phi-3's published LongRoPE factor lists (48 pairs, head_dim 96), from the config.json of
#: microsoft/Phi-3-vision-128k-instruct (``rope_scaling``, type ``"su"``, later renamed ``"longrope"``).
_PHI3_SHORT = (
    [1.05] * 3 + [1.1] * 3 + [1.2500000000000002] * 2 + [1.4000000000000004, 1.4500000000000004,
                                                          1.5500000000000005, 1.8500000000000008,
                                                          1.9000000000000008]
    + [2.000000000000001] * 19 + [2.1000000000000005] * 2 + [2.2] + [2.3499999999999996] * 4
    + [2.3999999999999995] * 2 + [2.6499999999999986, 2.6999999999999984, 2.8999999999999977,
                                  2.9499999999999975] + [3.049999999999997] * 3
)
_PHI3_LONG = [
    1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547, 1.2299998998641968,
    1.2299998998641968, 1.2999999523162842, 1.4499999284744263, 1.5999999046325684, 1.6499998569488525,
    1.8999998569488525, 2.859999895095825, 3.68999981880188, 5.419999599456787, 5.489999771118164,
    5.489999771118164, 9.09000015258789, 11.579999923706055, 15.65999984741211, 15.769999504089355,
    15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055, 30.009998321533203,
    32.35000228881836, 32.590003967285156, 35.56000518798828, 39.95000457763672, 53.840003967285156,
    56.20000457763672, 57.95000457763672, 59.29000473022461, 59.77000427246094, 59.920005798339844,
    61.190006256103516, 61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086,
    63.48000717163086, 63.66000747680664, 63.850006103515625, 64.08000946044922, 64.760009765625,
    64.80001068115234, 64.81001281738281, 64.81001281738281,
]

#: Published RoPE settings of well-known models, from each model's config.json on the Hugging Face
#: Hub (or its paper where the config omits a default). Keys per entry: ``model`` (display name),
#: ``method`` (one line), ``head_dim``, ``rotary_dim`` (the rotated width), ``rope_theta``,
#: ``max_position_embeddings``, ``rope_scaling`` (None or Hugging Face's ``rope_parameters`` minus
#: ``rope_theta``), ``extra`` (other position-related fields), ``trained_length`` (the longest
#: sequences the model was trained on as its source states it, None where the source does not say;
#: not the scaling's ``original_max_position_embeddings``) and ``source`` (a references.bib key).
#: ``base_before`` (optional): the base the model was pre-trained with before its base was raised;
#: ``trained_length_before`` (optional): the training length before a later extension (Code Llama's
#: Llama 2 start, Gemma 3's 32K pre-training before its 128K stage). The numbers were copied by hand
#: from the sources; ``tests/test_rope_today.py`` checks that Hugging Face's RoPE initialisation given
#: these numbers agrees with posenc, not that the numbers match the published configs.
#: Rows with a per-layer-type setting (Gemma 3, gpt-oss, SmolLM3, Llama 4) list the RoPE of their
#: global (full-attention) layers; the other layer type is in ``extra``.
MODEL_ROPE_CONFIGS: dict[str, dict] = {
    "gpt-neox-20b": dict(
        model="GPT-NeoX-20B", method="partial rotary (rotary_pct 0.25), half layout",
        head_dim=96, rotary_dim=24, rope_theta=10000.0, max_position_embeddings=2048, rope_scaling=None,
        extra={"rotary_pct": 0.25}, trained_length=2048, source="black2022gptneox"),
    "llama-2-7b": dict(
        model="Llama 2 7B", method="RoPE", head_dim=128, rotary_dim=128, rope_theta=10000.0,
        max_position_embeddings=4096, rope_scaling=None, extra={}, trained_length=4096, source="touvron2023llama2"),
    "code-llama-7b": dict(
        model="Code Llama 7B", method="RoPE, base raised to 1e6 for 16k fine-tuning",
        head_dim=128, rotary_dim=128, rope_theta=1000000.0, max_position_embeddings=16384, rope_scaling=None,
        extra={"trained_from": "Llama 2 (base 10000, 4096 tokens)"}, base_before=10000.0,
        trained_length_before=4096, trained_length=16384, source="roziere2023codellama"),
    "mistral-7b": dict(
        model="Mistral 7B (v0.1)", method="RoPE + sliding-window attention",
        head_dim=128, rotary_dim=128, rope_theta=10000.0, max_position_embeddings=32768, rope_scaling=None,
        extra={"sliding_window": 4096}, trained_length=8192, source="jiang2023mistral"),
    "llama-3-8b": dict(
        model="Llama 3 8B", method="RoPE, base 500000 from pre-training",
        head_dim=128, rotary_dim=128, rope_theta=500000.0, max_position_embeddings=8192, rope_scaling=None,
        extra={}, trained_length=8192, source="dubey2024llama3"),
    "llama-3.1-8b": dict(
        model="Llama 3.1 8B", method="RoPE + llama3 scaling (factor 8)",
        head_dim=128, rotary_dim=128, rope_theta=500000.0, max_position_embeddings=131072,
        rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                      "original_max_position_embeddings": 8192},
        extra={}, trained_length=131072, source="dubey2024llama3"),
    "llama-4-scout": dict(
        model="Llama 4 Scout (17B-16E-Instruct)",
        method="iRoPE: RoPE + chunked attention in 3 of 4 layers, NoPE + temperature in the 4th",
        head_dim=128, rotary_dim=128, rope_theta=500000.0, max_position_embeddings=10485760,
        rope_scaling={"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
                      "original_max_position_embeddings": 8192},
        extra={"no_rope_layer_interval": 4, "attention_chunk_size": 8192, "attn_temperature_tuning": True,
               "floor_scale": 8192, "attn_scale": 0.1, "use_qk_norm": True,
               # the base checkpoint (Llama-4-Scout-17B-16E): the same llama3 scaling, a smaller maximum
               # (its config.json as quoted in AMD-AGI/Primus PR #165; meta-llama/llama-models'
               # llama4/args.py defaults Scout to factor 16, high_freq_factor 1)
               "base_checkpoint_rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                                                "high_freq_factor": 1.0, "original_max_position_embeddings": 8192},
               "base_checkpoint_max_position_embeddings": 262144},
        trained_length=262144, source="meta2025llama4"),
    "qwen2-vl-7b": dict(
        model="Qwen2-VL 7B", method="M-RoPE (temporal, height, width)",
        head_dim=128, rotary_dim=128, rope_theta=1000000.0, max_position_embeddings=32768,
        rope_scaling={"rope_type": "mrope", "mrope_section": [16, 24, 24]}, extra={}, trained_length=None,
        source="wang2024qwen2vl"),
    "qwen2.5-vl-7b": dict(
        model="Qwen2.5-VL 7B", method="M-RoPE, temporal ids aligned to absolute time",
        head_dim=128, rotary_dim=128, rope_theta=1000000.0, max_position_embeddings=128000,
        rope_scaling={"rope_type": "mrope", "mrope_section": [16, 24, 24]}, extra={"tokens_per_second": 2},
        trained_length=None, source="bai2025qwen25vl"),
    "qwen3-vl-8b": dict(
        model="Qwen3-VL 8B (Instruct)", method="interleaved M-RoPE (every axis gets fast and slow pairs)",
        head_dim=128, rotary_dim=128, rope_theta=5000000.0, max_position_embeddings=262144,
        rope_scaling={"rope_type": "mrope", "mrope_section": [24, 20, 20], "mrope_interleaved": True},
        extra={}, trained_length=None, source="qwen2025qwen3vl"),
    "phi-3-128k": dict(
        model="Phi-3 (vision-128k-instruct)", method="LongRoPE (short/long per-pair factors)",
        head_dim=96, rotary_dim=96, rope_theta=10000.0, max_position_embeddings=131072,
        rope_scaling={"rope_type": "longrope", "short_factor": _PHI3_SHORT, "long_factor": _PHI3_LONG,
                      "original_max_position_embeddings": 4096},
        extra={}, trained_length=None, source="abdin2024phi3"),
    "deepseek-v2": dict(
        model="DeepSeek-V2", method="MLA with decoupled RoPE key (64 of 192 q/k dims) + YaRN",
        head_dim=192, rotary_dim=64, rope_theta=10000.0, max_position_embeddings=163840,
        rope_scaling={"rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": 4096,
                      "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 0.707, "mscale_all_dim": 0.707},
        extra={"qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "kv_lora_rank": 512, "v_head_dim": 128,
               "num_attention_heads": 128, "num_hidden_layers": 60},
        trained_length=4096, source="deepseek2024v2"),
    "deepseek-v3": dict(
        model="DeepSeek-V3", method="MLA with decoupled RoPE key (64 of 192 q/k dims) + YaRN",
        head_dim=192, rotary_dim=64, rope_theta=10000.0, max_position_embeddings=163840,
        rope_scaling={"rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": 4096,
                      "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0},
        extra={"qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "kv_lora_rank": 512, "v_head_dim": 128,
               "num_attention_heads": 128, "num_hidden_layers": 61},
        trained_length=4096, source="deepseek2024v3"),
    "gemma-7b": dict(
        model="Gemma 7B", method="RoPE, head_dim 256", head_dim=256, rotary_dim=256, rope_theta=10000.0,
        max_position_embeddings=8192, rope_scaling=None, extra={}, trained_length=8192, source="gemma2024"),
    "gemma-3-27b": dict(
        model="Gemma 3 27B", method="5 local layers (window 1024, base 1e4) per global layer (base 1e6, linear 8)",
        head_dim=128, rotary_dim=128, rope_theta=1000000.0, max_position_embeddings=131072,
        rope_scaling={"rope_type": "linear", "factor": 8.0},
        extra={"rope_local_base_freq": 10000.0, "sliding_window": 1024, "sliding_window_pattern": 6},
        # Gemma 3 report, section 5.3: pre-trained with 32K sequences, then scaled up to 128K tokens at the
        # end of pre-training while rescaling RoPE by 8
        trained_length_before=32768, trained_length=32768, source="gemma2025gemma3"),
    "smollm3-3b": dict(
        model="SmolLM3 3B", method="RoPE in 3 of 4 layers, NoPE in every 4th (no_rope_layer_interval 4)",
        head_dim=128, rotary_dim=128, rope_theta=5000000.0, max_position_embeddings=65536, rope_scaling=None,
        extra={"no_rope_layer_interval": 4}, trained_length=65536, source="hf2025smollm3"),
    "gpt-oss-20b": dict(
        model="gpt-oss-20b", method="YaRN (truncate false) + learned sinks; 128-token window in every other layer",
        head_dim=64, rotary_dim=64, rope_theta=150000.0, max_position_embeddings=131072,
        rope_scaling={"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": False,
                      "original_max_position_embeddings": 4096},
        extra={"sliding_window": 128, "layer_types": "sliding_attention, full_attention alternating",
               "sinks": "one learned logit per head"},
        trained_length=None, source="openai2025gptoss"),
}

#: The scalings of :func:`scaled_wavelengths` by name, on one common setting so they can be compared:
#: base 10000, trained length 4096, extension factor 8 (32768 tokens). ``"longrope"`` is Phi-3's
#: published lists (head_dim 96, trained length 4096, factor 32); ``"raised_base"`` is Code Llama's
#: base 1e6. Each is a row in the form of :data:`MODEL_ROPE_CONFIGS` (the keys it needs), so that
#: models and examples take one path: :meth:`~posenc.scaling.RopeScaling.from_hf` of ``rope_scaling``.
_EXAMPLE = dict(rotary_dim=128, rope_theta=10000.0, max_position_embeddings=32768, trained_length_before=4096)
_EXAMPLE_SCALING = {"factor": 8.0, "original_max_position_embeddings": 4096}
_SCALING_EXAMPLE_CONFIGS: dict[str, dict] = {
    "none": dict(_EXAMPLE, max_position_embeddings=4096, rope_scaling=None),
    "pi": dict(_EXAMPLE, rope_scaling={"rope_type": "linear", "factor": _EXAMPLE_SCALING["factor"]}),
    # dynamic NTK reads the trained length from max_position_embeddings (transformers'
    # _compute_dynamic_ntk_parameters) and the current length at run time: evaluated at 32 768 tokens
    "ntk": dict(_EXAMPLE, max_position_embeddings=4096, target_length=32768,
                rope_scaling={"rope_type": "dynamic", "factor": _EXAMPLE_SCALING["factor"]}),
    "yarn": dict(_EXAMPLE, rope_scaling={"rope_type": "yarn", **_EXAMPLE_SCALING}),
    "longrope": MODEL_ROPE_CONFIGS["phi-3-128k"],
    "llama3": dict(_EXAMPLE, rope_scaling={"rope_type": "llama3", **_EXAMPLE_SCALING}),
    "raised_base": dict(_EXAMPLE, rope_theta=1000000.0, base_before=10000.0, rope_scaling=None),
}
SCALING_EXAMPLES = tuple(_SCALING_EXAMPLE_CONFIGS)


def scaled_wavelengths(model_or_scaling: str, *, head_dim: int | None = None, seq_len: int | None = None) -> dict:
    """Per-pair wavelengths before and after a model's (or a named) RoPE scaling, and its trained length.

    Pair ``i`` turns once every ``2 pi / theta_i`` tokens. A pair whose wavelength exceeds the trained
    length never completed a turn in training; the scalings differ in which wavelengths they stretch
    (PI: all by the factor; NTK / raised base: the long ones most; YaRN and Llama 3: only those
    longer than about the trained length; LongRoPE: each by its own searched factor).

    The row's ``rope_scaling`` becomes one :class:`~posenc.scaling.RopeScaling`
    (:meth:`~posenc.scaling.RopeScaling.from_hf`), whose :meth:`~posenc.scaling.RopeScaling.inv_freq`
    gives the frequencies and attention scaling and whose ``softmax_scale`` (YaRN) DeepSeek's factor.

    Args:
        model_or_scaling (str): a key of :data:`MODEL_ROPE_CONFIGS` (that model's published setting;
            "before" is its unscaled frequencies, for Code Llama Llama 2's base 10000) or one of
            ``SCALING_EXAMPLES`` (a common setting: base 10000, trained length 4096, factor 8).
        head_dim (int, optional): even rotated width, >= 4; default the model's rotated width (the
            examples: 128; ``"longrope"``: 96, the only width its published lists fit).
        seq_len (int, optional): the current length, for the scalings that depend on it (dynamic NTK;
            LongRoPE's short/long switch); default the extended length.

    Returns:
        dict: ``name``, ``rope_type``, ``head_dim``, ``base``, ``trained_length`` (the length the scaling
        is defined against: ``original_max_position_embeddings``, else the length before the base was
        raised, else the config's maximum), ``published_trained_length`` (the row's ``trained_length``,
        the length the model was trained on as its source states it, or None), ``target_length``,
        ``seq_len``, ``wavelength_before`` and ``wavelength_after`` (float64 ``[d/2]``, in tokens),
        ``attention_scaling`` (the factor cos and sin are multiplied by), ``softmax_scale_factor``
        (the factor on the softmax scale ``d ** -0.5`` on top: ``yarn_mscale(s, mscale_all_dim) ** 2``
        for DeepSeek's rows, else 1), ``logit_scale`` (``attention_scaling ** 2 * softmax_scale_factor``,
        the whole temperature on the rotated logits) and ``note`` (one line for a figure title: the
        effective factor of the ``"ntk"`` example, DeepSeek's softmax factor; "" otherwise).
    """
    configs = {**MODEL_ROPE_CONFIGS, **_SCALING_EXAMPLE_CONFIGS}
    name = check_choice("model_or_scaling", model_or_scaling, tuple(configs))
    cfg = configs[name]
    target = cfg.get("target_length", cfg["max_position_embeddings"])  # the length the example is read at
    scaling = RopeScaling.from_hf(cfg["rope_scaling"], max_position_embeddings=cfg["max_position_embeddings"],
                                  original_max_position_embeddings=cfg.get("original_max_position_embeddings"))
    default_dim = cfg["rotary_dim"]
    head_dim = default_dim if head_dim is None else check_even("head_dim", head_dim, min_value=4)
    if isinstance(scaling, LongRopeScaling) and head_dim != default_dim:
        raise ValueError(f"head_dim must be {default_dim} for {name!r}: its published LongRoPE lists have "
                         f"{default_dim // 2} factors, got {head_dim}")
    seq_len = target if seq_len is None else check_int("seq_len", seq_len, min_value=1)
    base = cfg["rope_theta"]
    trained = getattr(scaling, "original_max_position_embeddings", None) or cfg.get("trained_length_before", target)
    inv, scale = scaling.inv_freq(head_dim, base, seq_len=seq_len)
    softmax_factor = scaling.softmax_scale  # DeepSeek's yarn_apply_mscale (YaRN only)
    note = ""
    if getattr(scaling, "mscale_all_dim", None) is not None:
        note = f"softmax scale ×{softmax_factor:.2f} on all q·k dims"
    elif isinstance(scaling, DynamicScaling) and seq_len > trained:
        effective = scaling.factor * seq_len / trained - (scaling.factor - 1)  # HF dynamic NTK's scale at seq_len
        note = f"dynamic NTK at {seq_len} tokens: effective scale {effective:g} on the slowest pair"
    return {
        "name": name, "rope_type": scaling.rope_type, "head_dim": head_dim, "base": base, "trained_length": trained,
        "published_trained_length": cfg.get("trained_length"), "target_length": target, "seq_len": seq_len,
        "wavelength_before": 2 * math.pi / frequency_ladder(head_dim, cfg.get("base_before", base)).to(torch.float64),
        "wavelength_after": 2 * math.pi / inv.to(torch.float64), "attention_scaling": float(scale),
        "softmax_scale_factor": softmax_factor, "logit_scale": float(scale) ** 2 * softmax_factor, "note": note,
    }
