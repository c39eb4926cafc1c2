"""Chapter 11's FIRE fits from several L-BFGS starts: what holds across starts and T5 tables.

    python experiments/fire_fits.py --out posenc/results/fire-fits.json   # the file the book ships

The targets, the fits and the setting are ``posenc.experiments.fire_fit`` (``FIRE_FIT_CONFIG``; nothing
here changes a number). The file records the configuration, the command, the environment, the CPU
seconds and the code that made it (``posenc.experiments.code_record``), as ``experiments/extrapolation.py``
does; ``posenc.experiments.fire_fit.load_fire_fits`` notes when that code has changed since.
An L-BFGS path depends on the machine's float kernels: the chapter reads only what holds across starts.
Single-threaded, a few CPU minutes.
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

from posenc.experiments.fire_fit import run_fire_fits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=None, help="L-BFGS starts 0 .. N-1 (default: the configuration's)")
    ap.add_argument("--out", type=Path, default=Path("results") / "fire-fits.json")
    args = ap.parse_args()
    if args.starts is not None and args.starts < 1:
        ap.error("--starts N needs N >= 1")
    torch.set_num_threads(1)
    start, cpu = time.time(), time.process_time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    result = run_fire_fits(None if args.starts is None else range(args.starts), progress=True)
    result["command"] = "python " + " ".join(["experiments/fire_fits.py", *sys.argv[1:]])
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
