"""The package face: __all__ built from the modules, a docstring naming every module, the
numeric core importable without the plotting and widget extras, every import declared."""
import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import posenc

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(p.stem for p in (ROOT / "posenc").glob("*.py") if not p.stem.startswith("_"))


def test_all_is_the_union_of_the_modules_all():
    names = [n for m in posenc._MODULES for n in m.__all__]
    assert posenc.__all__ == names
    assert len(set(names)) == len(names), "a name is exported by two modules"
    assert all(getattr(posenc, n) is getattr(m, n) for m in posenc._MODULES for n in m.__all__)


def test_docstring_lists_every_module():
    listed = set(re.findall(r":mod:`posenc\.(\w+)`", posenc.__doc__))
    assert listed == set(MODULES)


def test_importing_posenc_does_not_import_plotting_or_widgets():
    code = ("import sys, posenc, posenc.lm, posenc.bench; "
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
    return {n for n in names if n not in sys.stdlib_module_names and n != "posenc"}


def test_every_import_is_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dist = {"yaml": "pyyaml", "IPython": "ipython", "matplotlib_inline": "matplotlib-inline", "PIL": "pillow"}

    def declared(reqs):
        return {re.split(r"[<>=!;\[ ]", r)[0].lower() for r in reqs}

    core = declared(project["dependencies"])
    extras = {k: declared(v) for k, v in project["optional-dependencies"].items()}
    assert core == {"torch", "numpy"}
    for path in (ROOT / "posenc").glob("*.py"):
        used = {dist.get(n, n) for n in _third_party_imports(path)}
        allowed = core | (extras["widgets"] if path.stem in ("widgets", "explorer", "_canvas") else set())
        if path.stem == "book":  # the chapters' set-up: the book extra
            allowed = core | extras["widgets"] | extras["book"]
        if path.stem in ("lm", "bench"):
            allowed = core
        assert used <= allowed, (path.name, used - allowed)
    local = {p.stem for folder in ("tests", "scripts", "book/_ext") for p in (ROOT / folder).glob("*.py")}
    test_deps = core | extras["test"] | extras["widgets"] | local
    for path in (ROOT / "tests").glob("*.py"):
        used = {dist.get(n, n) for n in _third_party_imports(path)}
        assert used <= test_deps | {"posenc"}, (path.name, used - test_deps)
    assert "-e .[book,widgets,test]" in (ROOT / "requirements.txt").read_text()
