"""posenc: position encodings for Transformers, as taught in the posenc book.

The package has two layers.

**The library** (torch and numpy only; importable from here, the book's API contract: torch
tensors in and out, queries aligned at the end of the keys when ``k_len > q_len``):

- :mod:`posenc.encodings`: the encodings, one module each: the frequency ladder, absolute encodings
  and their properties, toy data, relative positions (Shaw, T5), RoPE and its textbook forms,
  RoPE's decay bound, ALiBi
- :mod:`posenc.scaling`: RoPE's context-extension scalings: one function per type in a registry
  and one typed, validated configuration per type (``rope_scaling``, ``RopeScaling.from_hf``)
- :mod:`posenc.methods`: position methods as strategies (the hooks attention calls), one module per
  method, and their registry (``POSITION_METHODS``, ``build_method``)
- :mod:`posenc.attention`: multi-head attention with any position method; linear attention
- :mod:`posenc.today`: RoPE as 2024-2026 models use it (M-RoPE, Llama 4's temperature, xPos,
  attention sinks, model configurations)
- ``posenc._core``: the internal layer they share (validation, the query/key grid, the frequency
  ladder, RoPE's and the biases' cores); not public

**The book's tooling** (imported on demand; it uses the library through the names exported here):

- :mod:`posenc.explorers`: the interactive explorers and their static companions (the ``widgets`` extra)
- :mod:`posenc.experiments`: the extrapolation experiments (data, model, training, evaluation,
  provenance, results)
- :mod:`posenc.measure`: the benchmarks' measurement helpers
- :mod:`posenc.book`: the chapters' set-up and source listings
- :mod:`posenc.practice`: the Practice part's checker of a learner's implementation

Every name of the library's ``__all__`` is importable from ``posenc`` itself.
"""

from . import attention, encodings, methods, scaling, today
from .attention import *  # noqa: F401,F403
from .encodings import *  # noqa: F401,F403
from .methods import *  # noqa: F401,F403
from .scaling import *  # noqa: F401,F403
from .today import *  # noqa: F401,F403

__version__ = "0.1.0"

_LIBRARY = (encodings, scaling, methods, attention, today)
__all__ = [name for module in _LIBRARY for name in module.__all__]
