"""Which code made a result: the files an entry module runs, and one hash of their code.

:func:`code_files` starts at an entry module (``"posenc.experiments.passkey"``) and follows its
imports of ``posenc`` code: a module imported as a module is followed whole; a name imported from a
package (``from posenc import MultiHeadAttention``, ``from .. import rope_scaling``) is followed to
the module that defines it, through the packages' re-exports, and that module's imports are followed
in turn. The ``__init__.py`` of every package on the way is included too (importing a module runs
them first), with its own statements only: the re-exports are not followed, so the modules a package
offers and the entry does not use do not count. The resolution reads the sources (nothing is
imported), so it works on a copy of the package too.

:func:`code_hash` hashes that code without what does not change a number: comments, docstrings (and
other bare string statements) and the message arguments of ``raise`` statements. The book's frame
cache and :func:`~posenc.experiments.results.load_results` use the same function.
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from functools import lru_cache
from pathlib import Path

__all__ = ["code_files", "code_hash", "code_record"]

_PACKAGE = __name__.split(".")[0]  # "posenc"
_ROOT = Path(__file__).resolve().parents[1]  # the package's directory
#: The entry of the passkey run, the default of the functions here.
DEFAULT_ENTRY = f"{_PACKAGE}.experiments.passkey"
_REEXPORT_NAMES = {"__all__", "__version__", "_MODULES", "_LIBRARY"}


def code_files(entry: str = DEFAULT_ENTRY, *, root: Path | str | None = None) -> tuple[str, ...]:
    """The files whose code determines what ``entry`` computes, relative to the package's directory.

    Args:
        entry (str): a module of the package, e.g. ``"posenc.experiments.passkey"``.
        root (path, optional): the package's directory (default: this installed one), e.g. a copy of it.

    Returns:
        tuple[str, ...]: sorted POSIX paths such as ``"__init__.py"``, ``"experiments/model.py"``.

    Raises:
        TypeError: ``entry`` is not a str.
        ValueError: ``entry`` does not name a module of the package under ``root``.
    """
    return tuple(sorted(_collect(entry, _root(root))))


def code_record(entry: str = DEFAULT_ENTRY, *, root: Path | str | None = None) -> dict:
    """What a results file records about its code: ``{"entry", "files", "sha256", "file_sha256"}``.

    ``sha256`` is :func:`code_hash`; ``file_sha256`` maps each file of :func:`code_files` to the hash
    of its part, so a stale result can say which files changed.
    """
    root = _root(root)
    chunks = _chunks(entry, root)
    total = hashlib.sha256()
    for chunk in chunks.values():
        total.update(chunk)
    return {
        "entry": entry,
        "files": list(chunks),
        "sha256": total.hexdigest(),
        "file_sha256": {name: hashlib.sha256(chunk).hexdigest() for name, chunk in chunks.items()},
    }


def code_hash(entry: str = DEFAULT_ENTRY, *, root: Path | str | None = None) -> str:
    """SHA-256 of the code of :func:`code_files` of ``entry``, without comments, docstrings and the
    message arguments of ``raise`` statements (editing prose or an error message keeps it; any other
    change to the code changes it). A results file records it; :func:`~posenc.experiments.results.load_results`
    compares it with the installed code's.
    """
    return code_record(entry, root=root)["sha256"]


def _root(root) -> Path:
    if root is None:
        return _ROOT
    if not isinstance(root, (str, Path)):
        raise TypeError(f"root must be a path or None, got {type(root).__name__}")
    return Path(root)


def _chunks(entry: str, root: Path) -> dict[str, bytes]:
    """``{file: "## file\\n<normalised code>\\n" as bytes}`` in sorted order."""
    files = _collect(entry, root)
    chunks = {}
    for name in sorted(files):
        source = (root / name).read_text(encoding="utf-8")
        if files[name] == "init":
            source = _without_reexports(source)
        chunks[name] = f"## {name}\n{_code_only(source)}\n".encode()
    return chunks


def _path(module: str, root: Path) -> tuple[str, bool] | None:
    """The file of ``module`` relative to ``root`` and whether it is a package, or None."""
    parts = module.split(".")
    if parts[0] != _PACKAGE:
        return None
    rel = "/".join(parts[1:])
    if rel and (root / f"{rel}.py").is_file():
        return f"{rel}.py", False
    init = f"{rel}/__init__.py" if rel else "__init__.py"
    return (init, True) if (root / init).is_file() else None


def _found(module: str, root: Path) -> tuple[str, bool]:
    """:func:`_path` of a module known to be under ``root`` (found there before)."""
    found = _path(module, root)
    if found is None:
        raise LookupError(f"{module} has no file under {root}")
    return found


def _end(node: ast.stmt | ast.expr | ast.keyword) -> tuple[int, int]:
    """The end line and column of a parsed node (:func:`ast.parse` sets both on every node)."""
    assert node.end_lineno is not None and node.end_col_offset is not None
    return node.end_lineno, node.end_col_offset


@lru_cache(maxsize=512)
def _parse(path: Path, mtime: float) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _tree(module: str, root: Path) -> ast.Module:
    path = root / _found(module, root)[0]
    return _parse(path, path.stat().st_mtime)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` in ``module`` names, as an absolute name."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _top_statements(body: list) -> list:
    """Module-level statements, including those inside ``if`` / ``try`` / ``with`` blocks."""
    out = []
    for node in body:
        out.append(node)
        for field in ("body", "orelse", "finalbody"):
            if isinstance(node, (ast.If, ast.Try, ast.With)) and getattr(node, field, None):
                out += _top_statements(getattr(node, field))
        for handler in getattr(node, "handlers", []) if isinstance(node, ast.Try) else []:
            out += _top_statements(handler.body)
    return out


def _resolve(module: str, name: str, root: Path, depth: int = 0) -> str:
    """The module that defines ``name`` as seen from ``module`` (following re-exports); a submodule
    ``module.name`` if there is one; ``module`` itself where the name's origin cannot be read."""
    found = _path(module, root)
    if found is None or depth > 50:
        return module
    if _path(f"{module}.{name}", root) is not None:
        return f"{module}.{name}"
    is_package = found[1]
    stars = []
    for node in _top_statements(_tree(module, root).body):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(module, is_package, node)
            for alias in node.names:
                if alias.name == "*":
                    stars.append(source)
                elif (alias.asname or alias.name) == name:
                    return _resolve(source, alias.name, root, depth + 1) if _path(source, root) else module
        elif name in _defined(node):
            return module
    for source in stars:
        target = _resolve(source, name, root, depth + 1)
        if target != source or name in _names_defined(source, root):
            return target
    return module


