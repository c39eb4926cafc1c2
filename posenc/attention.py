"""Multi-head self-attention whose position method is a parameter.

One module for every encoding in the book, so chapters and experiments compare them with
everything else held fixed:

========================  =========================================  ===========================
``position``              where position enters                      reference
========================  =========================================  ===========================
``"none"``                nowhere (NoPE)                             Kazemnejad et al. 2023
``"sinusoidal"``          added to the input before the projections  Vaswani et al. 2017
``"learned"``             added to the input (trainable table)       GPT-2, BERT
``"shaw"``                relative keys/values inside attention      Shaw et al. 2018
``"t5"``                  learned bucketed bias on the logits        Raffel et al. 2020
``"rope"``                rotation of q and k, half layout           Su et al. 2021, HF
``"rope_interleaved"``    rotation of q and k, interleaved layout    Su et al. 2021, Meta LLaMA
``"alibi"``               linear distance bias on the logits         Press et al. 2022
========================  =========================================  ===========================

Shape legend: ``b`` batch, ``L`` new tokens, ``P`` cached tokens, ``T = P + L`` keys,
``D`` model width ``d_model``, ``h`` heads, ``d = D / h`` head dimension.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import check_choice, check_float, check_int, check_size, check_tensor
from .absolute import LearnedPositionalEmbedding, _sinusoidal
from .alibi import _alibi_bias, alibi_slopes
from .frequencies import DEFAULT_BASE
from .relative import ShawRelativePosition, T5RelativeBias, _check_t5, _distance_range, _lengths, _toeplitz
from .rope import RotaryEmbedding

__all__ = ["POSITION_METHODS", "KVCache", "MultiHeadAttention", "causal_mask"]

#: The position methods :class:`MultiHeadAttention` accepts, in the order of the book's chapters.
POSITION_METHODS = ("none", "sinusoidal", "learned", "shaw", "t5", "rope", "rope_interleaved", "alibi")


def causal_mask(q_len: int, k_len: int | None = None, *, device: torch.device | str | None = None) -> torch.Tensor:
    """Boolean ``[Lq, Lk]`` mask, True where a query may attend (queries aligned at the end)."""
    q_len, k_len = _lengths(q_len, k_len, item_bytes=9)
    return _causal_mask(q_len, k_len, device)


def _causal_mask(q_len: int, k_len: int, device: torch.device | str | None) -> torch.Tensor:
    q_pos = torch.arange(k_len - q_len, k_len, device=device)  # [Lq], aligned at the end
    return torch.arange(k_len, device=device)[None, :] <= q_pos[:, None]  # [Lq, Lk]


@dataclass
class KVCache:
    """Keys and values of the tokens seen so far, ``[b, h, P, d]`` each (RoPE keys stored rotated)."""

    k: torch.Tensor | None = None
    v: torch.Tensor | None = None

    @property
    def length(self) -> int:
        """Number of cached positions ``P``."""
        return 0 if self.k is None else self.k.shape[-2]

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append ``[b, h, L, d]`` keys/values and return all of them, ``[b, h, P + L, d]``.

        Raises:
            ValueError: ``k`` and ``v`` of different shapes, or ``[b, h, d]`` other than the cache's.
        """
        check_tensor("k", k, ndim=4, floating=True)
        check_tensor("v", v, ndim=4, floating=True)
        if k.shape != v.shape:
            raise ValueError(f"k and v must have the same shape [b, h, L, d], got {tuple(k.shape)} and {tuple(v.shape)}")
        if self.k is not None and (k.shape[:2] != self.k.shape[:2] or k.shape[-1] != self.k.shape[-1]):
            raise ValueError(f"k must match the cached [b, h, P, d] = {tuple(self.k.shape)} in b, h and d, "
                             f"got {tuple(k.shape)}")
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat((self.k, k), dim=-2)
            self.v = torch.cat((self.v, v), dim=-2)
        return self.k, self.v


