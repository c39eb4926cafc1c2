"""What a reader gets from the Colab set-up cell's install, checked from a scratch folder (never the
checkout): ``posenc`` imports from site-packages, with ``py.typed``, every module of the checkout, its
package data and every saved result (each loads); one explorer is built, with its live widget, and
redrawn. Run by the venv under test, from a folder outside the checkout:

    VENV/bin/python CHECKOUT/scripts/check_installed.py CHECKOUT

(scripts/colab_env.sh after the set-up cell's ``pip install``; scripts/check_git_install.sh).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path


def main(root: Path) -> None:
    import ipywidgets
    import matplotlib
    import torch

    import posenc
    from posenc import measure
    from posenc.explorers import RopeRotationExplorer

    package = Path(posenc.__file__).resolve().parent
    assert package != root / "posenc" and "site-packages" in package.parts, f"posenc from the checkout: {package}"
    assert (package / "py.typed").is_file(), "py.typed is not installed"
    modules = sorted(str(p.relative_to(root / "posenc")) for p in (root / "posenc").rglob("*.py"))
    installed_modules = sorted(str(p.relative_to(package)) for p in package.rglob("*.py"))
    missing = sorted(set(modules) - set(installed_modules))
    assert installed_modules == modules, f"modules missing from the install: {missing}"
    for name in modules:  # every module of every subpackage imports from the install
        if not name.endswith("__main__.py"):
            importlib.import_module("posenc." + name[:-3].replace("/", ".").removesuffix(".__init__"))
    names = sorted(p.stem[len("bench_") :] for p in (package / "results").glob("bench_*.json"))
    assert {"attention", "linear", "rope", "shaw"} <= set(names), names
    for name in names:
        saved = measure.load_results(name)
        assert set(saved) == {"machine", "settings", "results"}, name
    shipped = sorted(p.name for p in (root / "posenc" / "data").glob("*"))
    installed = sorted(p.name for p in (package / "data").glob("*"))
    assert installed == shipped, f"package data missing from the install: {sorted(set(shipped) - set(installed))}"
    results = sorted(p.name for p in (root / "posenc" / "results").glob("*.json"))
    assert sorted(p.name for p in (package / "results").glob("*.json")) == results, "results missing from the install"
    for path in (package / "results").glob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))

    explorer = RopeRotationExplorer()
    explorer.widget()
    first = explorer.render_png()
    assert explorer.update(position=40) and explorer.render_png() != first
    explorer.close()
    print(
        f"installed: posenc {posenc.__version__} from {package}, {len(names)} saved benchmarks, explorer built; "
        f"torch {torch.__version__}, matplotlib {matplotlib.__version__}, ipywidgets {ipywidgets.__version__}"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
