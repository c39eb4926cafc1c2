"""The package face: __all__ built from the library's packages, a docstring naming every top-level
package, the library and the experiments importable without the plotting and widget extras, every
import declared. (The layers and import cycles: tests/test_layers.py.)"""

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import posenc

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (the floor pyproject.toml declares): the same parser, from PyPI (the test extra)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
#: the package's top-level modules and subpackages (not the private _core)
MODULES = sorted(
    {p.stem for p in (ROOT / "posenc").glob("*.py") if not p.stem.startswith("_")}
    | {p.parent.name for p in (ROOT / "posenc").glob("*/__init__.py") if not p.parent.name.startswith("_")}
)
#: every source file of the package, subpackages included
SOURCES = sorted((ROOT / "posenc").rglob("*.py"))


def test_all_is_the_union_of_the_modules_all():
    names = [n for m in posenc._LIBRARY for n in m.__all__]
    assert posenc.__all__ == names
    assert len(set(names)) == len(names), "a name is exported by two modules"
    assert all(getattr(posenc, n) is getattr(m, n) for m in posenc._LIBRARY for n in m.__all__)
    assert {m.__name__ for m in posenc._LIBRARY} == {
        "posenc.encodings",
        "posenc.scaling",
        "posenc.methods",
        "posenc.attention",
        "posenc.today",
    }


#: every package's __init__ that declares the package's public names
INITS = sorted(p for p in (ROOT / "posenc").rglob("__init__.py") if "__all__" in p.read_text(encoding="utf-8"))


def _bound_names(tree: ast.Module) -> set[str]:
    """Names an ``__init__`` binds by name at its top level: imports (not star imports), definitions, assignments."""
    bound = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        else:
            bound |= set(_assigned_names(node))
    return bound


def _assigned_names(node: ast.stmt) -> list[str]:
    """The plain names a statement assigns to (``x = ...``, ``x += ...``, ``x: T = ...``)."""
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return [t.id for t in targets if isinstance(t, ast.Name)]


@pytest.mark.parametrize("init", INITS, ids=lambda p: ".".join(p.parent.relative_to(ROOT).parts))
def test_a_package_spells_out_its_public_names(init):
    """A type checker sees a package's public names only in a literal ``__all__`` whose names the ``__init__``
    imports by name: a computed list or a star import hides them (mypy then reports ``Module "posenc" has no
    attribute ...`` at every ``from posenc import ...``, in posenc's tooling and in a user's code, which
    ``py.typed`` invites to type-check against posenc). The modules a package imports by name (``from . import
    cache, mrope``) are re-exported whole, so a name added to one of them and not to its package fails here."""
    import importlib

    name = ".".join(init.parent.relative_to(ROOT).parts)
    package = importlib.import_module(name)
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assigned = [node for node in tree.body if "__all__" in _assigned_names(node)]
    assert len(assigned) == 1, f"{name}: __all__ is assigned {len(assigned)} times"
    value = assigned[0].value
    assert isinstance(value, ast.List) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
    ), f"{name}: __all__ is computed, not a list of strings"
    listed = [e.value for e in value.elts]
    assert listed == package.__all__
    assert len(set(listed)) == len(listed), f"{name}: a name is listed twice"
    stars = [node.module for node in tree.body if isinstance(node, ast.ImportFrom) and node.names[0].name == "*"]
    assert not stars, f"{name}: star imports from {stars}"
    assert not set(listed) - _bound_names(tree), f"{name}: listed but not imported by name"
    assert all(hasattr(package, n) for n in listed)
    whole = [
        a.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 1 and not node.module
        for a in node.names
    ]
    for module in whole:
        missing = set(importlib.import_module(f"{name}.{module}").__all__) - set(listed)
        assert not missing, f"{name}.{module} exports {sorted(missing)}, which {name}.__all__ leaves out"


def test_docstring_lists_every_module():
    listed = set(re.findall(r":mod:`posenc\.(\w+)`", posenc.__doc__))
    assert listed == set(MODULES)


def test_importing_posenc_does_not_import_plotting_or_widgets(fresh_imports):
    """In a fresh interpreter (the one of ``fresh_imports``), importing the library, the experiments and
    the measurements loads none of matplotlib, ipywidgets and seaborn."""
    failed = "the fresh interpreter failed before it imported posenc:\n" + fresh_imports["stderr"]
    assert "plotting" in fresh_imports, failed
    assert fresh_imports["plotting"] == [], f"importing {LIBRARY_ONLY} loaded {fresh_imports['plotting']}"


def _third_party_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("posenc", "tomllib")}


