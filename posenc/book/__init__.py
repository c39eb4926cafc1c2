"""The chapters' set-up, source listings and exercise self-checks. Tooling: imports the library
through the top-level ``posenc`` only.

Not imported by ``posenc/__init__`` (it needs matplotlib, from the ``book``/``widgets`` extras):
``from posenc.book import book_setup, show_source``.

- :mod:`posenc.book.setup`: :func:`book_setup` (seed, gradients, threads, figures) and :data:`FIGURE_DPI`
- :mod:`posenc.book.source`: :func:`show_source`, the code that runs, shown as a code block (:class:`Source`)
- :mod:`posenc.book.answers`: :func:`check_answer` and :func:`answer_digest`, the exercises' self-check
"""

from . import answers, setup, source
from .answers import *  # noqa: F401,F403
from .setup import *  # noqa: F401,F403
from .source import *  # noqa: F401,F403

__all__ = [*setup.__all__, *source.__all__, *answers.__all__]
