#!/usr/bin/env bash
# Create the virtual environment (default .venv) and install the project into it.
#
# With LOCK=1 (what `make setup` passes by default) and requirements.lock present: the exact,
# hashed versions of the lock (`pip install --require-hashes --no-deps`, done by uv when $UV names one:
# scripts/uv_install.sh; torch 2.13.0+cpu from a local CPU wheel that pip's find-links hold, else
# PyTorch's CPU index), then posenc itself, editable, without dependencies. This is the set-up that reproduces the stored outputs. If the lock
# cannot be installed here (another platform or Python: the lock is for Linux x86-64, CPython
# 3.11), it says so and installs the ranges of requirements.txt instead, as LOCK=0 does:
# torch goes first, as a CPU build where one can be had, so that requirements.txt's plain
# `torch>=2.2` is already satisfied and never pulls a multi-GB CUDA build:
#   1. `torch==$TORCH_VERSION+cpu` (a local CPU wheel, when pip's configured find-links hold one);
#   2. otherwise PyTorch's CPU wheel index ($TORCH_CPU_INDEX);
#   3. otherwise requirements.txt installs whatever torch PyPI offers.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv}
TORCH_VERSION=${TORCH_VERSION:-2.13.0}
TORCH_CPU_INDEX=${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}
PY=${PYTHON:-python3}

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
pip="$VENV/bin/python -m pip"
quiet="--quiet --disable-pip-version-check"
# --no-compile on every install: Python compiles a module when it is first imported; compiling every
# installed file up front (most are never imported) was half of an install's CPU time (18 -> 10 CPU-s
# for the Colab versions' packages on the 2-core test machine)

filter() { grep -v "is ignored: it is neither a file nor a directory" || true; }
# pip install ARGUMENTS, by uv where make's `$(UV)` target got one, else by pip (scripts/uv_install.sh)
install() { bash scripts/uv_install.sh "$VENV" "$@"; }
locked=0
if [ "${LOCK:-0}" = 1 ] && [ -f requirements.lock ]; then
  if install --require-hashes --no-deps -r requirements.lock && "$VENV/bin/python" -c "import torch" 2>/dev/null; then
    locked=1
  elif install --require-hashes --no-deps --extra-index-url "$TORCH_CPU_INDEX" -r requirements.lock \
      && "$VENV/bin/python" -c "import torch" 2>/dev/null; then
    locked=1
  else
    echo "setup: requirements.lock does not install here (it is for Linux x86-64, CPython 3.11);" \
         "installing the ranges of requirements.txt" >&2
  fi
fi
if [ "$locked" = 1 ]; then
  install --no-deps -e .
  $pip check --disable-pip-version-check
fi
if [ "$locked" = 0 ] && ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  if ! $pip install $quiet --no-compile "torch==${TORCH_VERSION}+cpu" 2>/dev/null; then
    echo "setup: no local CPU wheel of torch ${TORCH_VERSION}; trying the CPU index" >&2
    $pip install $quiet --no-compile --index-url "$TORCH_CPU_INDEX" torch 2>/dev/null \
      || echo "setup: CPU index unreachable; requirements.txt will install torch from PyPI" >&2
  fi
fi
# requirements.txt ends with `-e .[book,widgets,test]`: posenc itself, editable, with its extras
if [ "$locked" = 0 ]; then
  $pip install $quiet --no-compile -r requirements.txt 2>&1 | filter
fi
"$VENV/bin/python" -c "import torch, posenc, jupyter_book, jupyterlab, nbval, playwright; print('setup: torch', torch.__version__, '| posenc', posenc.__version__)"
# build matplotlib's font cache now (in MPLCONFIGDIR when make sets it): a kernel that built it
# itself would print "Matplotlib is building the font cache" into a notebook's outputs
"$VENV/bin/python" -c "import matplotlib.font_manager"
