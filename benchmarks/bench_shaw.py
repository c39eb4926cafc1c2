"""Shaw et al. relative attention: the straightforward form vs posenc's memory-efficient form.

    python benchmarks/bench_shaw.py [--lengths 256 512 1024 2048]

Each (method, length) runs in a fresh subprocess, so peak memory is that run's own: the extra
resident memory above what the inputs take (peak RSS after the call minus RSS before it).
Goal (issue 3): at L = 2048 the efficient form needs at least 10x less peak memory.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_one(method: str, length: int, heads: int, head_dim: int, k: int) -> dict:
    import torch

    sys.path.insert(0, str(HERE))
    import posenc
    from _timing import current_rss_mib, median_seconds, peak_rss_mib

    torch.manual_seed(0)
    q, kk, v = (torch.randn(1, heads, length, head_dim) for _ in range(3))
    rk, rv = torch.randn(2 * k + 1, head_dim), torch.randn(2 * k + 1, head_dim)
    fn = posenc.shaw_attention if method == "efficient" else posenc.shaw_attention_naive
    with torch.inference_mode():
        before = current_rss_mib()
        fn(q, kk, v, rk, rv)  # first call: the peak we report
        peak = peak_rss_mib() - before
        seconds = median_seconds(lambda: fn(q, kk, v, rk, rv), repeat=3, warmup=0)
    return {"peak_mib": peak, "seconds": seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[256, 512, 1024, 2048])
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--k", type=int, default=16, help="clipping distance")
    ap.add_argument("--one", nargs=2, metavar=("METHOD", "LENGTH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]), args.heads, args.head_dim, args.k)))
        return
    print(f"Shaw relative attention, batch 1, {args.heads} heads, head_dim {args.head_dim}, k={args.k}")
    print(f"{'L':>6}{'naive MiB':>11}{'eff. MiB':>10}{'mem ratio':>11}{'naive ms':>10}{'eff. ms':>9}{'speed-up':>10}")
    for length in args.lengths:
        res = {}
        for method in ("naive", "efficient"):
            out = subprocess.run([sys.executable, __file__, "--one", method, str(length), "--heads", str(args.heads),
                                  "--head-dim", str(args.head_dim), "--k", str(args.k)],
                                 capture_output=True, text=True, check=True)
            res[method] = json.loads(out.stdout)
        n, e = res["naive"], res["efficient"]
        print(f"{length:>6}{n['peak_mib']:11.1f}{e['peak_mib']:10.1f}{n['peak_mib'] / max(e['peak_mib'], 0.1):11.1f}"
              f"{n['seconds'] * 1e3:10.1f}{e['seconds'] * 1e3:9.1f}{n['seconds'] / e['seconds']:10.2f}")


if __name__ == "__main__":
    main()
