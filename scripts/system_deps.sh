#!/usr/bin/env bash
# Make sure the system programs a make target needs are present:
#   npm       vendors MathJax for the book (make book, make test)
#   chromium  the browser test (make test), with CJK fonts for the screenshots
# Missing ones are installed with apt-get when this runs as root on a Debian-like system;
# otherwise this stops and prints the one command to run.
set -euo pipefail
declare -A pkgs=([npm]="npm" [chromium]="chromium fonts-noto-cjk")
missing=()
for prog in "$@"; do
  command -v "$prog" >/dev/null 2>&1 || missing+=(${pkgs[$prog]})
done
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "system: installing ${missing[*]} ($cmd)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  $cmd -qq >/dev/null
else
  echo "system: missing ${missing[*]}. Install them once, then run make again:" >&2
  echo "    sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
