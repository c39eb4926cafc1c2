"""The chapters' material: set-up, source listings, exercise self-checks, and the teaching-only data
and checks the chapters use. Tooling: imports the library through the top-level ``posenc`` only.

Not imported by ``posenc/__init__`` (its figures need matplotlib, from the ``book``/``widgets`` extras):
``from posenc.book import book_setup, show_source``.

- :mod:`posenc.book.setup`: :func:`book_setup` (seed, gradients, threads, figures) and :data:`FIGURE_DPI`
- :mod:`posenc.book.source`: :func:`show_source`, the code that runs, shown as a code block (:class:`Source`)
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
from .answers import *  # noqa: F401,F403
from .models import *  # noqa: F401,F403
from .properties import *  # noqa: F401,F403
from .setup import *  # noqa: F401,F403
from .source import *  # noqa: F401,F403
from .toy import *  # noqa: F401,F403

__all__ = [*setup.__all__, *source.__all__, *answers.__all__, *toy.__all__, *properties.__all__, *models.__all__]
