"""The package's two layers, and no import cycles.

- Every module imports on its own: for each one, a fresh copy of the package (every ``posenc``
  module dropped from ``sys.modules``) imports just that module, in one child interpreter that has
  imported torch and numpy once. A cycle ("partially initialized module") depends only on the
  order in which posenc's own modules run, so this finds the same failures as one fresh
  interpreter per module, at a twentieth of the cost. Python imports a module's package first and
  then, if that import has already put the module in ``sys.modules``, runs nothing more: such a
  module's fresh import runs exactly what its package's fresh import ran, so it is not run again
  (8 fresh imports instead of 90 today, the same failures found).
- The library (encodings, scaling, methods, attention, today, _core) imports nothing of the tooling.
- No module of the library imports a private (underscore) name from another module.
- The tooling (explorers, experiments, measure, book, practice) reaches the library through the names
  ``posenc`` exports, plus the shared validation helpers of ``posenc._core.validate``.
- The layout rule of the package docstring: encodings (an encoding's math) import nothing from methods
  or attention and define no position method; methods holds one registered ``PositionMethod`` per
  module and nothing else public (besides its interface and registry); today holds one mechanism per
  module; teaching material (toy data, property checks, model tables) is not in the library.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "posenc"
LIBRARY = ("encodings", "scaling", "methods", "attention", "today", "_core")
TOOLING = ("explorers", "experiments", "measure", "book", "practice")


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__main__.py":  # runs a command when imported
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "root"
    return "library" if parts[1] in LIBRARY else "tooling" if parts[1] in TOOLING else "other"


def _imports(module: str) -> list[tuple[str, list[str], int]]:
    """(absolute module imported from, names, line) for every import in ``module``'s file."""
    parts = module.split(".")
    path = PACKAGE.parent.joinpath(*parts)
    is_package = path.is_dir()
    path = path / "__init__.py" if is_package else path.with_suffix(".py")
    package = parts if is_package else parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            found.extend((a.name, [], node.lineno) for a in node.names)
    return found


MODULES = _modules()


