"""Chapter 11's counting task over ten seeds: CoPE against RoPE, the run the chapter's thresholds rest on.

    python experiments/counting_sweep.py --out posenc/results/counting-sweep.json   # the file the book ships

The task, the model and the setting are ``posenc.experiments.counting`` (``COUNTING_CONFIG``; nothing
here changes a number). The file records the configuration, the command, the environment, the CPU
seconds and the code that made it (``posenc.experiments.code_record``), as ``experiments/extrapolation.py``
does; ``posenc.experiments.counting.load_counting_sweep`` notes when that code has changed since.
Single-threaded, about three CPU minutes.
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

from posenc.experiments.counting import run_counting_sweep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1 (default 10)")
    ap.add_argument("--out", type=Path, default=Path("results") / "counting-sweep.json")
    args = ap.parse_args()
    if args.seeds < 1:
        ap.error("--seeds N needs N >= 1")
    torch.set_num_threads(1)
    start, cpu = time.time(), time.process_time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    result = run_counting_sweep(range(args.seeds), progress=True)
    result["command"] = "python " + " ".join(["experiments/counting_sweep.py", *sys.argv[1:]])
    result["environment"] = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "threads": 1,
        "load_average_at_start": None if load is None else round(load, 2),
        "seconds": round(time.time() - start),
        "cpu_seconds": round(time.process_time() - cpu),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out} in {result['environment']['seconds']} s")


if __name__ == "__main__":
    main()
