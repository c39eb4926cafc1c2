#!/usr/bin/env bash
# Create the virtual environment (default .venv) and install the project into it.
#
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

if ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  if ! $pip install $quiet "torch==${TORCH_VERSION}+cpu" 2>/dev/null; then
    echo "setup: no local CPU wheel of torch ${TORCH_VERSION}; trying the CPU index" >&2
    $pip install $quiet --index-url "$TORCH_CPU_INDEX" torch 2>/dev/null \
      || echo "setup: CPU index unreachable; requirements.txt will install torch from PyPI" >&2
  fi
fi
# requirements.txt ends with `-e .[book,widgets,test]`: posenc itself, editable, with its extras
$pip install $quiet -r requirements.txt 2>&1 | grep -v "is ignored: it is neither a file nor a directory" || true
"$VENV/bin/python" -c "import torch, posenc, jupyter_book, jupyterlab, nbval, playwright; print('setup: torch', torch.__version__, '| posenc', posenc.__version__)"
# build matplotlib's font cache now (in MPLCONFIGDIR when make sets it): a kernel that built it
# itself would print "Matplotlib is building the font cache" into a notebook's outputs
"$VENV/bin/python" -c "import matplotlib.font_manager"
