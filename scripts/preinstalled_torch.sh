#!/usr/bin/env bash
# torch 2.13.0 CPU "preinstalled", as on Colab: a venv that holds only torch (default _build/torch-venv),
# installed once and kept between runs, shared by the Colab-like stage (scripts/colab_env.sh) and the
# install-from-git stage (scripts/check_git_install.sh). Usage: preinstalled_torch.sh TARGET_VENV [TORCH_VENV]
# makes TARGET_VENV see that torch through a .pth file (never a CUDA build; installing torch takes about a
# minute here, once instead of once per stage).
set -euo pipefail
TARGET=$1
TORCH_VENV=${2:-_build/torch-venv}
TORCH_VERSION=${TORCH_VERSION:-2.13.0}
TORCH_CPU_INDEX=${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}
PY=${PYTHON:-python3}
quiet="--quiet --disable-pip-version-check"
filter() { grep -v "is ignored: it is neither a file nor a directory" || true; }
# (version checks read the installed metadata: importing torch without numpy beside it warns)
have_torch() { "$1" -c "import importlib.metadata as m; assert m.version('torch').startswith('${TORCH_VERSION}')" 2>/dev/null; }
if ! have_torch "$TORCH_VENV/bin/python"; then
  rm -rf "$TORCH_VENV" && "$PY" -m venv "$TORCH_VENV"
  # by uv where make passes one, else by pip (scripts/uv_install.sh); the CPU index below if neither found it
  bash "$(dirname "$0")/uv_install.sh" "$TORCH_VENV" "torch==${TORCH_VERSION}+cpu" || true
  have_torch "$TORCH_VENV/bin/python" \
    || "$TORCH_VENV/bin/python" -m pip install $quiet --no-compile --index-url "$TORCH_CPU_INDEX" "torch==${TORCH_VERSION}" 2>&1 | filter
fi
torch_site=$("$TORCH_VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
site=$("$TARGET/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$(cd "$torch_site" && pwd)" > "$site/_preinstalled_torch.pth"
have_torch "$TARGET/bin/python" || { echo "torch ${TORCH_VERSION} is not visible in $TARGET" >&2; exit 1; }
