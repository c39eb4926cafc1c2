#!/usr/bin/env bash
# `pip install` into a venv, done by uv where uv is at hand: usage  uv_install.sh VENV PIP-INSTALL-ARGUMENTS...
# With $UV an executable uv (make's `$(UV)` target installs one into _build/uv-venv from the package
# registry): `uv pip install --python VENV/bin/python ARGUMENTS`, reading the package indexes pip is
# configured with (pip's config files and PIP_* variables: index-url, extra-index-url, find-links,
# constraint), so both installers see the same packages. Without uv, or if uv fails, the same install by
# VENV's pip. Why: unpacking the lock's 186 wheels took pip 92 CPU-s on the 2-core test machine, uv 21.
# Where pip itself is the subject (the Colab set-up cell's `pip install "posenc[widgets] @ git+..."`),
# the scripts call pip directly.
set -euo pipefail
VENV=$1
shift
pip_install() {
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile "$@" 2>&1 \
    | { grep -v "is ignored: it is neither a file nor a directory" || true; }
}
if [ -z "${UV:-}" ] || ! "$UV" --version >/dev/null 2>&1; then
  pip_install "$@"
  exit
fi
args=()
seen=" "
add() { case $seen in *" $1=$2 "*) ;; *) seen="$seen$1=$2 "; args+=("$1" "$2") ;; esac; }
# `pip config list` prints lines such as  global.find-links='/opt/wheels'  and  :env:.find-links='...'
while IFS= read -r line; do
  key=${line%%=*}
  key=${key##*.}
  value=${line#*=}
  value=${value#\'}
  value=${value%\'}
  case $key in
    index-url) add --index-url "$value" ;;
    extra-index-url) for url in $value; do add --extra-index-url "$url"; done ;;
    find-links) for dir in $value; do add --find-links "$dir"; done ;;
    # (a constraints file is skipped for a hashed install: uv wants every constraint pinned there, and
    # the hashes pin every version already)
    constraint) case " $* " in *" --require-hashes "*) ;; *) for file in $value; do add --constraint "$file"; done ;; esac ;;
  esac
done < <("$VENV/bin/python" -m pip config list 2>/dev/null)
# pip takes a package from whichever index offers the best version; uv's default stops at the first
# index that has the name
rc=0
"$UV" pip install --quiet --no-progress --python "$VENV/bin/python" --index-strategy unsafe-best-match \
  ${args[@]+"${args[@]}"} "$@" || rc=$?
if [ "$rc" != 0 ]; then
  echo "uv_install: uv failed (exit $rc); pip installs instead" >&2
  pip_install "$@"
fi
