"""Position methods as strategies: the hooks attention calls (:mod:`~posenc.methods.base`), one
module per method, and the registry (:mod:`~posenc.methods.registry`)."""

from . import alibi, base, cope, fire, kerple, learned, nope, registry, rope, shaw, sinusoidal, t5
from .alibi import *  # noqa: F401,F403
from .base import *  # noqa: F401,F403
from .cope import *  # noqa: F401,F403
from .fire import *  # noqa: F401,F403
from .kerple import *  # noqa: F401,F403
from .learned import *  # noqa: F401,F403
from .nope import *  # noqa: F401,F403
from .registry import *  # noqa: F401,F403
from .rope import *  # noqa: F401,F403
from .shaw import *  # noqa: F401,F403
from .sinusoidal import *  # noqa: F401,F403
from .t5 import *  # noqa: F401,F403

__all__ = [name for module in (base, nope, sinusoidal, learned, shaw, t5, rope, alibi, kerple, fire, cope, registry)
           for name in module.__all__]
