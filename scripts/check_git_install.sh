#!/usr/bin/env bash
# The install path of the chapters' Colab set-up cell, in `make test`: a git clone of this checkout
# (its working tree as it is now, committed in the clone), then in a fresh virtual environment
#   pip install "posenc[widgets] @ git+file://<the clone>"
# with torch 2.13.0 CPU preinstalled (as on Colab, where torch is there before the cell runs; here
# a .pth file points the fresh venv at _build/torch-venv, a venv that holds only torch, kept between runs
# and shared with the Colab-like stage: scripts/preinstalled_torch.sh). Then, from
# a scratch folder: import posenc, load every saved result from the installed package data, and
# build and redraw one explorer with its live widget.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=${1:-_build/git-install}
PY=${PYTHON:-python3}
quiet="--quiet --disable-pip-version-check"
filter() { grep -v "is ignored: it is neither a file nor a directory" || true; }
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

# 1. a clone holding the working tree (tracked and untracked files that git does not ignore)
rm -rf "$DIR/repo"
git clone --quiet --no-hardlinks "$ROOT" "$DIR/repo"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  if [ -e "$f" ]; then mkdir -p "$DIR/repo/$(dirname "$f")" && cp -p "$f" "$DIR/repo/$f"; else rm -f "$DIR/repo/$f"; fi
done
git -C "$DIR/repo" add -A
git -C "$DIR/repo" -c user.name=posenc -c user.email=posenc@localhost commit --quiet --allow-empty -m "working tree"

# 2. a fresh venv, torch visible through a .pth file, then what the set-up cell runs
rm -rf "$DIR/venv" && "$PY" -m venv "$DIR/venv"
bash "$ROOT/scripts/preinstalled_torch.sh" "$DIR/venv" "$ROOT/_build/torch-venv"  # shared with `make colab-env`
# a current pip, as Colab has (the pip that venv bundles with Python 3.11.7, 23.2, rejects a
# git+file:/// URL in a requirement: its packaging wants a host)
"$DIR/venv/bin/python" -m pip install $quiet --upgrade "pip>=24" 2>&1 | filter
"$DIR/venv/bin/python" -m pip install $quiet "posenc[widgets] @ git+file://$DIR/repo" 2>&1 | filter

# 3. use it from a scratch folder, so that the checkout is not on the path
mkdir -p "$DIR/scratch" && cd "$DIR/scratch"
MPLCONFIGDIR="$DIR/mplconfig" "$DIR/venv/bin/python" - "$ROOT" <<'PY'
import sys
from pathlib import Path

import posenc
from posenc import measure

root = Path(sys.argv[1]).resolve()
package = Path(posenc.__file__).resolve().parent
assert package != root / "posenc" and "site-packages" in package.parts, f"posenc imported from the checkout: {package}"
assert (package / "py.typed").is_file(), "py.typed is not installed"
modules = sorted(str(p.relative_to(root / "posenc")) for p in (root / "posenc").rglob("*.py"))
installed_modules = sorted(str(p.relative_to(package)) for p in package.rglob("*.py"))
assert installed_modules == modules, f"modules missing from the install: {sorted(set(modules) - set(installed_modules))}"
import importlib
for name in modules:  # every module of every subpackage imports from the install
    if not name.endswith("__main__.py"):
        importlib.import_module("posenc." + name[:-3].replace("/", ".").removesuffix(".__init__"))
names = sorted(p.stem[len("bench_"):] for p in (package / "results").glob("bench_*.json"))
assert {"attention", "linear", "rope", "shaw"} <= set(names), names
for name in names:
    saved = measure.load_results(name)
    assert set(saved) == {"machine", "settings", "results"}, name
assert (package / "results" / "extrapolation.json").is_file()
shipped = sorted(p.name for p in (root / "posenc" / "data").glob("*")) if (root / "posenc" / "data").is_dir() else []
installed = sorted(p.name for p in (package / "data").glob("*")) if (package / "data").is_dir() else []
assert installed == shipped, f"package data missing from the install: {sorted(set(shipped) - set(installed))}"
results = sorted(p.name for p in (root / "posenc" / "results").glob("*.json"))
assert sorted(p.name for p in (package / "results").glob("*.json")) == results, "results missing from the install"
import json
json.loads((package / "results" / "extrapolation.json").read_text(encoding="utf-8"))

from posenc.explorers import RopeRotationExplorer

explorer = RopeRotationExplorer()
box = explorer.widget()
first = explorer.render_png()
assert explorer.update(position=40) and explorer.render_png() != first
explorer.close()
import ipywidgets, matplotlib, torch
print(f"git install: posenc {posenc.__version__} from {package}, {len(names)} saved benchmarks, explorer built; "
      f"torch {torch.__version__}, matplotlib {matplotlib.__version__}, ipywidgets {ipywidgets.__version__}")
PY
