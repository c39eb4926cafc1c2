"""Every public callable, of the library and of the tooling, has a bad-input case, and every case holds.

A bad-input case is an entry ``(call, exception, text)`` of a module-level list, in a ``tests/test_*.py``
file, whose name ends in ``BAD_CALLS`` or ``BAD_INPUTS``: ``call()`` (a lambda) must raise
``exception`` (a ``ValueError`` or ``TypeError``, the errors of the project's validation) with
``text``, the argument the caller passed, in its message.

- A public name is covered when ``NAME(`` (or ``.NAME(``) occurs in the source of some case's
  lambda. A name that two packages export as different objects (``load_results``) must be called
  through its package (``measure.load_results(``).
- The public names are the callables of ``posenc.__all__`` (the library) and of the tooling
  packages' ``__all__``: :mod:`posenc.experiments`, :mod:`posenc.measure`, :mod:`posenc.explorers`,
  :mod:`posenc.book`, :mod:`posenc.practice`. Constants and registries are not callable; the few
  callables that take no argument are listed in :data:`TAKE_NO_ARGUMENT`, checked to be so, and the
  tooling's callables that validate nothing yet in :data:`NOT_VALIDATED_YET` (gaps, kept visible).
- Every case of every list is run here too, so a list entry cannot rot where its own file's test
  is skipped or its message drifts.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
SUFFIXES = ("BAD_CALLS", "BAD_INPUTS")
PACKAGES = ("posenc", "posenc.experiments", "posenc.measure", "posenc.explorers", "posenc.book", "posenc.practice")

#: Public callables that take no argument, so no argument can be bad (checked below to be so).
TAKE_NO_ARGUMENT = {
    "NoPEMethod",  # no position information: nothing to configure
    "PositionMethod",  # the interface: its hooks are called by MultiHeadAttention, which checks their input
    "CachedBias",  # the base of the cached distance biases: nothing to configure
    "get_max_tensor_bytes",  # reads the size limit in force
    "load_shakespeare",  # reads the bundled file
    "TensorMemory",  # a context manager that counts allocations
    "reset_peak_rss",
    "current_rss_mib",
    "peak_rss_mib",  # read the process's memory
    "machine",
    "load_average",  # describe the host
    "known_results",  # lists the saved benchmark files
    "Plot",  # the explorers' plot base class
}

#: Public tooling callables that take arguments but refuse no bad value yet (only Python's own "missing
#: argument"): each is a gap to close in the tooling's source, named here so that it stays visible.
#: A name leaves this list when a case for it is added (checked below).
NOT_VALIDATED_YET: dict[str, str] = {}


def _lists_in(path: Path) -> dict[str, list[str]]:
    """``{list name: [source text of each case's lambda]}`` for the bad-input lists of one test file.

    ``NAME = [...]`` and ``NAME += [...]`` both count; an entry that is not a literal
    ``(lambda ..., exc, text)`` tuple (a comprehension, a starred list) contributes its whole text.
    """
    text = path.read_text(encoding="utf-8")
    segment = _segments(text)
    found: dict[str, list[str]] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not (isinstance(target, ast.Name) and target.id.endswith(SUFFIXES)):
            continue
        sources = found.setdefault(target.id, [])
        elements = value.elts if isinstance(value, ast.List) else [value]
        for element in elements:
            if isinstance(element, ast.Tuple) and element.elts and isinstance(element.elts[0], ast.Lambda):
                element = element.elts[0]
            sources.append(segment(element))
    return found


def _segments(text: str):
    """``ast.get_source_segment(text, node)`` as a function of ``node``, with the file split into lines
    once: the stdlib splits the whole file again for every node (2.8 s of CPU per pytest process over
    the ~700 cases). Offsets are in UTF-8 bytes, as the parser gives them."""
    data = text.encode("utf-8")
    assert b"\r" not in data  # line starts below are after "\n" only, as the parser counts them here
    starts = [0, *(m.end() for m in re.finditer(b"\n", data))]

    def segment(node: ast.expr) -> str:
        begin = starts[node.lineno - 1] + node.col_offset
        return data[begin : starts[node.end_lineno - 1] + node.end_col_offset].decode("utf-8")

    return segment


def _collect() -> tuple[dict[str, list[str]], list[tuple[str, object, object, str]]]:
    """The lambdas' source per ``file:list``, and every case as ``(id, call, exception, text)``."""
    if str(TESTS) not in sys.path:  # pytest puts it there (rootdir-less "prepend" import mode)
        sys.path.insert(0, str(TESTS))
    sources, cases = {}, []
    for path in sorted(TESTS.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        lists = _lists_in(path)
        if not lists:
            continue
        module = importlib.import_module(path.stem)  # the module pytest itself imports (same name)
        for name, texts in lists.items():
            key = f"{path.stem}.{name}"
            sources[key] = texts
            entries = getattr(module, name)
            for i, entry in enumerate(entries):
                call, exc, text = entry
                cases.append((f"{key}[{i}]", call, exc, text))
    return sources, cases


SOURCES, CASES = _collect()


def _public() -> dict[str, list[tuple[str, object]]]:
    """``{name: [(package, object), ...]}`` for every public callable of the library and the tooling."""
    public: dict[str, list[tuple[str, object]]] = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj):  # functions (cached ones too) and classes; constants are not callable
                public.setdefault(name, []).append((package, obj))
    return public


def _called(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}\(", text) is not None


def test_the_lists_are_found():
    assert {
        "test_validation.BAD_CALLS",
        "test_linear.LINEAR_BAD_CALLS",
        "test_bad_input_tooling.EXPERIMENTS_BAD_CALLS",
    } <= set(SOURCES)
    assert all(SOURCES.values()), "an empty bad-input list"


def test_every_public_callable_has_a_bad_input_case():
    text = "\n".join(t for texts in SOURCES.values() for t in texts)
    missing = []
    for name, owners in sorted(_public().items()):
        if name in TAKE_NO_ARGUMENT or name in NOT_VALIDATED_YET:
            continue
        distinct = {id(obj) for _, obj in owners}
        if len(distinct) == 1:
            if not _called(name, text):
                missing.append(f"{owners[0][0]}.{name}")
        else:  # one name, several objects: each called through its own package
            missing += [
                f"{package}.{name}" for package, _ in owners if f"{package.rsplit('.', 1)[-1]}.{name}(" not in text
            ]
    assert missing == [], f"public callables without a bad-input case: {missing}"


def test_the_known_gaps_are_public_and_still_without_a_case():
    public = _public()
    text = "\n".join(t for texts in SOURCES.values() for t in texts)
    for name in sorted(NOT_VALIDATED_YET):
        assert name in public, f"{name} is not a public callable any more: drop it from NOT_VALIDATED_YET"
        assert not _called(name, text), f"{name} has a bad-input case now: drop it from NOT_VALIDATED_YET"


def test_the_skip_list_holds_only_public_callables_without_arguments():
    public = _public()
    for name in sorted(TAKE_NO_ARGUMENT):
        assert name in public, f"{name} is not a public callable any more: drop it from TAKE_NO_ARGUMENT"
        for _, obj in public[name]:
            params = inspect.signature(obj).parameters.values()
            required = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            assert required == [], f"{name} takes {required}: it needs a bad-input case, not a skip"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_case_raises_its_error_naming_the_argument(case):
    _, call, exc, text = case
    exceptions = exc if isinstance(exc, tuple) else (exc,)
    assert exceptions and all(issubclass(e, (ValueError, TypeError)) for e in exceptions), (
        f"a bad-input case expects a ValueError or TypeError, not {exc}"
    )
    assert isinstance(text, str) and text, "a bad-input case names the argument (a non-empty text)"
    with pytest.raises(exc) as info:
        call()
    assert text in str(info.value)
