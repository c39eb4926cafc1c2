#!/usr/bin/env bash
# The Colab-like stage of `make test`: the lowest versions the `widgets` extra declares, in a venv of
# their own (default _build/colab-venv), with no book tooling (no Jupyter Book, no JupyterLab, no
# nbval): torch 2.13.0 CPU preinstalled as on Colab (scripts/preinstalled_torch.sh: never a CUDA build), then
# ipywidgets 7.7.x and matplotlib 3.10.x, and posenc (from this checkout, not editable) with its
# `widgets` extra, plus pytest. It then runs the package tests that apply there: the explorers'
# kernel side (tests/test_widgets.py: every explorer built, redrawn over its declared values and
# the ends of every control's range, its live widget driven; the tests that need ipywidgets 8
# mechanisms skip with their reason) and the package face (tests/test_package.py).
# Installs come from pip's cache after the first run.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-_build/colab-venv}
PY=${PYTHON:-python3}
IPYWIDGETS=${COLAB_IPYWIDGETS:-7.7.*}
MATPLOTLIB=${COLAB_MATPLOTLIB:-3.10.*}
NOTEBOOK=${COLAB_NOTEBOOK:-6.5.*}  # Colab's classic notebook (ipywidgets 7 pulls a notebook; 7.x would bring JupyterLab)
quiet="--quiet --disable-pip-version-check"
filter() { grep -v "is ignored: it is neither a file nor a directory" || true; }

# a fresh venv whenever this script changed (what an upgrade leaves behind, e.g. JupyterLab from a
# newer notebook, would otherwise stay); otherwise the installs below only add what is missing
stamp=$(sha256sum < "$0" | cut -c1-16)
if [ "$(cat "$VENV/.stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
pip="$VENV/bin/python -m pip"
# torch preinstalled, as on Colab: the venv that holds only torch, shared with `make git-install`
bash scripts/preinstalled_torch.sh "$VENV" _build/torch-venv
# posenc from a fresh build of the checkout (not editable), so the test sees what a reader installs
$pip install $quiet --upgrade --force-reinstall --no-deps . 2>&1 | filter
$pip install $quiet "ipywidgets==${IPYWIDGETS}" "matplotlib==${MATPLOTLIB}" "notebook==${NOTEBOOK}" ".[widgets]" "pytest>=8" "pytest-xdist>=3.5" 2>&1 | filter
echo "$stamp" > "$VENV/.stamp"
"$VENV/bin/python" - <<'PY'
import importlib.util, ipywidgets, matplotlib, torch, posenc
print(f"colab-like env: torch {torch.__version__}, matplotlib {matplotlib.__version__}, "
      f"ipywidgets {ipywidgets.__version__}, posenc {posenc.__version__}")
assert ipywidgets.__version__.startswith("7."), ipywidgets.__version__
assert matplotlib.__version__.startswith("3.10."), matplotlib.__version__
assert "+cpu" in torch.__version__ or not torch.cuda.is_available()
book_tools = [m for m in ("jupyter_book", "jupyterlab", "nbval", "seaborn") if importlib.util.find_spec(m)]
assert not book_tools, f"book tooling in the Colab-like env: {book_tools}"
PY
# run from a scratch folder so that `import posenc` is the installed package, not the checkout
cd "$VENV"
exec env MPLCONFIGDIR="$PWD/mplconfig" bin/python -m pytest -q -p no:cacheprovider -n "${WORKERS:-2}" --rootdir "$OLDPWD" \
  -c "$OLDPWD/pyproject.toml" "$OLDPWD/tests/test_widgets.py" "$OLDPWD/tests/test_package.py"
