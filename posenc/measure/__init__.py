"""Measurement helpers of the benchmark scripts (``benchmarks/``) and of the chapters that print
their numbers. Tooling: imports the library through the top-level ``posenc`` only.

Modules, one concept each:

- :mod:`posenc.measure.timing`: median wall time of repeated calls, rounds interleaved over calls,
  per-round ratios
- :mod:`posenc.measure.memory`: :class:`TensorMemory`, the bytes of tensors torch creates (counted,
  the same on every machine for a given PyTorch version, no ``/proc`` or ``resource``)
- :mod:`posenc.measure.costs`: operation counts, and Shaw's and attention's memory and time measured
  in a fresh process (``python -m posenc.measure ...``)
- :mod:`posenc.measure.host`: the machine a measurement ran on (:func:`machine`)
- :mod:`posenc.measure.results`: the saved measurements (:func:`save_results` writes ``./results/``
  by default; :func:`~posenc.measure.results.load_results` reads the shipped copies in ``posenc/results/``)

Timings are taken by the scripts in ``benchmarks/`` only, never while the book is tested; the
chapters print the saved numbers and report ratios.
"""

from . import costs, host, memory, results, timing
from .costs import attention_cost, matmul_flops, shaw_peak_memory
from .host import describe_machine, load_average, machine
from .memory import MIB, TensorMemory, current_rss_mib, peak_rss_mib, reset_peak_rss, tensor_peak_mib
from .results import RESULTS_DIR, known_results, load_results, save_results
from .timing import interleaved_rounds, median_seconds, ratio_spread, round_ratios

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the modules' own __all__.
__all__ = [
    # timing
    "median_seconds",
    "interleaved_rounds",
    "round_ratios",
    "ratio_spread",
    # memory
    "MIB",
    "TensorMemory",
    "tensor_peak_mib",
    "reset_peak_rss",
    "current_rss_mib",
    "peak_rss_mib",
    # costs
    "matmul_flops",
    "shaw_peak_memory",
    "attention_cost",
    # host
    "machine",
    "describe_machine",
    "load_average",
    # results
    "RESULTS_DIR",
    "save_results",
    "load_results",
    "known_results",
]
