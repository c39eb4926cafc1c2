"""Train short, test long: the full run of chapter 8's experiment.

    python experiments/extrapolation.py                  # full: every method, 3 seeds, 2 worker processes
    python experiments/extrapolation.py --quick --out q.json   # the notebook's quick setting

The configuration is ``posenc.lm.experiment_config`` (nothing here changes a number). The full run
writes posenc/results/extrapolation.json (shipped with the package, so the notebook finds it on
Colab too) with the configuration, the command, the environment, the wall-clock seconds and the
hash of the code that made it; ``posenc.lm.load_results`` refuses the file once that code changes.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import torch

from posenc.lm import experiment_config, run_extrapolation

OUT = Path(__file__).resolve().parents[1] / "posenc" / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the notebook's quick setting")
    ap.add_argument("--workers", type=int, default=2, help="processes, one thread each (default 2)")
    ap.add_argument("--out", type=Path, default=None,
                    help="where to write (default: posenc/results/extrapolation.json; --quick needs --out)")
    args = ap.parse_args()
    if args.quick and args.out is None:
        ap.error("--quick writes only where --out says (the notebook runs the quick setting itself)")
    config = experiment_config(quick=args.quick)
    start = time.time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    result = run_extrapolation(config, workers=args.workers, progress=True)
    result["command"] = "python " + " ".join(["experiments/extrapolation.py", *sys.argv[1:]])
    result["environment"] = {"torch": torch.__version__, "python": platform.python_version(),
                             "cpus": os.cpu_count(), "workers": args.workers, "threads_per_worker": 1,
                             "load_average_at_start": None if load is None else round(load, 2),
                             "seconds": round(time.time() - start)}
    path = args.out or OUT / "extrapolation.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path} in {result['environment']['seconds']} s")


if __name__ == "__main__":
    main()