def _defined(node: ast.stmt) -> set[str]:
    """Names a module-level statement binds (other than ``from ... import``)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Import):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def _names_defined(module: str, root: Path) -> set[str]:
    if _path(module, root) is None:
        return set()
    return {n for node in _top_statements(_tree(module, root).body) for n in _defined(node)}


def _collect(entry: str, root: Path) -> dict[str, str]:
    """``{file: "module" or "init"}``: modules hashed whole, package ``__init__`` files on the way."""
    if not isinstance(entry, str):
        raise TypeError(f"entry must be a module name (str), got {type(entry).__name__}")
    if _path(entry, root) is None:
        raise ValueError(
            f"entry must name a module of the {_PACKAGE} package, e.g. {DEFAULT_ENTRY!r}, "
            f"got {entry!r} (not found under {root})"
        )
    files: dict[str, str] = {}
    seen: set[str] = set()
    todo = [entry]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        rel, is_package = _found(module, root)
        files[rel] = "module"
        parts = module.split(".")
        for i in range(1, len(parts)):  # the packages on the way
            files.setdefault(_found(".".join(parts[:i]), root)[0], "init")
        for node in ast.walk(_tree(module, root)):
            if isinstance(node, ast.Import):
                todo += [a.name for a in node.names if a.name.startswith(_PACKAGE + ".") and _path(a.name, root)]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module, is_package, node)
                if _path(source, root) is None:
                    continue
                for alias in node.names:
                    target = source if alias.name == "*" else _resolve(source, alias.name, root)
                    target_rel, target_is_package = _found(target, root)
                    if target_is_package and _path(f"{source}.{alias.name}", root) is None and alias.name != "*":
                        # a name defined in a package's __init__: its statements, not its re-exports
                        parts = target.split(".")
                        for i in range(1, len(parts) + 1):
                            files.setdefault(_found(".".join(parts[:i]), root)[0], "init")
                    else:
                        todo.append(target)
    return files


def _without_reexports(source: str) -> str:
    """A package's ``__init__.py`` without what only names things for the reader: imports of the
    package's own modules (those the entry uses are hashed themselves) and the assignments of
    ``_REEXPORT_NAMES`` (``__all__``, ``__version__``, the tuple of modules it lists). Every other
    statement (a global setting, an import of another package) stays."""
    lines = source.replace("\r\n", "\n").split("\n")
    drop: set[int] = set()
    for node in ast.parse(source).body:
        names = {t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)}
        if isinstance(node, ast.ImportFrom):
            own = node.level > 0 or (node.module or "").split(".")[0] == _PACKAGE
        else:
            own = isinstance(node, ast.Import) and all(a.name.split(".")[0] == _PACKAGE for a in node.names)
        if own or (isinstance(node, ast.Assign) and names and names <= _REEXPORT_NAMES):
            drop.update(range(node.lineno, _end(node)[0] + 1))
    return "\n".join(line for i, line in enumerate(lines, 1) if i not in drop)


def _code_only(source: str) -> str:
    """``source`` without comments, docstrings and other bare string statements, the message
    arguments of ``raise`` statements, blank lines and trailing spaces.

    Spans are cut from the text itself (positions from :mod:`ast` and :mod:`tokenize`), so the result
    does not depend on how a Python version prints or tokenizes code.
    """
    source = source.replace("\r\n", "\n")
    lines = source.split("\n")
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line.encode()) + 1
    raw = bytearray(source.encode())
    keep = bytearray(b"\x01") * len(raw)

    def cut(line0: int, col0: int, line1: int, col1: int) -> None:  # 1-based lines, byte columns
        keep[starts[line0 - 1] + col0 : starts[line1 - 1] + col1] = b"\x00" * (
            starts[line1 - 1] + col1 - starts[line0 - 1] - col0
        )

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            cut(node.lineno, node.col_offset, *_end(node))
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            args: list[ast.expr | ast.keyword] = [*node.exc.args, *node.exc.keywords]
            if args:
                first = min(args, key=lambda a: (a.lineno, a.col_offset))
                last = max(args, key=_end)
                cut(first.lineno, first.col_offset, *_end(last))
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            (row, col), (row1, col1) = tok.start, tok.end
            text = lines[row - 1]
            cut(row, len(text[:col].encode()), row1, len(lines[row1 - 1][:col1].encode()))
    kept = bytes(b for b, k in zip(raw, keep) if k).decode()
    return "\n".join(line.rstrip() for line in kept.split("\n") if line.strip())
