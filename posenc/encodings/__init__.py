"""The position encodings, one module each, in the order of the book's chapters: the frequency
ladder, absolute encodings and their properties, toy data, relative positions (Shaw, T5), RoPE and
its textbook forms, RoPE's long-term decay bound, and ALiBi."""

from . import absolute, alibi, decay, frequencies, properties, relative, rope, rope_forms, toy
from .absolute import *  # noqa: F401,F403
from .alibi import *  # noqa: F401,F403
from .decay import *  # noqa: F401,F403
from .frequencies import *  # noqa: F401,F403
from .properties import *  # noqa: F401,F403
from .relative import *  # noqa: F401,F403
from .rope import *  # noqa: F401,F403
from .rope_forms import *  # noqa: F401,F403
from .toy import *  # noqa: F401,F403

__all__ = [name for module in (frequencies, absolute, properties, toy, relative, rope, rope_forms, decay, alibi)
           for name in module.__all__]
