"""Attention with every position method: time and extra peak memory vs sequence length.

    python benchmarks/bench_attention.py [--lengths 512 1024 2048 4096] [--heads 4 --head-dim 64]

One causal MultiHeadAttention forward (projections included), each measurement in a fresh process
(posenc.bench.attention_cost). Prints ratios to position="none" measured in the same run.
"""
from __future__ import annotations

import argparse

from posenc.attention import POSITION_METHODS
from posenc.bench import attention_cost


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=64)
    args = ap.parse_args()
    print(f"causal attention, batch 1, {args.heads} heads, head_dim {args.head_dim}; ratios to position='none'")
    for length in args.lengths:
        costs = {m: attention_cost(m, length, heads=args.heads, head_dim=args.head_dim) for m in POSITION_METHODS}
        base = costs["none"]
        print(f"L = {length}")
        for m, c in costs.items():
            print(f"  {m:<17}{c['seconds'] * 1e3:9.1f} ms ({c['seconds'] / base['seconds']:5.2f}x)"
                  f"{c['peak_mib']:9.1f} MiB ({c['peak_mib'] / max(base['peak_mib'], 0.1):6.1f}x)")


if __name__ == "__main__":
    main()
