"""Train short, test long: the full setting of chapter 8's experiment.

    python experiments/extrapolation.py                 # full: 3 seeds, 1500 steps (about 20 min, 2 cores)
    python experiments/extrapolation.py --quick         # the notebook's setting: 1 seed, 600 steps

Writes posenc/results/extrapolation[-quick].json (shipped with the package, so the notebook finds it
on Colab too) with the configuration, the command and the per-seed losses;
notebooks/08_extrapolation.ipynb displays the full file.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

from posenc.lm import run_extrapolation

OUT = Path(__file__).resolve().parents[1] / "posenc" / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the notebook's quick setting")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--seeds", type=int, nargs="+", default=None)
    args = ap.parse_args()
    steps = args.steps or (600 if args.quick else 1500)
    seeds = tuple(args.seeds or ((0,) if args.quick else (0, 1, 2)))
    start = time.time()
    result = run_extrapolation(seeds=seeds, steps=steps, progress=True)
    result["command"] = "python " + " ".join(["experiments/extrapolation.py", *sys.argv[1:]])
    result["environment"] = {"torch": torch.__version__, "python": platform.python_version(),
                             "threads": torch.get_num_threads(), "seconds": round(time.time() - start)}
    OUT.mkdir(exist_ok=True)
    path = OUT / ("extrapolation-quick.json" if args.quick else "extrapolation.json")
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path} in {result['environment']['seconds']} s")


if __name__ == "__main__":
    main()
