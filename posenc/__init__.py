"""posenc: position encodings for Transformers, as taught in the posenc book.

The package has two layers.

**The library** (torch and numpy only; importable from here, the book's API contract: torch
tensors in and out, queries aligned at the end of the keys when ``k_len > q_len``):

- :mod:`posenc.encodings`: the encodings' math, one module per family: the frequency ladder,
  absolute encodings, relative positions (Shaw, T5), RoPE and its textbook forms, RoPE's decay
  bound, ALiBi
- :mod:`posenc.scaling`: RoPE's context-extension scalings: one function per type in a registry
  and one typed, validated configuration per type (``rope_scaling``, ``RopeScaling.from_hf``)
- :mod:`posenc.methods`: position methods as strategies (the hooks attention calls), one module per
  method, and their registry (``POSITION_METHODS``, ``build_method``)
- :mod:`posenc.attention`: multi-head attention with any position method; linear attention
- :mod:`posenc.today`: what 2022-2026 models add around RoPE and attention, one module per
  mechanism (M-RoPE, Llama 4's iRoPE, xPos, the KV cache, learned sinks)
- ``posenc._core``: the internal layer they share (validation, the query/key grid, the frequency
  ladder, RoPE's and the biases' cores); not public

**The book's tooling** (imported on demand; it uses the library through the names exported here):

- :mod:`posenc.explorers`: the interactive explorers and their static companions (the ``widgets`` extra)
- :mod:`posenc.experiments`: the extrapolation experiments (data, model, training, evaluation,
  provenance, results)
- :mod:`posenc.measure`: the benchmarks' measurement helpers
- :mod:`posenc.book`: the chapters' set-up, source listings and teaching material (toy data, the
  properties' checks, the model table)
- :mod:`posenc.practice`: the Practice part's checker of a learner's implementation

**Where code goes** (``tests/test_layers.py`` checks each rule):

1. An encoding's math lives in :mod:`posenc.encodings`, in its family's module: functions (tensors
   in, tensors out) and the stand-alone layers a model can use without posenc's attention
   (``LearnedPositionalEmbedding``, ``ShawRelativePosition``, ``T5RelativeBias``,
   ``RotaryEmbedding``). It imports nothing from ``methods`` or ``attention``.
2. A position method's strategy, the ``PositionMethod`` that ``MultiHeadAttention`` calls, lives in
   :mod:`posenc.methods`: one registered class per module and nothing else public in it (beside the
   interface, ``base``, and the registry, ``registry``). It builds on its encoding's math (from
   ``encodings``, or the core both share in ``_core``) where the encoding exists without attention
   (sinusoidal, learned, Shaw, T5, RoPE, ALiBi: a module in each package); a method that exists only
   as a learned attention hook lives there whole (NoPE, KERPLE, FIRE, CoPE: ``methods`` only).
3. A scaling of RoPE's frequencies lives in :mod:`posenc.scaling`: a function in ``ROPE_SCALINGS``
   and a typed configuration.
4. A mechanism a later model adds that is not a position method (a table layout, a temperature, a
   mask, a cache rule, a sink) lives in :mod:`posenc.today`, one module per mechanism.
5. Teaching-only material (toy data, checks of the book's properties, tables of published configs)
   lives in the tooling, and only the tooling reads the saved runs (``posenc/results``); the library
   imports no tooling.

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