class MultiHeadAttention(nn.Module):
    """Multi-head self-attention with a pluggable position method.

    Uses ``torch.nn.functional.scaled_dot_product_attention`` for every method but Shaw's (whose
    relative values do not fit its interface); ALiBi and T5 biases go in as a float ``[1, h, L, T]``
    ``attn_mask``, built once per shape and kept.

    Args:
        d_model (int): model width ``D``.
        n_heads (int): number of heads ``h`` (``D`` divisible by ``h``; ``D / h`` even for RoPE).
        position (str): one of :data:`POSITION_METHODS`.
        causal (bool): decoder (True) or encoder (False) attention.
        max_len (int): rows of the learned table; initial RoPE cache length.
        base (float): sinusoidal / RoPE wavelength base.
        shaw_max_distance (int): Shaw's clipping distance ``k``.
        t5_num_buckets (int): number of T5 buckets.
        t5_max_distance (int): where T5's logarithmic buckets end.
        bias (bool): whether the projections have biases.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        position: str = "none",
        *,
        causal: bool = True,
        max_len: int = 2048,
        base: float = DEFAULT_BASE,
        shaw_max_distance: int = 16,
        t5_num_buckets: int = 32,
        t5_max_distance: int = 128,
        bias: bool = False,
    ) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, min_value=1)
        self.n_heads = check_int("n_heads", n_heads, min_value=1)
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        check_size("d_model", d_model, (4, self.d_model, self.d_model), item_bytes=4)  # the projections
        self.head_dim = self.d_model // self.n_heads
        self.position = check_choice("position", position, POSITION_METHODS)
        self.causal = bool(causal)
        self.max_len = check_int("max_len", max_len, min_value=1)
        self.base = check_float("base", base, gt=1.0)
        shaw_max_distance = check_int("shaw_max_distance", shaw_max_distance, min_value=0)
        t5_num_buckets, t5_max_distance = _check_t5(t5_num_buckets, t5_max_distance, not self.causal,
                                                    names=("t5_num_buckets", "t5_max_distance"))
        if position == "sinusoidal" and self.d_model % 2:
            raise ValueError(f"d_model must be even for sinusoidal encodings (sin/cos pairs), got {self.d_model}")
        self.qkv = nn.Linear(self.d_model, 3 * self.d_model, bias=bias)
        self.out = nn.Linear(self.d_model, self.d_model, bias=bias)
        if position == "learned":
            self.learned = LearnedPositionalEmbedding(self.max_len, self.d_model)
        elif position == "shaw":
            self.shaw = ShawRelativePosition(self.head_dim, shaw_max_distance)
        elif position == "t5":
            self.t5 = T5RelativeBias(self.n_heads, num_buckets=t5_num_buckets, max_distance=t5_max_distance,
                                     bidirectional=not self.causal)
        elif position.startswith("rope"):
            if self.head_dim % 2:
                raise ValueError(f"RoPE needs an even head dimension, got d_model / n_heads = {self.head_dim}")
            layout = "interleaved" if position == "rope_interleaved" else "half"
            self.rope = RotaryEmbedding(self.head_dim, self.max_len, self.base, layout=layout)
        elif position == "alibi":
            self.register_buffer("slopes", alibi_slopes(self.n_heads), persistent=False)
        self._bias_cache: dict = {}  # (L, T, dtype, device, table version) -> [1, h, L, T]

    def _input_encoding(self, pos: torch.Tensor) -> torch.Tensor:
        """``[L, D]`` absolute encoding of the positions ``pos`` ``[L]``."""
        if self.position == "learned":
            return self.learned(pos)
        return _sinusoidal(pos, self.d_model, self.base, torch.float32, None)  # [L, D]

    def _logit_bias(self, q_len: int, k_len: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor | None:
        """Float ``[1, h, L, T]`` bias (-inf where masked), a bool ``[L, T]`` mask, or None.

        Bias methods pay for one ``[h, L, T]`` tensor: it is spread from the ``L + T - 1`` values of
        each head's distances (no ``[L, T]`` temporaries), built once per shape, dtype and device and
        kept, and passed in the 4-D layout that SDPA's CPU kernel reads fastest (a 3-D ``[h, L, T]``
        mask takes a slower path). ALiBi's bias is fixed; T5's depends on its learned table, so it is
        kept only when no gradient is needed and the table has not changed since.
        """
        if self.position not in ("alibi", "t5"):
            if not self.causal or q_len == k_len:
                return None  # no mask, or SDPA's is_causal
            return _causal_mask(q_len, k_len, device)  # [L, T] bool
        reusable = self.position == "alibi" or not torch.is_grad_enabled()
        key = (q_len, k_len, dtype, device, self.t5.bias.weight._version if self.position == "t5" else 0)
        if reusable and key in self._bias_cache:
            return self._bias_cache[key]
        if self.position == "alibi":
            bias = _alibi_bias(self.slopes, q_len, k_len, causal=self.causal, dtype=dtype)  # [h, L, T]
        else:
            dist = _distance_range(q_len, k_len, device=device)  # [L + T - 1]
            values = self.t5._bias_by_distance(dist)  # [h, L + T - 1], in the autograd graph when training
            if self.causal:
                values = values.masked_fill(dist > 0, float("-inf"))
            bias = _toeplitz(values.to(dtype), q_len, k_len)  # [h, L, T]
        bias = bias.unsqueeze(0)  # [1, h, L, T], a view
        if reusable:
            while len(self._bias_cache) >= 2:  # the current shape and one other (e.g. evaluation)
                self._bias_cache.pop(next(iter(self._bias_cache)))
            self._bias_cache[key] = bias
        return bias

    def forward(
        self,
        x: torch.Tensor,
        *,
        position_ids: torch.Tensor | None = None,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        """Attend.

        Args:
            x (torch.Tensor): ``[b, L, D]`` new tokens.
            position_ids (torch.Tensor, optional): ``[L]`` absolute positions of the new tokens;
                default ``arange(P, P + L)`` where ``P`` is the cache length. Used by the absolute
                encodings and RoPE; the relative methods use the query/key offsets.
            cache (KVCache, optional): filled with this call's keys and values; pass the same object
                at the next step to decode token by token.

        Returns:
            torch.Tensor: ``[b, L, D]``.
        """
        check_tensor("x", x, ndim=3, floating=True)
        b, seq, width = x.shape
        if width != self.d_model:
            raise ValueError(f"x's last dimension must be d_model={self.d_model}, got {width}")
        if cache is not None and not isinstance(cache, KVCache):
            raise TypeError(f"cache must be a posenc.KVCache or None, got {type(cache).__name__}")
        past = 0 if cache is None else cache.length
        check_size(f"x of shape {tuple(x.shape)} with {past} cached tokens", None,
                   (b, self.n_heads, seq, past + seq), item_bytes=3 * x.element_size())  # scores, weights, bias
        if position_ids is None:
            position_ids = torch.arange(past, past + seq, device=x.device)
        check_tensor("position_ids", position_ids, ndim=1, floating=False)
        if len(position_ids) != seq:
            raise ValueError(f"position_ids must have one entry per token of x (L={seq}), got {len(position_ids)}")
        if self.position in ("sinusoidal", "learned"):
            x = x + self._input_encoding(position_ids).to(x.dtype)  # [b, L, D]
        q, k, v = self.qkv(x).view(b, seq, 3, self.n_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # 3 x [b, h, L, d]
        if self.position.startswith("rope"):
            q, k = self.rope(q, position_ids), self.rope(k, position_ids)
        if cache is not None:
            k, v = cache.append(k, v)  # [b, h, T, d]
        k_len = k.shape[-2]
        if self.position == "shaw":
            y = self.shaw(q, k, v, causal=self.causal)  # [b, h, L, d]
        else:
            mask = self._logit_bias(seq, k_len, q.dtype, x.device)
            is_causal = self.causal and mask is None and seq == k_len
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal)  # [b, h, L, d]
        y = y.transpose(1, 2).reshape(b, seq, self.d_model)  # [b, L, D]
        return self.out(y)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, n_heads={self.n_heads}, position={self.position!r}, causal={self.causal}"