def test_every_import_is_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dist = {
        "yaml": "pyyaml",
        "IPython": "ipython",
        "matplotlib_inline": "matplotlib-inline",
        "PIL": "pillow",
        "tomli": "tomli",
    }

    def declared(reqs):
        return {re.split(r"[<>=!;\[ ]", r)[0].lower() for r in reqs}

    core = declared(project["dependencies"])
    extras = {k: declared(v) for k, v in project["optional-dependencies"].items()}
    assert core == {"torch", "numpy"}
    for path in SOURCES:
        part = path.relative_to(ROOT / "posenc").parts[0]
        used = {dist.get(n, n) for n in _third_party_imports(path)}
        allowed = core | (extras["widgets"] if part == "explorers" else set())
        if part == "book":  # the chapters' set-up: the book extra
            allowed = core | extras["widgets"] | extras["book"]
        assert used <= allowed, (str(path.relative_to(ROOT)), used - allowed)
    local = {p.stem for folder in ("tests", "scripts", "book/_ext") for p in (ROOT / folder).glob("*.py")}
    test_deps = core | extras["test"] | extras["widgets"] | local
    for path in (ROOT / "tests").glob("*.py"):
        used = {dist.get(n, n) for n in _third_party_imports(path)}
        assert used <= test_deps | {"posenc"}, (path.name, used - test_deps)
    assert "-e .[book,widgets,test]" in (ROOT / "requirements.txt").read_text()


# ---- one version, a license, type information --------------------------------------------------


def _requirement(text: str) -> tuple:
    """``name[extras]>=1,<2; marker`` as (name, extras, specifiers, marker) with order and spacing ignored,
    the marker without its ``extra == "..."`` clause, and that extra (or None)."""
    req, _, marker = text.partition(";")
    match = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*(.*?)\s*", req)
    name, extras, spec = match.groups()
    extra = re.search(r'extra\s*==\s*"([^"]+)"', marker)
    marker = re.sub(r'\s*(and\s+)?extra\s*==\s*"[^"]+"', "", marker).strip()
    return (
        name.lower().replace("_", "-"),
        extras or "",
        frozenset(p.replace(" ", "") for p in spec.split(",") if p),
        marker.replace(" ", ""),
        extra[1] if extra else None,
    )


def test_installed_metadata_is_the_pyproject():
    """What pip installed (the metadata setuptools made of pyproject.toml) is what pyproject.toml says now:
    a dependency or extra added to one and not the other, or a stale install, fails here (reinstall with
    ``pip install -e .``)."""
    from importlib import metadata

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    meta = metadata.metadata("posenc")
    assert meta["Name"] == project["name"]
    assert meta["Version"] == posenc.__version__  # the dynamic version, read from posenc/__init__.py
    assert meta["Summary"] == project["description"]
    assert meta["Requires-Python"] == project["requires-python"]
    declared = {_requirement(r) for r in project["dependencies"]}
    declared |= {
        _requirement(f'{r}{" and " if ";" in r else "; "}extra == "{extra}"')
        for extra, reqs in project["optional-dependencies"].items()
        for r in reqs
    }
    assert {_requirement(r) for r in metadata.requires("posenc")} == declared
    assert set(meta.get_all("Provides-Extra")) == set(project["optional-dependencies"])


def test_the_license_file_is_the_license_the_metadata_names():
    """The installed metadata names a license and a license file; that file is in the repository, its
    title is that license, and it holds the license's grant (MIT's permission notice)."""
    from importlib import metadata

    meta = metadata.metadata("posenc")
    files = meta.get_all("License-File") or []
    assert files, "the metadata names no license file"
    for name in files:
        text = (ROOT / name).read_text(encoding="utf-8")
        assert text.splitlines()[0] == f"{meta['License']} License", (name, meta["License"])
    assert meta["License"] == "MIT"  # the grant below is MIT's
    text = (ROOT / files[0]).read_text(encoding="utf-8")
    assert "Permission is hereby granted, free of charge, to any person obtaining a copy" in text
    assert re.search(r"^Copyright \(c\) \d{4} \S", text, flags=re.M), "no copyright line"


def test_py_typed_ships_with_the_package():
    """PEP 561: the marker file exists and setuptools' package data includes it (a pattern that matches it)."""
    import fnmatch

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert (ROOT / "posenc" / "py.typed").is_file()
    patterns = project["tool"]["setuptools"]["package-data"]["posenc"]
    assert any(fnmatch.fnmatch("py.typed", pattern) for pattern in patterns)


