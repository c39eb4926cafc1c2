"""Softmax attention against linear (kernel) attention: time vs sequence length.

    python benchmarks/bench_linear.py [--lengths 512 1024 2048 4096] [--heads 4 --head-dim 64] [--out DIR]

Non-causal, batch 1, one thread (steadier when other work shares the CPU). Softmax attention is
PyTorch's fused SDPA; linear attention is posenc.linear_attention (elu + 1 features). Saved to
DIR/bench_linear.json (--out; default ./results); ``make bench`` writes posenc/results/, the copy
chapter 3 prints (its asserts count operations instead).
"""

from __future__ import annotations

import argparse
import functools

import torch
import torch.nn.functional as F

import posenc
from posenc.measure import describe_machine, machine, median_seconds, save_results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out", default=None, help="folder of bench_linear.json (default ./results)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(describe_machine(machine()))
    times = {"softmax": [], "linear": []}
    with torch.inference_mode():
        for n in args.lengths:
            q, k, v = (torch.randn(1, args.heads, n, args.head_dim) for _ in range(3))
            softmax = functools.partial(F.scaled_dot_product_attention, q, k, v)
            linear = functools.partial(posenc.linear_attention, q, k, v)
            times["softmax"].append(median_seconds(softmax, repeat=args.repeat))
            times["linear"].append(median_seconds(linear, repeat=args.repeat))
    for n, a, b in zip(args.lengths, times["softmax"], times["linear"]):
        print(f"L = {n:5}: softmax {a * 1e3:7.1f} ms, linear {b * 1e3:6.1f} ms, ratio {a / b:5.1f}")
    path = save_results(
        "linear",
        {"lengths": args.lengths, "seconds": times},
        out_dir=args.out,
        settings={"heads": args.heads, "head_dim": args.head_dim, "batch": 1, "threads": 1, "repeat": args.repeat},
    )
    print(f"saved {path}")


if __name__ == "__main__":
    main()
