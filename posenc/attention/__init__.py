"""Attention with position methods: one multi-head softmax attention that calls a method's hooks
(:mod:`~posenc.attention.multihead`), and linear (kernelised) attention with RoPE
(:mod:`~posenc.attention.linear`)."""

from .._core.validate import get_max_tensor_bytes, max_tensor_bytes, set_max_tensor_bytes
from . import linear, multihead
from .linear import *  # noqa: F401,F403
from .multihead import *  # noqa: F401,F403

#: The size limit's public face (defined in posenc._core.validate, which every size check reads), exported
#: here, where attention's [L, T] tensors are the largest a user meets
_LIMIT = ["get_max_tensor_bytes", "set_max_tensor_bytes", "max_tensor_bytes"]

__all__ = [*multihead.__all__, *linear.__all__, *_LIMIT]
