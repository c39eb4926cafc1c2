"""Train short, test long: the full run of chapter 8's experiment.

    python experiments/extrapolation.py                  # full: every method, 5 seeds, 2 worker processes
    python experiments/extrapolation.py --quick --out q.json   # the notebook's quick setting
    python experiments/extrapolation.py --quick --seeds 12 --out posenc/results/extrapolation-quick-seeds.json
        # the quick setting over seeds 0..11: the margins behind the chapter's quick-run assertions
    python experiments/extrapolation.py --text           # real text (Shakespeare): posenc/results/extrapolation-text.json

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
from posenc.realtext import run_text_experiment, text_config

OUT = Path(__file__).resolve().parents[1] / "posenc" / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the notebook's quick setting")
    ap.add_argument("--text", action="store_true", help="the real-text run (posenc.realtext) instead of the passkey run")
    ap.add_argument("--workers", type=int, default=2, help="processes, one thread each (default 2)")
    ap.add_argument("--seeds", type=int, default=None,
                    help="run seeds 0 .. N-1 instead of the configuration's (with --quick only)")
    ap.add_argument("--out", type=Path, default=None,
                    help="where to write (default: posenc/results/extrapolation.json; --quick needs --out)")
    args = ap.parse_args()
    if args.quick and args.out is None:
        ap.error("--quick writes only where --out says (the notebook runs the quick setting itself)")
    if args.seeds is not None and (not args.quick or args.seeds < 1):
        ap.error("--seeds N (N >= 1) goes with --quick: the full run's seeds are part of its configuration")
    config = (text_config if args.text else experiment_config)(quick=args.quick)
    if args.seeds is not None:
        config["seeds"] = list(range(args.seeds))
    start = time.time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    result = (run_text_experiment if args.text else run_extrapolation)(config, workers=args.workers, progress=True)
    result["command"] = "python " + " ".join(["experiments/extrapolation.py", *sys.argv[1:]])
    result["environment"] = {"torch": torch.__version__, "python": platform.python_version(),
                             "cpus": os.cpu_count(), "workers": args.workers, "threads_per_worker": 1,
                             "load_average_at_start": None if load is None else round(load, 2),
                             "seconds": round(time.time() - start)}
    path = args.out or OUT / ("extrapolation-text.json" if args.text else "extrapolation.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path} in {result['environment']['seconds']} s")


if __name__ == "__main__":
    main()
