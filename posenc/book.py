"""The chapters' shared set-up: one call instead of a preamble copied into every notebook.

Each chapter starts with the Colab install cell, then its imports and ``book_setup()``, which
seeds torch, turns gradients off for chapters that train nothing, pins torch to one thread, sets
the figure defaults and lets the allocator return freed memory. ``show_source(fn)`` prints the
body of a ``posenc`` function as a Python code block, read from the module that the kernel
imported: the code shown is the code that runs.

Not imported by ``posenc/__init__`` (it needs matplotlib, from the ``book``/``widgets`` extras):
``from posenc.book import book_setup, show_source``.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import torch

__all__ = ["FIGURE_DPI", "book_setup", "show_source", "Source", "answer_digest", "check_answer"]

#: Dots per inch of a figure as laid out. Inline figures are encoded at twice this ("retina") and
#: shown at this size, so they stay sharp on a screen with two device pixels per CSS pixel.
FIGURE_DPI = 80


def book_setup(seed: int = 0, *, grad: bool = False, threads: int = 1) -> None:
    """Set the state every chapter assumes; call it once, after the imports.

    Args:
        seed: seed of torch's global generator (the chapters' random draws start from it).
        grad: whether autograd records operations. Chapters that train nothing run with
            ``grad=False``, which also keeps no graph of intermediate tensors alive.
        threads: torch's intra-op threads. One thread makes every printed number independent of
            the machine's core count and keeps a reader's kernel small (each chapter runs in
            seconds); raise it to train faster.

    Sets matplotlib's figure and savefig DPI to :data:`FIGURE_DPI` and, inside IPython, the inline
    figure format to ``retina`` (PNG at twice the DPI, displayed at the laid-out size). On Linux
    (glibc) it also makes the allocator hand freed blocks of 1 MiB or more back to the system, so a
    kernel does not keep the high-water mark of a chapter's temporary tensors (measured on chapter
    2: 448 MiB resident after Run All without, 363 MiB with).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"book_setup: seed must be an int, got {type(seed).__name__}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"book_setup: threads must be an int >= 1, got {threads!r}")
    torch.manual_seed(seed)
    torch.set_grad_enabled(bool(grad))
    torch.set_num_threads(threads)
    _return_freed_memory()

    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": FIGURE_DPI, "savefig.dpi": FIGURE_DPI})
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # plain Python: no inline backend to configure
        return
    if get_ipython() is not None:
        set_matplotlib_formats("retina")


def _return_freed_memory() -> None:
    """glibc only: allocations of 1 MiB or more get their own mapping, returned to the system when
    freed (by default glibc raises that threshold after each large free, up to 32 MiB, and keeps the
    freed memory), and a free heap top above 8 MiB is trimmed. Elsewhere (macOS, Windows, musl):
    nothing to do."""
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    mallopt(m_mmap_threshold, 1 << 20)
    mallopt(m_trim_threshold, 8 << 20)


class Source:
    """A function's source, shown as a fenced Python block (markdown) in JupyterLab, Colab and the
    HTML book, and as plain text elsewhere."""

    def __init__(self, title: str, code: str):
        self.title = title
        self.code = code

    def _repr_markdown_(self) -> str:
        return f"{self.title}\n\n```python\n{self.code}```\n"

    def __repr__(self) -> str:
        return f"{self.title}\n\n{self.code}"


def _package_path(obj) -> str:
    """``posenc/rope.py`` for a function defined in posenc/rope.py."""
    path = Path(inspect.getsourcefile(obj)).resolve()
    package = Path(__file__).resolve().parent
    try:
        return (Path(package.name) / path.relative_to(package)).as_posix()
    except ValueError:
        return path.name


def _strip_docstring(code: str) -> str:
    tree = ast.parse(code)
    node = tree.body[0]
    body = getattr(node, "body", None)
    if not body or not isinstance(body[0], ast.Expr) or not isinstance(getattr(body[0], "value", None), ast.Constant) \
            or not isinstance(body[0].value.value, str):
        return code
    lines = code.splitlines(keepends=True)
    first, last = body[0].lineno - 1, body[0].end_lineno      # 0-based start, exclusive end
    return "".join(lines[:first] + lines[last:])


def show_source(*objs, docstring: bool = False) -> Source:
    """The source of posenc functions or classes, read from the files the kernel imported.

    Args:
        objs: one or more functions or classes (e.g. ``posenc.apply_rope``), shown in this order.
        docstring: keep the docstrings (default: drop them; the chapter's prose explains).

    Returns:
        A :class:`Source`; as a cell's last expression it shows as one highlighted code block
        headed by the files and the names, e.g. "`posenc/rope.py`: `apply_rope`".
    """
    if not objs:
        raise TypeError("show_source: give at least one function or class")
    blocks, names = [], {}
    for obj in objs:
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            raise TypeError(f"show_source: expected functions or classes, got {type(obj).__name__}")
        code = textwrap.dedent(inspect.getsource(obj))
        if not docstring:
            code = _strip_docstring(code)
        blocks.append(code.rstrip("\n") + "\n")
        names.setdefault(_package_path(obj), []).append(f"`{obj.__qualname__}`")
    title = "; ".join(f"`{path}`: " + ", ".join(found) for path, found in names.items())
    return Source(title + ("" if docstring else " (docstrings omitted)"), "\n\n".join(blocks))


def _as_int(value):
    """An integer answer as ``int``; ``6.9`` is not truncated to 6 (it raises and so stays wrong)."""
    number = int(value)
    if not isinstance(value, str) and number != value:
        raise ValueError(f"{value!r} is not an integer")
    return number


def answer_digest(answer) -> str:
    """The first 16 hex digits of the sha256 of ``repr`` of an integer answer (or a tuple of them)."""
    import hashlib

    key = tuple(_as_int(a) for a in answer) if isinstance(answer, (tuple, list)) else _as_int(answer)
    return hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def check_answer(name: str, answer, digest: str) -> bool:
    """The chapters' exercise self-check: compare an integer answer with a hash of the right one.

    Prints "not answered yet" for ``None``, "correct", or "not yet (...)"; never raises for a wrong
    answer. The right answer is not in the chapter's source, but a hash keeps it out of sight, not
    out of reach (a small integer can be found by trying them all): a self-check, not a test.

    Args:
        name (str): the exercise's name, printed first.
        answer: ``None``, an integer (or an integral float or str), or a tuple/list of them.
        digest (str): :func:`answer_digest` of the right answer.
    """
    if answer is None:
        print(f"{name}: not answered yet")
        return False
    try:
        right = answer_digest(answer) == digest
    except (TypeError, ValueError):
        right = False
    print(f"{name}: " + ("correct" if right else f"not yet ({answer!r} is not the answer)"))
    return right
