"""ALiBi: attention with linear biases (Press, Smith, Lewis, ICLR 2022).

No position vectors at all: each head ``h`` adds ``-m_h * |key_pos - query_pos|`` to its
attention logits, with head-specific slopes ``m_h`` forming a geometric sequence.

Shape legend used in the docstrings:

- ``h``: number of heads ``n_heads``
- ``Lq``/``Lk``: query and key lengths; queries are aligned at the end when ``Lk > Lq``

References:
    Press, Smith, Lewis, "Train Short, Test Long: Attention with Linear Biases Enables Input
    Length Extrapolation", ICLR 2022. Official code: ofirpress/attention_with_linear_biases,
    ``fairseq/models/transformer.py`` (``get_slopes``, and the key-position form of the bias that
    :func:`alibi_bias_bloom` returns).
"""

from __future__ import annotations

import math

import torch

from .._core import grid
from .._core.bias import alibi_bias_from_slopes
from .._core.validate import check_int, check_size

__all__ = ["alibi_slopes", "alibi_bias", "alibi_bias_bloom"]


def _slopes_power_of_two(n: int) -> list[float]:
    start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))  # 2 ** (-8 / n)
    return [start * start**i for i in range(n)]


def _slopes(n: int) -> list[float]:
    if math.log2(n).is_integer():
        return _slopes_power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    # the closest lower power of two, then the first n - closest of every other slope of twice that power
    return _slopes_power_of_two(closest) + _slopes(2 * closest)[0::2][: n - closest]


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """Per-head slopes ``m_h`` exactly as the official ``get_slopes``.

    For ``n`` a power of two: ``m_h = 2 ** (-8 (h + 1) / n)``, h = 0 .. n-1 (for 8 heads:
    1/2, 1/4, ..., 1/256). Otherwise the slopes of the closest lower power of two ``c``, followed by
    the first ``n - c`` of every other slope of ``2c`` heads (its slopes 0, 2, 4, ...), so the list
    is *not* monotonic. For 12 heads: the 8 slopes of 8 heads (``2**-1 .. 2**-8``), then
    ``2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5``; the first of those is larger than all eight, the other
    three fall between them.

    Args:
        n_heads (int): number of heads ``h`` (>= 1).

    Returns:
        torch.Tensor: float32 ``[h]``.
    """
    n_heads = check_int("n_heads", n_heads, min_value=1)
    check_size("n_heads", n_heads, (n_heads,), item_bytes=64)  # a Python list of floats first
    return torch.tensor(_slopes(n_heads), dtype=torch.float32)


def alibi_bias(n_heads: int, q_len: int, k_len: int | None = None, *, causal: bool = True) -> torch.Tensor:
    """The additive ALiBi bias ``[h, i, j] = -m_h * |key_pos - query_pos|``.

    Args:
        n_heads (int): number of heads ``h``.
        q_len (int): number of queries ``Lq``.
        k_len (int, optional): number of keys ``Lk`` (>= ``Lq``); default ``Lq``.
        causal (bool): when True, entries with ``key_pos > query_pos`` are ``-inf`` (the decoder mask
            folded into the bias); when False the symmetric bias is returned (encoder use).

    Returns:
        torch.Tensor: float32 ``[h, Lq, Lk]``, ready to add to the logits or to pass as
        ``attn_mask`` to ``scaled_dot_product_attention``.
    """
    n_heads = check_int("n_heads", n_heads, min_value=1)
    q_len, k_len = grid.lengths(q_len, k_len, lead=(n_heads,), item_bytes=4)
    return alibi_bias_from_slopes(alibi_slopes(n_heads), q_len, k_len, causal=bool(causal))


def alibi_bias_bloom(n_heads: int, q_len: int, k_len: int | None = None) -> torch.Tensor:
    """The key-position form ``[h, i, j] = m_h * key_pos`` with the causal mask as ``-inf``.

    Under a causal mask each row differs from :func:`alibi_bias` by the constant
    ``m_h * query_pos``, and softmax ignores constants added to a whole row, so attention weights
    are identical in exact arithmetic (in float32 and bf16 the larger logits round differently, so the
    weights agree to rounding); without the mask the two differ (this form then rewards keys to the right).
    The form is the official ALiBi code's own (Press et al.; ofirpress/attention_with_linear_biases,
    ``fairseq/models/transformer.py``: one row ``m_h * arange(maxpos)`` for every query, which
    "works because the softmax operation is invariant to translation"), so the bias needs no
    ``[Lq, Lk]`` distance matrix (only the causal mask is square). BLOOM's ``build_alibi_tensor``
    (Hugging Face ``modeling_bloom.py``) uses it too and says it is based on that code; its key
    positions count the non-padding tokens. The function keeps its historical name.

    Args:
        n_heads (int): number of heads ``h`` (>= 1).
        q_len (int): number of queries ``Lq``.
        k_len (int, optional): number of keys ``Lk`` (>= ``Lq``); default ``Lq``. Queries are aligned
            at the end: query ``i`` sits at key position ``Lk - Lq + i``.

    Returns:
        torch.Tensor: float32 ``[h, Lq, Lk]``.
    """
    n_heads = check_int("n_heads", n_heads, min_value=1)
    q_len, k_len = grid.lengths(q_len, k_len, lead=(n_heads + 3,), item_bytes=4)  # + the [Lq, Lk] int64 distances
    slopes = alibi_slopes(n_heads)  # [h]
    k_pos = torch.arange(k_len, dtype=torch.float32)  # [Lk]
    bias = slopes[:, None, None] * k_pos[None, None, :]  # [h, 1, Lk]
    return bias.expand(n_heads, q_len, k_len).masked_fill(grid.future(q_len, k_len)[None], float("-inf"))
