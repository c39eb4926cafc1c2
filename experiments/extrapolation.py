"""Train short, test long: the runs of chapter 8's experiment, each writing one results file.

    python experiments/extrapolation.py --out posenc/results/extrapolation.json
        # the passkey run: every method, 5 seeds; RoPE's zero-shot scalings and its three fine-tuning arms
    python experiments/extrapolation.py --text --out posenc/results/extrapolation-text.json
        # real text (Shakespeare): every method, 3 seeds; the context cut; RoPE fine-tuned on text at 512
    python experiments/extrapolation.py --quick --seeds 12 --out posenc/results/extrapolation-quick-seeds.json
        # the chapter's quick setting over seeds 0..11: the margins behind its quick-run assertions
    python experiments/extrapolation.py --quick
        # the notebook's quick setting -> ./results/extrapolation-quick.json
    python experiments/extrapolation.py --quick --set steps=30 --set 'finetune={"methods": []}' --out /tmp/x.json
        # any configuration entry replaced (a dict entry updated) by a JSON value, for a small trial

``scripts/run_experiments.sh`` runs the three shipped files' commands in turn. The configuration is
``posenc.experiments.experiment_config`` (``text_config`` with ``--text``; nothing here changes a
number unless ``--set`` says so, and the command is saved with the result). A run writes
``./results/<name>.json`` (relative to the current directory) or where ``--out`` says, with the
configuration, the command, the environment, the wall-clock seconds, the CPU seconds of every job
(in the metrics, ``cpu_seconds``) and the code that made it (``posenc.experiments.code_record``). The
files the book reads ship in ``posenc/results``; ``posenc.experiments.load_results`` refuses one
once the code that made it changes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import torch

from posenc.experiments import experiment_config, run_extrapolation, run_text_experiment, text_config
from posenc.experiments.runner import threads_per_worker


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the notebook's quick setting")
    ap.add_argument("--text", action="store_true", help="the real-text run instead of the passkey run")
    ap.add_argument(
        "--workers",
        type=int,
        default=2,
        help="processes, each with the machine's cores shared out (at least one thread; default 2)",
    )
    ap.add_argument(
        "--seeds", type=int, default=None, help="run seeds 0 .. N-1 instead of the configuration's (with --quick only)"
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where to write (default: ./results/<name>.json in the current directory)",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="replace a configuration entry by a JSON value (a dict entry is updated); repeatable",
    )
    args = ap.parse_args()
    if args.workers < 1:
        ap.error("--workers N needs N >= 1")
    if args.seeds is not None and (not args.quick or args.seeds < 1):
        ap.error("--seeds N (N >= 1) goes with --quick: the full run's seeds are part of its configuration")
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        try:
            overrides[key] = json.loads(value)
        except json.JSONDecodeError as err:
            ap.error(f"--set {item!r}: the value after '=' must be JSON ({err})")
        if not sep:
            ap.error(f"--set {item!r}: expected KEY=JSON")
    try:
        config = (text_config if args.text else experiment_config)(quick=args.quick, **overrides)
    except (TypeError, ValueError) as err:
        ap.error(f"--set: {err}")
    if args.seeds is not None:
        config["seeds"] = list(range(args.seeds))
    start = time.time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    result = (run_text_experiment if args.text else run_extrapolation)(config, workers=args.workers, progress=True)
    result["command"] = "python " + shlex.join(["experiments/extrapolation.py", *sys.argv[1:]])
    result["environment"] = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "workers": args.workers,
        "threads_per_worker": threads_per_worker(args.workers) if args.workers > 1 else torch.get_num_threads(),
        "load_average_at_start": None if load is None else round(load, 2),
        "seconds": round(time.time() - start),
        "cpu_seconds_jobs": round(
            sum(m.get("cpu_seconds", 0) for per_seed in result["metrics"].values() for m in per_seed.values()), 1
        ),
    }
    name = (
        "extrapolation"
        + ("-text" if args.text else "")
        + ("-quick" if args.quick else "")
        + ("-seeds" if args.seeds is not None else "")
    )
    path = args.out or Path("results") / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path} in {result['environment']['seconds']} s")


if __name__ == "__main__":
    main()
