"""Attention with position methods: one multi-head softmax attention that calls a method's hooks
(:mod:`~posenc.attention.multihead`), and linear (kernelised) attention with RoPE
(:mod:`~posenc.attention.linear`)."""

from .._core.validate import get_max_tensor_bytes, max_tensor_bytes, set_max_tensor_bytes
from . import linear, multihead
from .linear import elu_feature_map, kernel_attention, linear_attention
from .multihead import KVCache, MultiHeadAttention, causal_mask

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the modules' own __all__.
__all__ = [
    "KVCache",
    "MultiHeadAttention",
    "causal_mask",
    "elu_feature_map",
    "kernel_attention",
    "linear_attention",
    "get_max_tensor_bytes",
    "set_max_tensor_bytes",
    "max_tensor_bytes",
]
