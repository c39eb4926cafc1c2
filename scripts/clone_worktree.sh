#!/usr/bin/env bash
# A git clone of this checkout holding its working tree as it is now (tracked files and untracked files
# that git does not ignore, committed in the clone), for an install "@ git+file://CLONE" as the chapters'
# Colab set-up cell does it. Usage: clone_worktree.sh CLONE (replaced if it exists).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CLONE=$1
rm -rf "$CLONE"
git clone --quiet --no-hardlinks "$ROOT" "$CLONE"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  if [ -e "$f" ]; then mkdir -p "$CLONE/$(dirname "$f")" && cp -p "$f" "$CLONE/$f"; else rm -f "$CLONE/$f"; fi
done
git -C "$CLONE" add -A
git -C "$CLONE" -c user.name=posenc -c user.email=posenc@localhost commit --quiet --allow-empty -m "working tree"
