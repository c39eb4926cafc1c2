"""A tiny causal language model whose position method is a parameter.

The model is a pre-LayerNorm decoder (GPT-2's arrangement). The position method is one of
:data:`posenc.POSITION_METHODS`: an absolute encoding (a method that acts on the input) is added once
to the token embeddings, every other method acts inside every layer's attention.

Shape legend: ``b`` batch, ``L`` sequence length, ``V`` vocabulary size, ``D`` model width.
"""

from __future__ import annotations

from typing import cast

import torch
from torch import nn

from .. import POSITION_METHODS, MultiHeadAttention, NoPEMethod, RopeMethod, RopeScaling, build_method, reset_in_order
from .._core.validate import check_choice, check_int, check_size, check_tensor
from .data import check_sizes

__all__ = ["TinyLM", "check_model_input"]


def check_model_input(model: TinyLM, batch: int, length: int) -> None:
    """Refuse ``batch`` sequences of ``length`` input tokens whose logits ``[b, L, V]`` or attention
    scores ``[b, h, L, L]`` (float32) would exceed the library's size limit, before anything is sampled.

    Raises:
        ValueError: either would exceed the size limit (``posenc.set_max_tensor_bytes`` raises it).
    """
    heads = max(cast(_Block, block).attn.n_heads for block in model.blocks)
    check_sizes((batch, length, model.vocab_size), batch=batch, length=length)
    check_sizes((batch, heads, length, length), batch=batch, length=length)


class _Block(nn.Module):
    def __init__(self, d_model: int, n_heads: int, position: str, max_len: int, options: dict) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, n_heads, position, causal=True, max_len=max_len, **options)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    """A small decoder-only language model with a pluggable position method.

    The method's objects (:mod:`posenc.methods`) decide where position enters: an absolute
    encoding (a method whose class ``acts_on_input()``) is built once with
    :func:`posenc.build_method` and added to the token embeddings, as in GPT-2, and the layers then
    attend without position; every other method acts inside every layer's attention, one method
    object per layer.

    Args:
        vocab_size (int): vocabulary size ``V``.
        position (str): one of :data:`posenc.POSITION_METHODS`.
        d_model (int): width ``D``.
        n_layers (int): number of blocks (>= 1).
        n_heads (int): heads per block.
        max_len (int): the learned table's rows (the trained length for ``"learned"``).
        **options: the position method's own options, passed on to it (``base=...`` for the
            sinusoidal and RoPE methods, ``num_buckets=...`` for T5, ...); see
            :class:`posenc.MultiHeadAttention`.
    """

    def __init__(
        self,
        vocab_size: int,
        position: str,
        *,
        d_model: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        max_len: int = 64,
        **options,
    ) -> None:
        super().__init__()
        self.position = check_choice("position", position, POSITION_METHODS)
        self.max_len = check_int("max_len", max_len, min_value=1)
        self.d_model = check_int("d_model", d_model, min_value=2)
        n_layers = check_int("n_layers", n_layers, min_value=1)
        self.vocab_size = check_int("vocab_size", vocab_size, min_value=2)
        check_size("vocab_size", vocab_size, (vocab_size, d_model))  # the embedding and the output head
        self.options = dict(options)
        on_input = POSITION_METHODS[position].acts_on_input()
        self.embed = nn.Embedding(vocab_size, d_model)
        # built after the embedding and before the blocks: a learned table draws its initial values there
        self.input_encoding = (
            build_method(position, d_model=d_model, n_heads=n_heads, causal=True, max_len=max_len, **options)
            if on_input
            else NoPEMethod()
        )
        layer_position, layer_options = ("none", {}) if on_input else (position, options)  # not repeated per layer
        self.blocks = nn.ModuleList(
            _Block(d_model, n_heads, layer_position, max_len, layer_options) for _ in range(n_layers)
        )
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Next-token logits ``[b, L, V]`` for ``tokens`` ``[b, L]``.

        ``tokens`` must be an integer tensor of ids in ``[0, V)``. The range is checked in eager mode on the CPU only
        (a min and a max, cheap there); on an accelerator the check would wait for the device on every
        call, so there an id out of range fails in the embedding instead.

        Raises:
            TypeError: ``tokens`` is not an integer tensor.
            ValueError: ``tokens`` is not 2-D, is empty, holds an id outside ``[0, V)``, the logits would
                exceed the library's size limit, or ``position="learned"`` and ``L`` exceeds ``max_len``.
        """
        check_tensor("tokens", tokens, ndim=2, floating=False)
        if tokens.numel() == 0:
            raise ValueError(f"tokens must not be empty, got shape {tuple(tokens.shape)}")
        check_sizes((*tokens.shape, self.vocab_size), tokens=tuple(tokens.shape))  # the logits, float32
        if tokens.device.type == "cpu" and not torch.compiler.is_compiling():  # a compiled graph reads no value
            low, high = torch.aminmax(tokens)
            if low < 0 or high >= self.vocab_size:
                raise ValueError(
                    f"tokens must be ids in [0, {self.vocab_size}) (vocab_size), "
                    f"got values from {int(low)} to {int(high)}"
                )
        if not torch.compiler.is_compiling():
            self.input_encoding.reserve(tokens.shape[1])  # a learned table refuses L > max_len, from the shape
        x = self.embed(tokens)  # [b, L, D]
        x = self.input_encoding.encode_input(x, torch.arange(tokens.shape[1], device=tokens.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

    def reset_parameters(self) -> None:
        """Initialise every parameter and buffer as the constructor does, in its order, so the same seed
        gives the same model: the deferred initialisation of a model built under
        ``with torch.device("meta"):`` and moved with ``to_empty(device=...)`` (torchtune, FSDP2)."""
        reset_in_order(self)

    def set_rope_scaling(self, scaling: RopeScaling | None = None, *, seq_len: int | None = None) -> None:
        """Give every layer's RoPE method the frequencies of a context-extension scaling (RoPE models only).

        Args:
            scaling (posenc.RopeScaling, optional): from :func:`posenc.rope_scaling` (Hugging Face's
                ``rope_parameters``, validated); None restores the plain frequencies.
            seq_len (int, optional): the current length, for the scalings that read it (dynamic NTK).
                With ``rope_scaling("dynamic", factor=f, original_max_position_embeddings=L)`` the base
                becomes ``base * (f * seq_len / L - (f - 1)) ** (d / (d - 2))``, so with ``f = 1`` an
                input of ``s * L`` tokens gets exactly the NTK-aware base for an extension by ``s``.

        Raises:
            ValueError: the model does not use RoPE.
        """
        methods = [cast(_Block, block).attn.method for block in self.blocks]
        if not all(isinstance(m, RopeMethod) for m in methods):
            raise ValueError(f"set_rope_scaling needs a RoPE model, this one uses position={self.position!r}")
        for method in methods:
            cast(RopeMethod, method).set_scaling(scaling, seq_len=seq_len)