def test_python_floor_is_what_the_code_needs():
    """requires-python says 3.10: nothing in the package or the tests needs a newer Python (tomllib
    is 3.11+, so the tests fall back to tomli, which the test extra installs on 3.10)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.10"
    assert any(
        r.startswith("tomli") and 'python_version < "3.11"' in r for r in project["optional-dependencies"]["test"]
    )
    for folder in ("posenc", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), feature_version=(3, 10))):
                if (
                    isinstance(node, ast.ImportFrom)
                    and node.module == "tomllib"
                    or (isinstance(node, ast.Import) and any(a.name == "tomllib" for a in node.names))
                ):
                    assert path.name == "test_package.py", f"{path.name} imports tomllib (3.11+)"


# ---- portability: nothing Unix-only on a chapter's path -------------------------------------

#: Modules that exist on Linux and macOS but not on Windows (a chapter must not need them).
UNIX_ONLY = {"resource", "fcntl", "termios", "tty", "pty", "pwd", "grp", "posix", "crypt", "spwd", "nis", "syslog"}


def _chapter_imports() -> set[str]:
    """Every module a chapter's code cells import (``import x.y``, ``from x.y import z``)."""
    modules = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            try:
                tree = ast.parse(
                    "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
                )
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules |= {a.name for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module)
    return {m for m in modules if not m.startswith("google")}  # the Colab set-up cell's own import


def test_no_posenc_module_imports_a_unix_only_module_or_reads_proc():
    """Statically: no module of the package imports a Unix-only module, and only
    ``posenc.measure.machine`` (benchmark scripts, never a chapter) names ``/proc``, behind a Linux check
    with a fallback."""
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not imported & UNIX_ONLY, (path.name, imported & UNIX_ONLY)
        for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Module))]:
            body = fn.body if isinstance(fn, ast.Module) else [fn]
            names_proc = any(
                isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.startswith("/proc")
                for b in body
                for c in ast.walk(b)
            )
            if names_proc and isinstance(fn, ast.FunctionDef):
                assert (path.name, fn.name) == ("host.py", "machine"), (path.name, fn.name)
    notebooks = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert "machine()" not in notebooks and "/proc" not in notebooks


#: what the fresh interpreter of ``fresh_imports`` imports first: the library, the experiments and the
#: measurements (all three among the modules the chapters import)
LIBRARY_ONLY = ("posenc", "posenc.experiments", "posenc.measure")


@pytest.fixture(scope="module")
def fresh_imports():
    """One fresh interpreter for the two import tests (each start of one costs about 3.5 CPU-s), where
    ``resource`` cannot be imported and /proc cannot be read (scripts/foreign_platform, as on macOS and
    Windows), and an audit hook records, from its start, every Unix-only module imported and every /proc
    path opened. It imports LIBRARY_ONLY and records which plotting and widget modules are loaded then;
    then every module the chapters import (LIBRARY_ONLY among them), in order. Returns ``plotting`` (once
    LIBRARY_ONLY is imported), ``seen`` (once every module is), ``absent`` (the chapters' packages not
    installed here: then only LIBRARY_ONLY is imported), ``returncode`` and ``stderr``."""
    import importlib.util

    modules = sorted(_chapter_imports())
    assert set(LIBRARY_ONLY) <= set(modules) and "posenc.book" in modules
    absent = sorted(
        {m.split(".")[0] for m in modules}
        - {"posenc"}
        - {m.split(".")[0] for m in modules if importlib.util.find_spec(m.split(".")[0])}
    )
    code = (
        "import sys\n"
        "seen = []\n"
        "def hook(event, args):\n"
        "    if event == 'open' and isinstance(args[0], (str, bytes)) and (\n"
        "        str(args[0]).lstrip(\"b'\").startswith('/proc')\n"
        "    ):\n"
        "        seen.append(('open', str(args[0])))\n"
        f"    if event == 'import' and args[0] in {UNIX_ONLY!r}:\n"
        "        seen.append(('import', args[0]))\n"
        "sys.addaudithook(hook)\n"
        "import importlib\n"
        f"for name in {LIBRARY_ONLY!r}:\n"
        "    importlib.import_module(name)\n"
        "plotting = sorted(m for m in ('matplotlib', 'ipywidgets', 'seaborn') if m in sys.modules)\n"
        "print('plotting', plotting, flush=True)\n"
        f"for name in {[] if absent else modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print('seen', seen)\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(ROOT / "scripts" / "foreign_platform"), os.environ.get("PYTHONPATH")])
        ),
        "MPLBACKEND": "Agg",
    }
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    result = {"absent": absent, "returncode": out.returncode, "stderr": out.stderr[-3000:]}
    for line in out.stdout.splitlines():
        tag, _, value = line.partition(" ")
        if tag in ("plotting", "seen"):
            result[tag] = eval(value)
    return result


def test_every_module_a_chapter_imports_loads_without_resource_or_proc(fresh_imports):
    """Dynamically: in a fresh interpreter where ``resource`` cannot be imported and /proc cannot be
    read (scripts/foreign_platform, as on macOS and Windows), every module the chapters import
    imports, and while they import no Unix-only module is imported and no /proc path is opened
    (an audit hook records both; the interpreter of ``fresh_imports``)."""
    if fresh_imports["absent"]:  # e.g. the Colab-like stage, which has no book tooling
        pytest.skip(f"the chapters' packages are not all installed here: {fresh_imports['absent']}")
    assert fresh_imports["returncode"] == 0, fresh_imports["stderr"]
    seen = fresh_imports["seen"]
    posenc_side = [s for s in seen if s[0] == "open"] + [s for s in seen if s[0] == "import" and s[1] == "resource"]
    assert not posenc_side, posenc_side


