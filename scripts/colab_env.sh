#!/usr/bin/env bash
# The Colab stage of `make test`: what a reader gets on Colab, in a venv of its own (default
# _build/colab-venv) with no book tooling (no Jupyter Book, no JupyterLab, no nbval). First what Colab
# ships before any cell runs: torch 2.13.0 CPU (scripts/preinstalled_torch.sh: never a CUDA build),
# ipywidgets 7.7.x, matplotlib 3.10.x and the classic notebook 6.5 (the lowest versions the `widgets`
# extra allows), plus pytest. Then what the chapters' set-up cell runs there:
#   pip install "posenc[widgets] @ git+file://<a clone of this checkout>"  (scripts/clone_worktree.sh)
# which must keep Colab's versions (checked). From a scratch folder: the installed package
# (scripts/check_installed.py: not the checkout, every module, package data and saved result, one
# explorer built), then the package tests that apply there: the explorers' kernel side
# (tests/test_widgets.py: every explorer built, redrawn over its declared values and the ends of every
# control's range, its live widget driven; the tests that need ipywidgets 8 mechanisms skip with their
# reason, and the HTML book's face is left to the unit stage) and the package face (tests/test_package.py).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-_build/colab-venv}
PY=${PYTHON:-python3}
IPYWIDGETS=${COLAB_IPYWIDGETS:-7.7.*}
MATPLOTLIB=${COLAB_MATPLOTLIB:-3.10.*}
NOTEBOOK=${COLAB_NOTEBOOK:-6.5.*}  # Colab's classic notebook (ipywidgets 7 pulls a notebook; 7.x would bring JupyterLab)
quiet="--quiet --disable-pip-version-check"
# --no-compile on every install: Python compiles a module when it is first imported; compiling every
# installed file up front (most are never imported) was half of an install's CPU time (18 -> 10 CPU-s
# for the Colab versions' packages on the 2-core test machine)
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
# a current pip, as Colab has (the pip that venv bundles with Python 3.11.7, 23.2, rejects a
# git+file:/// URL in a requirement: its packaging wants a host)
# What Colab ships is installed by uv where make passes one (scripts/uv_install.sh), else by pip; the
# set-up cell's install below is pip's, as on Colab.
preinstall() { bash scripts/uv_install.sh "$VENV" "$@"; }
preinstall --upgrade "pip>=24"
preinstall "ipywidgets==${IPYWIDGETS}" "matplotlib==${MATPLOTLIB}" "notebook==${NOTEBOOK}" "pytest>=8" "pytest-xdist>=3.5"
# the set-up cell's install, from a clone of the working tree (a kept venv: the previous posenc removed first)
bash scripts/clone_worktree.sh "$(dirname "$VENV")/colab-repo"
REPO=$(cd "$(dirname "$VENV")/colab-repo" && pwd)
$pip uninstall $quiet --yes posenc 2>&1 | { grep -v "not installed" || true; }
$pip install $quiet --no-compile "posenc[widgets] @ git+file://$REPO" 2>&1 | filter
echo "$stamp" > "$VENV/.stamp"
# Colab's versions kept by the set-up cell's install (from a scratch folder: the installed posenc)
(cd "$VENV" && bin/python - <<'PY'
import importlib.util, ipywidgets, matplotlib, torch, posenc
print(f"colab-like env: torch {torch.__version__}, matplotlib {matplotlib.__version__}, "
      f"ipywidgets {ipywidgets.__version__}, posenc {posenc.__version__}")
assert ipywidgets.__version__.startswith("7."), ipywidgets.__version__
assert matplotlib.__version__.startswith("3.10."), matplotlib.__version__
assert "+cpu" in torch.__version__ or not torch.cuda.is_available()
book_tools = [m for m in ("jupyter_book", "jupyterlab", "nbval", "seaborn") if importlib.util.find_spec(m)]
assert not book_tools, f"book tooling in the Colab-like env: {book_tools}"
PY
)
# run from a scratch folder so that `import posenc` is the installed package, not the checkout
cd "$VENV"
bin/python -m pip check --disable-pip-version-check
MPLCONFIGDIR="$PWD/mplconfig" bin/python "$OLDPWD/scripts/check_installed.py" "$OLDPWD"
# The explorers' HTML-book face (tests parametrized "title-in-figure": the book's frames, drawn at
# HTML_SCALE by the book build in the project's own venv) never appears on Colab: deselected here; the
# unit stage runs it.
exec env MPLCONFIGDIR="$PWD/mplconfig" bin/python -m pytest -q -p no:cacheprovider -n "${WORKERS:-2}" --rootdir "$OLDPWD" \
  -c "$OLDPWD/pyproject.toml" -k "not title-in-figure" "$OLDPWD/tests/test_widgets.py" "$OLDPWD/tests/test_package.py"
