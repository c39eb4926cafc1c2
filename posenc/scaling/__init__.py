"""RoPE context-extension scalings: one frequency function per type in a registry
(:mod:`posenc.scaling.functions`, as Hugging Face's ``ROPE_INIT_FUNCTIONS``) and one typed, validated
configuration per type (:mod:`posenc.scaling.config`) that every caller passes around."""

from . import config, functions
from .config import (
    ROPE_SCALING_CONFIGS,
    DefaultScaling,
    DynamicScaling,
    LinearScaling,
    Llama3Scaling,
    LongRopeScaling,
    ProportionalScaling,
    RopeScaling,
    YarnScaling,
    rope_scaled_inv_freq,
    rope_scaling,
)
from .functions import ROPE_SCALINGS, ROPE_TYPES, yarn_mscale

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the modules' own __all__.
__all__ = [
    "ROPE_SCALINGS",
    "ROPE_TYPES",
    "yarn_mscale",
    "RopeScaling",
    "DefaultScaling",
    "LinearScaling",
    "DynamicScaling",
    "YarnScaling",
    "Llama3Scaling",
    "LongRopeScaling",
    "ProportionalScaling",
    "ROPE_SCALING_CONFIGS",
    "rope_scaling",
    "rope_scaled_inv_freq",
]