# ---- docs that resolve: every cross-reference names code that exists ------------------------------

#: a Python role in a docstring or an rst block: :func:`name`, :meth:`~a.B.c`, :class:`title <a.B>`
RST_ROLE = re.compile(r":(?:py:)?(mod|func|class|meth|data|attr|obj|exc|const):`(?:[^`<]*<)?[~!]?\.?([\w.]+)>?`")
#: the same role in MyST markdown: {func}`name`
MYST_ROLE = re.compile(r"\{(?:py:)?(mod|func|class|meth|data|attr|obj|exc|const)\}`(?:[^`<]*<)?[~!]?\.?([\w.]+)>?`")
#: an autodoc directive's target
AUTODOC = re.compile(r"\.\. auto(?:module|class|function|data|attribute|method)::\s*([\w.]+)")


def _extension():
    # The book's Sphinx extension needs the book toolchain (docutils, Sphinx): installed by the project's
    # venv, where these tests run (`make unit`), but not in the Colab-like environment, which installs
    # only the package and its `widgets` extra.
    pytest.importorskip("docutils", reason="the book toolchain (docutils) is not installed here")
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import posenc_book

    return posenc_book


def _references():
    """(where, target, module, class) of every Python cross-reference in the package's source (docstrings
    and ``#:`` comments; module and enclosing class as Sphinx sees them) and in the book's pages."""
    found = []
    for path in SOURCES:
        if path.name == "__main__.py":
            continue
        text = path.read_text(encoding="utf-8")
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        classes = [(n.lineno, n.end_lineno, n.name) for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ClassDef)]
        for match in RST_ROLE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            inside = [name for start, end, name in classes if start <= line <= end]
            found.append((f"{path.relative_to(ROOT)}:{line}", match[2], module, inside[-1] if inside else None))
    for path in sorted((ROOT / "book").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for pattern in (RST_ROLE, MYST_ROLE, AUTODOC):
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append((f"{path.relative_to(ROOT)}:{line}", match[match.lastindex], None, None))
    return found


def test_every_cross_reference_names_code_that_exists():
    """Each :mod:/:func:/:class:/... reference in a docstring or a book page imports, from its module (or
    a package above it) or as written: a reference to a module that was renamed or removed fails here
    and in the strict book build (book/_ext/posenc_book.py resolves by the same rule)."""
    ext = _extension()
    references = _references()
    assert len(references) > 300  # the scan found the references
    stale = [
        f"{where}: {target}"
        for where, target, module, cls in references
        if ext.resolve_by_import(target, module, cls) is None
    ]
    assert not stale, "stale cross-references:\n" + "\n".join(stale)


def test_the_book_extension_resolves_only_what_imports():
    """The strict build's fallback links a reference to the one documented object it imports as, under
    any exported path, and leaves a stale or undocumented one unresolved (a warning, so -W fails)."""
    ext = _extension()
    documented = [
        "posenc.encodings.rope.apply_rope",
        "posenc.encodings.rope",
        "posenc.scaling.config.RopeScaling",
        "posenc.scaling.config.RopeScaling.from_hf",
        "posenc.encodings.frequencies.DEFAULT_BASE",
    ]
    assert ext.documented_target("posenc.apply_rope", documented) == "posenc.encodings.rope.apply_rope"
    assert ext.documented_target("apply_rope", documented, "posenc.today.mrope") == "posenc.encodings.rope.apply_rope"
    assert ext.documented_target("rope", documented, "posenc.encodings") == "posenc.encodings.rope"
    assert (
        ext.documented_target("from_hf", documented, "posenc.scaling.config", "RopeScaling")
        == "posenc.scaling.config.RopeScaling.from_hf"
    )
    assert (
        ext.documented_target("posenc.RopeScaling.from_hf", documented) == "posenc.scaling.config.RopeScaling.from_hf"
    )
    assert (
        ext.documented_target("DEFAULT_BASE", documented, "posenc._core.freq")
        == "posenc.encodings.frequencies.DEFAULT_BASE"
    )
    # stale: the module is gone, though an object of that name exists elsewhere (the old suffix rule linked it)
    assert ext.documented_target("posenc.rope.apply_rope", documented) is None
    assert ext.documented_target("posenc.rope_forms", documented) is None
    # imports, but not documented on the API page
    assert ext.documented_target("posenc.rope_cos_sin", documented) is None
    assert ext.resolve_by_import("posenc.rope_cos_sin") == "posenc.rope_cos_sin"
