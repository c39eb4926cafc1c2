"""The package face: __all__ built from the library's packages, a docstring naming every top-level
package, the library and the experiments importable without the plotting and widget extras, every
import declared. (The layers and import cycles: tests/test_layers.py.)"""
import ast
import re
import json
import os
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
MODULES = sorted({p.stem for p in (ROOT / "posenc").glob("*.py") if not p.stem.startswith("_")}
                 | {p.parent.name for p in (ROOT / "posenc").glob("*/__init__.py") if not p.parent.name.startswith("_")})
#: every source file of the package, subpackages included
SOURCES = sorted((ROOT / "posenc").rglob("*.py"))


def test_all_is_the_union_of_the_modules_all():
    names = [n for m in posenc._LIBRARY for n in m.__all__]
    assert posenc.__all__ == names
    assert len(set(names)) == len(names), "a name is exported by two modules"
    assert all(getattr(posenc, n) is getattr(m, n) for m in posenc._LIBRARY for n in m.__all__)
    assert {m.__name__ for m in posenc._LIBRARY} == {"posenc.encodings", "posenc.scaling", "posenc.methods",
                                                    "posenc.attention", "posenc.today"}


def test_docstring_lists_every_module():
    listed = set(re.findall(r":mod:`posenc\.(\w+)`", posenc.__doc__))
    assert listed == set(MODULES)


def test_importing_posenc_does_not_import_plotting_or_widgets():
    code = ("import sys, posenc, posenc.experiments, posenc.measure; "
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'seaborn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


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
    dist = {"yaml": "pyyaml", "IPython": "ipython", "matplotlib_inline": "matplotlib-inline", "PIL": "pillow",
            "tomli": "tomli"}

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

def test_one_version_source_license_and_py_typed():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "posenc.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", posenc.__version__)
    from importlib import metadata

    assert metadata.version("posenc") == posenc.__version__
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project["project"]["license"] == {"text": "MIT"}
    assert license_text.startswith("MIT License") and "Copyright (c) 2026 The posenc authors" in license_text
    assert (ROOT / "posenc" / "py.typed").is_file()
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["posenc"]


def test_python_floor_is_what_the_code_needs():
    """requires-python says 3.10: nothing in the package or the tests needs a newer Python (tomllib
    is 3.11+, so the tests fall back to tomli, which the test extra installs on 3.10)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.10"
    assert any(r.startswith("tomli") and 'python_version < "3.11"' in r for r in project["optional-dependencies"]["test"])
    for folder in ("posenc", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), feature_version=(3, 10))):
                if isinstance(node, ast.ImportFrom) and node.module == "tomllib" or (
                        isinstance(node, ast.Import) and any(a.name == "tomllib" for a in node.names)):
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
                tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
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
            names_proc = any(isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.startswith("/proc")
                             for b in body for c in ast.walk(b))
            if names_proc and isinstance(fn, ast.FunctionDef):
                assert (path.name, fn.name) == ("host.py", "machine"), (path.name, fn.name)
    notebooks = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert "machine()" not in notebooks and "/proc" not in notebooks


def test_every_module_a_chapter_imports_loads_without_resource_or_proc():
    """Dynamically: in a fresh interpreter where ``resource`` cannot be imported and /proc cannot be
    read (scripts/foreign_platform, as on macOS and Windows), every module the chapters import
    imports, and while they import no Unix-only module is imported and no /proc path is opened
    (an audit hook records both)."""
    import importlib.util

    modules = sorted(_chapter_imports())
    assert "posenc.measure" in modules and "posenc.book" in modules
    absent = sorted({m.split(".")[0] for m in modules} - {"posenc"}
                    - {m.split(".")[0] for m in modules if importlib.util.find_spec(m.split(".")[0])})
    if absent:  # e.g. the Colab-like stage, which has no book tooling
        pytest.skip(f"the chapters' packages are not all installed here: {absent}")
    code = (
        "import sys\n"
        "seen = []\n"
        "def hook(event, args):\n"
        "    if event == 'open' and isinstance(args[0], (str, bytes)) and str(args[0]).lstrip(\"b'\").startswith('/proc'):\n"
        "        seen.append(('open', str(args[0])))\n"
        "    if event == 'import' and args[0] in %r:\n"
        "        seen.append(('import', args[0]))\n"
        "sys.addaudithook(hook)\n"
        "import importlib\n"
        "for name in %r:\n"
        "    importlib.import_module(name)\n"
        "print(seen)\n" % (UNIX_ONLY, modules))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "scripts" / "foreign_platform"),
                                                                     os.environ.get("PYTHONPATH")])),
           "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    seen = [s for s in eval(out.stdout.strip().splitlines()[-1])]
    posenc_side = [s for s in seen if s[0] == "open"] + [s for s in seen if s[0] == "import" and s[1] == "resource"]
    assert not posenc_side, posenc_side
