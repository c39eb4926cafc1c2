"""Position methods as strategies: the hooks attention calls (:mod:`~posenc.methods.base`), one
module per method, and the registry (:mod:`~posenc.methods.registry`)."""

from . import alibi, base, cope, fire, kerple, learned, nope, registry, rope, shaw, sinusoidal, t5
from .alibi import AlibiMethod
from .base import CachedBias, PositionMethod, reset_in_order
from .cope import CoPE
from .fire import FireBias
from .kerple import KerpleBias
from .learned import LearnedMethod
from .nope import NoPEMethod
from .registry import POSITION_METHODS, build_method, method_options
from .rope import RopeMethod
from .shaw import ShawMethod
from .sinusoidal import SinusoidalMethod
from .t5 import T5Method

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the modules' own __all__.
__all__ = [
    "PositionMethod",
    "CachedBias",
    "reset_in_order",
    "NoPEMethod",
    "SinusoidalMethod",
    "LearnedMethod",
    "ShawMethod",
    "T5Method",
    "RopeMethod",
    "AlibiMethod",
    "KerpleBias",
    "FireBias",
    "CoPE",
    "POSITION_METHODS",
    "build_method",
    "method_options",
]
