"""gpt-oss's attention with a learned sink logit per head (a softmax column without a value),
optionally over a sliding window.

Shape legend: ``b`` batch, ``h`` heads, ``L`` queries, ``T`` keys, ``d`` head dimension.

References:
    OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card", 2025 (learned attention sinks, 128-token
    sliding-window layers); Hugging Face ``gpt_oss`` ``eager_attention_forward``.
"""

from __future__ import annotations

import torch

from .._core.validate import check_float, check_int, check_size, check_tensor

__all__ = ["sink_attention"]


def sink_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    sinks: torch.Tensor,
    *,
    causal: bool = True,
    sliding_window: int | None = None,
    scale: float | None = None,
) -> torch.Tensor:
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
        raise ValueError(
            f"k must have at least as many positions as q (queries sit at the last L of the T "
            f"key positions), got T = {n_k} < L = {n_q}"
        )
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
