"""Show the code that runs: ``show_source(fn)`` prints the body of a ``posenc`` function as a
Python code block, read from the module that the kernel imported. :class:`Collapsed` shows printed
lines (a full table beside a cell's one-line verdict) in a block that starts collapsed."""

from __future__ import annotations

import ast
import html
import inspect
import re
import textwrap
from pathlib import Path

__all__ = ["Collapsed", "Source", "show_source"]

#: The folder of the ``posenc`` package (the parent of this subpackage): paths are shown from it.
_PACKAGE = Path(__file__).resolve().parents[1]


def _details(title: str, block: str) -> str:
    """Markdown for an HTML ``<details>`` block headed by ``title`` (backticks shown as code): it
    starts collapsed in JupyterLab, Colab, GitHub and the HTML book alike."""
    summary = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(title, quote=False))
    return f"<details><summary>{summary}</summary>\n\n{block}\n</details>\n"


class Collapsed:
    """Lines of text shown in a collapsed block headed by ``summary`` (markdown), and as plain text
    elsewhere: the evidence a cell prints beside its one-line verdict.

    Args:
        summary (str): the block's title.
        lines (list[str]): the lines it holds, e.g. the rows of a table.
    """

    def __init__(self, summary: str, lines: list[str]):
        if not isinstance(summary, str):
            raise TypeError(f"summary must be a str, got {type(summary).__name__}")
        if isinstance(lines, str) or not all(isinstance(line, str) for line in lines):
            raise TypeError("lines must be a list of str (one per line), not a single str")
        self.summary, self.text = summary, "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return _details(self.summary, f"```text\n{self.text}\n```\n")

    def __repr__(self) -> str:
        return f"{self.summary}\n\n{self.text}"


class Source:
    """A function's source, shown as a fenced Python block (markdown) in JupyterLab, Colab and the
    HTML book, and as plain text elsewhere."""

    def __init__(self, title: str, code: str, *, collapsed: bool = False):
        for name, value in (("title", title), ("code", code)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {type(value).__name__}")
        if not isinstance(collapsed, bool):
            raise TypeError(f"collapsed must be a bool, got {type(collapsed).__name__}")
        self.title = title
        self.code = code
        self.collapsed = collapsed

    def _repr_markdown_(self) -> str:
        block = f"```python\n{self.code}```\n"
        return _details(self.title, block) if self.collapsed else f"{self.title}\n\n{block}"

    def __repr__(self) -> str:
        return f"{self.title}\n\n{self.code}"


def _package_path(obj) -> str:
    """``posenc/encodings/rope.py`` for a function defined in posenc/encodings/rope.py; the file
    name alone for code outside the package."""
    source = inspect.getsourcefile(obj)
    if source is None:  # no file to name (show_source has read the code from the line cache)
        return obj.__module__
    path = Path(source).resolve()
    try:
        return (Path(_PACKAGE.name) / path.relative_to(_PACKAGE)).as_posix()
    except ValueError:
        return path.name


def _strip_docstring(code: str) -> str:
    tree = ast.parse(code)
    node = tree.body[0]
    body = getattr(node, "body", None)
    doc = body[0] if body else None
    if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)):
        return code
    lines = code.splitlines(keepends=True)
    first, last = doc.lineno - 1, doc.end_lineno  # 0-based start, exclusive end
    return "".join(lines[:first] + lines[last:])


def show_source(*objs, docstring: bool = False, collapsed: bool = False) -> Source:
    """The source of posenc functions or classes, read from the files the kernel imported.

    Args:
        objs: one or more functions or classes (e.g. ``posenc.apply_rope``), shown in this order.
        docstring (bool): keep the docstrings (default: drop them; the chapter's prose explains).
        collapsed (bool): show it as a collapsed ``<details>`` block headed by the title (for a
            listing that is evidence rather than the main line).

    Returns:
        A :class:`Source`; as a cell's last expression it shows as one highlighted code block
        headed by the files and the names, e.g. "`posenc/encodings/rope.py`: `apply_rope`".
    """
    if not objs:
        raise TypeError("show_source: give at least one function or class (objs)")
    if not isinstance(docstring, bool):
        raise TypeError(f"docstring must be a bool, got {type(docstring).__name__}")
    blocks: list[str] = []
    names: dict[str, list[str]] = {}  # file -> the names shown from it
    for obj in objs:
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            raise TypeError(f"show_source: objs must be functions or classes, got {type(obj).__name__}")
        code = textwrap.dedent(inspect.getsource(obj))
        if not docstring:
            code = _strip_docstring(code)
        blocks.append(code.rstrip("\n") + "\n")
        names.setdefault(_package_path(obj), []).append(f"`{obj.__qualname__}`")
    title = "; ".join(f"`{path}`: " + ", ".join(found) for path, found in names.items())
    return Source(title + ("" if docstring else " (docstrings omitted)"), "\n\n".join(blocks), collapsed=collapsed)
