"""The chapters' material: set-up, source listings, exercise self-checks, and the teaching-only data
and checks the chapters use. Tooling: imports the library through the top-level ``posenc`` only.

Not imported by ``posenc/__init__`` (its figures need matplotlib, from the ``book``/``widgets`` extras):
``from posenc.book import book_setup, show_source``.

- :mod:`posenc.book.setup`: :func:`book_setup` (seed, gradients, threads, figures) and :data:`FIGURE_DPI`
- :mod:`posenc.book.source`: :func:`show_source`, the code that runs, shown as a code block (:class:`Source`);
  :class:`Collapsed`, printed lines in a collapsed block
- :mod:`posenc.book.answers`: :func:`check_answer` and :func:`answer_digest`, the exercises' self-check
- :mod:`posenc.book.toy`: :func:`toy_embeddings` and :func:`toy_vocabulary`, download-free token vectors
  for the examples
- :mod:`posenc.book.properties`: numerical checks of the properties an ideal position encoding should
  have (:func:`min_pairwise_distance`, :func:`first_repeat`, :func:`shift_map`, :func:`shift_map_residual`,
  :func:`diagonal_spread`, :func:`attention_entropy`)
- :mod:`posenc.book.models`: published RoPE settings of well-known models (:data:`MODEL_ROPE_CONFIGS`),
  the scalings on one common setting (:data:`SCALING_EXAMPLES`) and :func:`scaled_wavelengths`
"""

from . import answers, models, properties, setup, source, toy
from .answers import answer_digest, check_answer
from .models import MODEL_ROPE_CONFIGS, SCALING_EXAMPLES, scaled_wavelengths
from .properties import (
    attention_entropy,
    diagonal_spread,
    first_repeat,
    min_pairwise_distance,
    shift_map,
    shift_map_residual,
)
from .setup import FIGURE_DPI, book_setup
from .source import Collapsed, Source, show_source
from .toy import toy_embeddings, toy_vocabulary

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the modules' own __all__.
__all__ = [
    # setup
    "FIGURE_DPI",
    "book_setup",
    # source
    "Collapsed",
    "Source",
    "show_source",
    # answers
    "answer_digest",
    "check_answer",
    # toy
    "toy_vocabulary",
    "toy_embeddings",
    # properties
    "min_pairwise_distance",
    "first_repeat",
    "shift_map",
    "shift_map_residual",
    "diagonal_spread",
    "attention_entropy",
    # models
    "MODEL_ROPE_CONFIGS",
    "SCALING_EXAMPLES",
    "scaled_wavelengths",
]
