#!/usr/bin/env bash
# The install path of the chapters' Colab set-up cell with the newest versions pip resolves (`make
# git-install`; `make test` checks the same path with Colab's versions in scripts/colab_env.sh): a git
# clone of this checkout (scripts/clone_worktree.sh), then in a fresh virtual environment
#   pip install "posenc[widgets] @ git+file://<the clone>"
# with torch 2.13.0 CPU preinstalled (as on Colab; scripts/preinstalled_torch.sh), then
# scripts/check_installed.py from a scratch folder.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=${1:-_build/git-install}
PY=${PYTHON:-python3}
quiet="--quiet --disable-pip-version-check"
filter() { grep -v "is ignored: it is neither a file nor a directory" || true; }
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
bash scripts/clone_worktree.sh "$DIR/repo"
rm -rf "$DIR/venv" && "$PY" -m venv "$DIR/venv"
bash "$ROOT/scripts/preinstalled_torch.sh" "$DIR/venv" "$ROOT/_build/torch-venv"
# a current pip, as Colab has (the pip that venv bundles with Python 3.11.7, 23.2, rejects a
# git+file:/// URL in a requirement: its packaging wants a host)
"$DIR/venv/bin/python" -m pip install $quiet --no-compile --upgrade "pip>=24" 2>&1 | filter
"$DIR/venv/bin/python" -m pip install $quiet --no-compile "posenc[widgets] @ git+file://$DIR/repo" 2>&1 | filter
mkdir -p "$DIR/scratch" && cd "$DIR/scratch"
MPLCONFIGDIR="$DIR/mplconfig" "$DIR/venv/bin/python" "$ROOT/scripts/check_installed.py" "$ROOT"
