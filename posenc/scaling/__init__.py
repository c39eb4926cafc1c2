"""RoPE context-extension scalings: one frequency function per type in a registry
(:mod:`posenc.scaling.functions`, as Hugging Face's ``ROPE_INIT_FUNCTIONS``) and one typed, validated
configuration per type (:mod:`posenc.scaling.config`) that every caller passes around."""

from .config import *  # noqa: F401,F403
from .functions import *  # noqa: F401,F403
from . import config, functions

__all__ = [*functions.__all__, *config.__all__]
