"""Attention with position methods: one multi-head softmax attention that calls a method's hooks
(:mod:`~posenc.attention.multihead`), and linear (kernelised) attention with RoPE
(:mod:`~posenc.attention.linear`)."""

from . import linear, multihead
from .linear import *  # noqa: F401,F403
from .multihead import *  # noqa: F401,F403

__all__ = [*multihead.__all__, *linear.__all__]
