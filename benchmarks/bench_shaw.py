"""Shaw et al. relative attention: the straightforward form vs posenc's memory-efficient form.

    python benchmarks/bench_shaw.py [--lengths 256 512 1024 2048]

Each (method, length) runs in a fresh subprocess (posenc.bench.shaw_peak_memory), so peak memory
is that run's own: the extra resident memory above what the inputs take.
Goal (issue 3): at L = 2048 the efficient form needs at least 10x less peak memory.
"""
from __future__ import annotations

import argparse

from posenc.bench import describe_machine, machine, save_results, shaw_peak_memory


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[256, 512, 1024, 2048])
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--k", type=int, default=16, help="clipping distance")
    args = ap.parse_args()
    print(describe_machine(machine()))
    print(f"Shaw relative attention, batch 1, {args.heads} heads, head_dim {args.head_dim}, k={args.k}")
    print(f"{'L':>6}{'naive MiB':>11}{'eff. MiB':>10}{'mem ratio':>11}{'naive ms':>10}{'eff. ms':>9}{'speed-up':>10}")
    results = {}
    for length in args.lengths:
        n, e = (shaw_peak_memory(m, length, heads=args.heads, head_dim=args.head_dim, k=args.k)
                for m in ("naive", "efficient"))
        results[str(length)] = {"naive": n, "efficient": e}
        print(f"{length:>6}{n['peak_mib']:11.1f}{e['peak_mib']:10.1f}{n['peak_mib'] / max(e['peak_mib'], 0.1):11.1f}"
              f"{n['seconds'] * 1e3:10.1f}{e['seconds'] * 1e3:9.1f}{n['seconds'] / e['seconds']:10.2f}")

    path = save_results("shaw", results, settings={"heads": args.heads, "head_dim": args.head_dim, "k": args.k})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