def test_every_module_imports_on_its_own(tmp_path):
    # Each fresh copy runs posenc's modules again; their bytecode is cached under tmp_path, so that where
    # PYTHONDONTWRITEBYTECODE is set (or the checkout is read-only) the copies do not compile every module
    # again each time (24 s of the 27). The modules still run, in the same order: a cycle fails as before.
    # `alone[name]`: the modules in sys.modules after a fresh import of `name` succeeded. A module that its
    # package's fresh import (run or, in turn, known) leaves in sys.modules would run the same modules in the
    # same order (importlib imports the package, then finds the module there): it is known, not run again.
    # A package that failed is not in `alone`, so each of its modules is still imported and fails on its own.
    code = (
        "import sys, importlib, torch, numpy\n"
        f"sys.pycache_prefix, sys.dont_write_bytecode = {str(tmp_path)!r}, False\n"
        f"failed, alone, fresh = [], {{}}, 0\nfor name in {MODULES!r}:\n"
        "    package = name.rpartition('.')[0]\n"
        "    if package in alone and name in alone[package]:\n"
        "        alone[name] = alone[package]\n        continue\n"
        "    for m in [m for m in sys.modules if m == 'posenc' or m.startswith('posenc.')]:\n"
        "        del sys.modules[m]\n"
        "    fresh += 1\n"
        "    try:\n        importlib.import_module(name)\n"
        "    except Exception as err:\n        failed.append(f'{name}: {type(err).__name__}: {err}')\n"
        "    else:\n        alone[name] = set(sys.modules)\n"
        "print('\\n'.join(failed))\nprint(f'{fresh} fresh imports, {len(alone)} modules')\n"
        "sys.exit(1 if failed else 0)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(MODULES) > 40  # the walk found the package
    assert run.stdout.splitlines()[-1].endswith(f", {len(MODULES)} modules")  # every module imported or known


def test_a_cycle_would_be_caught(tmp_path):
    """The check above fails on a cycle: two modules importing each other's names at the top."""
    pkg = tmp_path / "cyc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import B\nA = 1\n")
    (pkg / "b.py").write_text("from .a import A\nB = 2\n")
    run = subprocess.run([sys.executable, "-c", "import cyc.a"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode != 0 and "partially initialized" in run.stderr


@pytest.mark.parametrize("module", [m for m in MODULES if _layer(m) == "library"])
def test_the_library_imports_no_tooling_and_no_private_names(module):
    for target, names, line in _imports(module):
        if target == "posenc" or target.startswith("posenc."):
            assert _layer(target) in ("library", "root"), f"{module}:{line} imports the tooling ({target})"
            assert target != "posenc" or not names, f"{module}:{line} imports the package's top level"
            private = [n for n in names if n.startswith("_") and n != "__future__"]
            assert not private, f"{module}:{line} imports private names {private} from {target}"


@pytest.mark.parametrize("module", [m for m in MODULES if _layer(m) == "tooling"])
def test_the_tooling_uses_the_library_through_its_public_names(module):
    for target, _, line in _imports(module):
        if _layer(target) == "library" and target != "posenc._core.validate":
            pytest.fail(f"{module}:{line} imports {target}; use the names posenc exports")


# --------------------------------------------------------------------------- the layout rule


def _package_modules(package: str) -> list[str]:
    return [m for m in MODULES if m.startswith(f"posenc.{package}.")]


@pytest.mark.parametrize("module", _package_modules("encodings") + _package_modules("today"))
def test_encodings_and_today_build_on_no_method_and_no_attention(module):
    """Rules 1 and 4: an encoding's math (and a later model's mechanism) stands without posenc's attention,
    so the direction is one way: methods and attention build on encodings, never the reverse."""
    import importlib

    from posenc.methods import PositionMethod

    for target, _, line in _imports(module):
        assert not target.startswith(("posenc.methods", "posenc.attention")), f"{module}:{line} imports {target}"
    mod = importlib.import_module(module)
    for name in mod.__all__:
        obj = getattr(mod, name)
        assert not (isinstance(obj, type) and issubclass(obj, PositionMethod)), f"{module}.{name} is a position method"


def test_methods_hold_one_registered_method_per_module():
    """Rule 2: every registered method class lives in a module of its own in posenc.methods, which exports
    that class only; the interface (base) and the registry are the only other modules."""
    import importlib

    from posenc.methods import POSITION_METHODS, PositionMethod

    modules = {m.rsplit(".", 1)[1] for m in _package_modules("methods")}
    assert {"base", "registry"} <= modules
    homes = {}
    for name, cls in POSITION_METHODS.items():
        home = cls.__module__
        assert home.startswith("posenc.methods.") and home.rsplit(".", 1)[1] not in ("base", "registry"), (name, home)
        homes.setdefault(home, set()).add(cls)
    for home, classes in homes.items():
        assert len(classes) == 1, f"{home} holds several registered methods: {classes}"
    for short in modules - {"base", "registry"}:
        module = f"posenc.methods.{short}"
        exported = [getattr(importlib.import_module(module), n) for n in importlib.import_module(module).__all__]
        assert module in homes, f"{module} holds no registered method"
        assert exported == list(homes[module]), f"{module} exports {exported}, not just its method"
        assert all(isinstance(c, type) and issubclass(c, PositionMethod) for c in exported)


def test_the_package_docstring_states_the_layout_rule():
    """The rule this file checks is the one the package docstring states (its five numbered items)."""
    import posenc

    assert "**Where code goes**" in posenc.__doc__
    assert all(f"\n{i}. " in posenc.__doc__ for i in range(1, 6))


#: Names of teaching material (rule 5): none is defined in, or exported by, the library.
TEACHING = (
    "toy_embeddings",
    "toy_vocabulary",
    "min_pairwise_distance",
    "first_repeat",
    "shift_map",
    "shift_map_residual",
    "diagonal_spread",
    "attention_entropy",
    "MODEL_ROPE_CONFIGS",
    "SCALING_EXAMPLES",
    "scaled_wavelengths",
)


def test_teaching_material_is_tooling():
    """Rule 5: the toy data, the properties' checks and the model table are importable from posenc.book
    and are not part of the library (nor defined anywhere in its source)."""
    import posenc
    import posenc.book

    assert not set(TEACHING) & set(posenc.__all__)
    assert set(TEACHING) <= set(posenc.book.__all__)
    for module in (m for m in MODULES if _layer(m) == "library"):
        parts = module.split(".")
        path = PACKAGE.parent.joinpath(*parts)
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        defined |= {
            t.id
            for n in tree.body
            if isinstance(n, (ast.Assign, ast.AnnAssign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Name)
        }
        assert not defined & set(TEACHING), f"{module} defines teaching material {defined & set(TEACHING)}"
