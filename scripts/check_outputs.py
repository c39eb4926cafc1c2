"""Refuse to publish a chapter whose stored outputs show a failure.

`make book` renders the outputs committed with the notebooks (nbval keeps them current) instead
of re-executing every chapter. This check runs first and fails the build when a notebook holds an
error output, a traceback or warning on stderr, or a code cell that was never executed, so a page
with a traceback or a missing result is never published.

    python scripts/check_outputs.py notebooks/*.ipynb
"""

from __future__ import annotations

import json
import sys


def problems(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    found = []
    for number, cell in enumerate(nb["cells"], 1):
        if cell["cell_type"] != "code":
            continue
        if cell.get("execution_count") is None and "".join(cell["source"]).strip():
            found.append(f"cell {number} was never executed")
        for out in cell.get("outputs", []):
            if out["output_type"] == "error":
                found.append(f"cell {number} stored an error: {out.get('ename')}: {out.get('evalue')}")
            elif out["output_type"] == "stream" and out.get("name") == "stderr":
                found.append(f"cell {number} wrote to stderr: {''.join(out['text'])[:120]!r}")
    return found


def main(paths: list[str]) -> int:
    bad = {p: problems(p) for p in paths}
    bad = {p: msgs for p, msgs in bad.items() if msgs}
    for path, msgs in bad.items():
        for msg in msgs:
            print(f"{path}: {msg}", file=sys.stderr)
    if bad:
        print("Re-run the failing notebooks (make notebooks) and commit their outputs.", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
