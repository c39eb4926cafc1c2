"""Measurement helpers of the benchmark scripts (``benchmarks/``) and of the chapters that print
their numbers. Tooling: imports the library through the top-level ``posenc`` only.

Modules, one concept each:

- :mod:`posenc.measure.timing`: median wall time of repeated calls, rounds interleaved over calls,
  per-round ratios
- :mod:`posenc.measure.memory`: :class:`TensorMemory`, the bytes of tensors torch creates (counted,
  the same on every machine, no ``/proc`` or ``resource``)
- :mod:`posenc.measure.costs`: operation counts, and Shaw's and attention's memory and time measured
  in a fresh process (``python -m posenc.measure ...``)
- :mod:`posenc.measure.host`: the machine a measurement ran on (:func:`machine`)
- :mod:`posenc.measure.results`: the saved measurements (:func:`save_results` writes ``./results/``
  by default; :func:`~posenc.measure.results.load_results` reads the shipped copies in ``posenc/results/``)

Timings are taken by the scripts in ``benchmarks/`` only, never while the book is tested; the
chapters print the saved numbers and report ratios.
"""

from . import costs, host, memory, results, timing
from .costs import *  # noqa: F401,F403
from .host import *  # noqa: F401,F403
from .memory import *  # noqa: F401,F403
from .results import *  # noqa: F401,F403
from .timing import *  # noqa: F401,F403

__all__ = [*timing.__all__, *memory.__all__, *costs.__all__, *host.__all__, *results.__all__]
