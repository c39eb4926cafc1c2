#!/usr/bin/env bash
# Write requirements.lock: every package the book, the chapters and the tests need, at an exact
# version with its sha256 hashes (pip-compile --generate-hashes), from pyproject.toml (extras book,
# widgets, test) and requirements-lock.in (torch pinned to the CPU build, JupyterLab), which
# together are what requirements.txt installs. `make setup` installs it with
# `pip install --require-hashes`.
#   bash scripts/lock.sh PIP_COMPILE            # resolve afresh (newest versions within the ranges)
#   FROM_VENV=.venv bash scripts/lock.sh ...    # lock the versions installed in that venv (the ones
#                                               # that made the stored outputs)
# torch comes from pip's find-links (a local CPU wheel, e.g. /opt/wheels on the test machine) or
# PyTorch's CPU index; the script checks that the hash it locks is the one of the wheel pip finds.
set -euo pipefail
cd "$(dirname "$0")/.."
PIP_COMPILE=${1:-pip-compile}
args=(--quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links
      --output-file requirements.lock)
if [ -n "${FROM_VENV:-}" ]; then
  mkdir -p _build
  "$FROM_VENV/bin/python" -m pip freeze --exclude-editable --disable-pip-version-check \
    | grep -v -e "^-e " -e "^posenc[= @]" > _build/lock-constraints.txt
  args+=(--constraint _build/lock-constraints.txt)
fi
rm -f requirements.lock  # resolve afresh, not from the previous lock's pins
"$PIP_COMPILE" "${args[@]}" --extra book --extra widgets --extra test pyproject.toml requirements-lock.in
# posenc itself is not locked: setup_venv.sh installs it editable, without dependencies
python3 - <<'PY'
import hashlib, os, re, subprocess, sys
from pathlib import Path

lock = Path("requirements.lock")
text = lock.read_text()
# drop posenc itself (an editable line, or `posenc @ file:...` that its own extras pull in, with
# pip-compile's warning about it and its "via" lines): a directory cannot be hashed
text = re.sub(r"^-e .*\n(?:    .*\n)*", "", text, flags=re.M)
text = re.sub(r"^# WARNING: pip install will require the following package to be hashed\.\n(?:# Consider .*\n)?", "",
              text, flags=re.M)
text = re.sub(r"^posenc @ .*\n(?:    .*\n)*", "", text, flags=re.M)
assert "posenc @" not in text and "\n-e " not in text
text = text.replace("\n#    via -r requirements.txt", "\n#    via -r requirements.txt")
header = ("# Exact, hashed versions for Linux x86-64, CPython 3.11 (the test machine): `make setup`\n"
          "# installs them (`pip install --require-hashes`). Refresh with `make lock`; readers elsewhere\n"
          "# install the ranges of requirements.txt.\n")
lock.write_text(header + text)
m = re.search(r"^torch==(\S+) \\\n((?:    --hash=sha256:\w+(?: \\)?\n)+)", text, flags=re.M)
assert m, "torch is not in the lock"
hashes = set(re.findall(r"sha256:(\w+)", m.group(2)))
links = os.environ.get("PIP_FIND_LINKS", "") or subprocess.run(
    [sys.executable, "-m", "pip", "config", "get", "global.find-links"], capture_output=True, text=True).stdout
wheels = [p for d in links.split() if Path(d).is_dir() for p in Path(d).glob(f"torch-{m.group(1)}-*.whl")]
for wheel in wheels:
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert digest in hashes, f"the lock's torch hashes do not include the local wheel {wheel} ({digest})"
    print(f"lock: torch {m.group(1)} hash matches the local wheel {wheel}")
if not wheels:
    print(f"lock: no local torch {m.group(1)} wheel in pip's find-links; hashes as resolved", file=sys.stderr)
PY
echo "lock: $(grep -c '^[A-Za-z0-9]' requirements.lock) packages in requirements.lock"
