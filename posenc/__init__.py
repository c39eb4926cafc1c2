"""posenc: position encodings for Transformers, as taught in the posenc book.

The numeric core (importable from here) follows the book's API contract: torch tensors in and out,
queries aligned at the end of the keys when ``k_len > q_len``. It needs torch and numpy only;
the explorers need the ``widgets`` extra (``pip install posenc[widgets]``).

Modules, one concept each, in the order of the book's chapters:

- :mod:`posenc.frequencies`: the frequency ladder ``base ** (-2i/d)`` and ``DEFAULT_BASE``
- :mod:`posenc.absolute`: integer, binary, sinusoidal and learned absolute encodings
- :mod:`posenc.properties`: numerical checks of the properties a position encoding should have
- :mod:`posenc.toy`: download-free toy vocabularies and embeddings for the examples
- :mod:`posenc.relative`: relative positions, Shaw et al.'s attention, T5 buckets
- :mod:`posenc.rope`: rotary position embedding, the production path (tables, ``apply_rope``, module)
- :mod:`posenc.rope_forms`: RoPE's textbook forms (matrix, complex, ``rotate_half``) and layout permutations
- :mod:`posenc.scaling`: RoPE context-extension scalings, one function per type in a registry
- :mod:`posenc.decay`: RoPE's long-term decay bound
- :mod:`posenc.alibi`: ALiBi slopes and biases
- :mod:`posenc.position`: position methods as strategies (the hooks attention calls) and their registry
- :mod:`posenc.kerple`: KERPLE's learnable conditionally-positive-definite distance bias (log and power)
- :mod:`posenc.fire`: FIRE's MLP of the progressively normalised log distance
- :mod:`posenc.cope`: CoPE, contextual positions (gated counts) with interpolated embeddings
- :mod:`posenc.attention`: one multi-head attention with every position method
- :mod:`posenc.linear`: linear (kernelised) attention and RoPE
- :mod:`posenc.rope_today`: RoPE as 2024-2026 models use it (M-RoPE, Llama 4's temperature, xPos, model configs)
- :mod:`posenc.lm`: the tiny language model of the extrapolation experiments (imported on demand)
- :mod:`posenc.realtext`: the same experiment on real text, character-level Shakespeare (imported on demand)
- :mod:`posenc.bench`: measurement helpers of the benchmark scripts (imported on demand)
- :mod:`posenc.explorer`: the explorers' framework: parameters, plot kinds, live and pre-rendered
  widgets (imported on demand; needs matplotlib and ipywidgets)
- :mod:`posenc.widgets`: the interactive explorers and their static companions (imported on demand)
- :mod:`posenc.practice`: the Practice part's checker of a learner's implementation (imported on demand)
- :mod:`posenc.book`: the chapters' set-up and source listings (imported on demand; the ``book`` extra)

Every name of the modules' ``__all__`` above, except those imported on demand (lm, realtext, bench, practice, explorer, widgets, book),
is importable from ``posenc`` itself.
"""

from . import absolute, alibi, attention, cope, decay, fire, frequencies, kerple, linear, position, properties, \
    relative, rope, rope_forms, rope_today, scaling, toy
from .absolute import *  # noqa: F401,F403
from .alibi import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .cope import *  # noqa: F401,F403
from .decay import *  # noqa: F401,F403
from .fire import *  # noqa: F401,F403
from .frequencies import *  # noqa: F401,F403
from .kerple import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .position import *  # noqa: F401,F403
from .properties import *  # noqa: F401,F403
from .relative import *  # noqa: F401,F403
from .rope import *  # noqa: F401,F403
from .rope_forms import *  # noqa: F401,F403
from .rope_today import *  # noqa: F401,F403
from .scaling import *  # noqa: F401,F403
from .toy import *  # noqa: F401,F403

__version__ = "0.1.0"

_MODULES = (frequencies, absolute, properties, toy, relative, rope, rope_forms, scaling, decay, alibi, position,
            kerple, fire, cope, attention, linear, rope_today)
__all__ = [name for module in _MODULES for name in module.__all__]
