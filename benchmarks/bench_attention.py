"""Attention with every position method: time and extra peak memory vs sequence length.

    python benchmarks/bench_attention.py [--lengths 512 1024 2048 4096] [--heads 4 --head-dim 64]

Part 1: one causal MultiHeadAttention forward (projections included) per method and length, each
in a fresh process (posenc.bench.attention_cost). The time is the median of --repeat calls after the
first, so a bias method's cached [1, h, L, L] bias is built once, as in training or evaluation at a
fixed length; the memory is the extra peak of the first call, which builds it. The sweep over
methods and lengths runs --rounds times, interleaved, and each number is the median over the
rounds (a virtual machine's slow spells otherwise land on one method). Ratios are to
position="none" measured in the same run.

Part 2: the SDPA calls underneath, at one length: plain causal, the ALiBi bias as a 3-D [h, L, L]
mask and as a 4-D [1, h, L, L] mask (the same numbers), building the bias, and SDPA with the bias
rebuilt on every call. It shows what the bias layout and a per-call rebuild would cost.

Saves everything, with the machine, to posenc/results/bench_attention.json (chapters 6 and 9 print it).
Goal (issue 11): ALiBi and T5 within 2x of plain causal attention at L = 2048.
"""
from __future__ import annotations

import argparse
import statistics

import torch
import torch.nn.functional as F

import posenc
from posenc.attention import POSITION_METHODS
from posenc.bench import attention_cost, describe_machine, machine, median_seconds, save_results


def sdpa_calls(length: int, heads: int, head_dim: int, repeat: int) -> dict:
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, heads, length, head_dim) for _ in range(3))
    bias3 = posenc.alibi_bias(heads, length)  # [h, L, L], -inf above the diagonal
    bias4 = bias3[None].contiguous()  # [1, h, L, L]
    with torch.inference_mode():
        assert torch.allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=bias3),
                              F.scaled_dot_product_attention(q, k, v, attn_mask=bias4), atol=1e-5)
        calls = {
            "causal SDPA (is_causal=True)": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
            "SDPA + ALiBi bias, 3-D [h, L, L] mask": lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=bias3),
            "SDPA + ALiBi bias, 4-D [1, h, L, L] mask": lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=bias4),
            "building the ALiBi bias": lambda: posenc.alibi_bias(heads, length),
            "SDPA + ALiBi bias rebuilt every call (4-D)": lambda: F.scaled_dot_product_attention(
                q, k, v, attn_mask=posenc.alibi_bias(heads, length)[None]),
        }
        return {name: median_seconds(fn, repeat=repeat) for name, fn in calls.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--sdpa-length", type=int, default=2048)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3,
                    help="sweeps over all methods and lengths; each number is the median over the rounds")
    args = ap.parse_args()
    print(describe_machine(machine()))
    print(f"causal attention, batch 1, {args.heads} heads, head_dim {args.head_dim}; ratios to position='none'")
    runs = {length: {m: [] for m in POSITION_METHODS} for length in args.lengths}
    for _ in range(args.rounds):  # interleaved, so a slow spell of the machine hits every method alike
        for length in args.lengths:
            for m in POSITION_METHODS:
                runs[length][m].append(attention_cost(m, length, heads=args.heads, head_dim=args.head_dim,
                                                      repeat=args.repeat))
    costs = {length: {m: {key: statistics.median(r[key] for r in rs) for key in ("seconds", "peak_mib")}
                      for m, rs in per_method.items()} for length, per_method in runs.items()}
    for length in args.lengths:
        base = costs[length]["none"]
        print(f"L = {length}")
        for m, c in costs[length].items():
            print(f"  {m:<17}{c['seconds'] * 1e3:9.1f} ms ({c['seconds'] / base['seconds']:5.2f}x)"
                  f"{c['peak_mib']:9.1f} MiB ({c['peak_mib'] / max(base['peak_mib'], 0.1):6.1f}x)")
    calls = sdpa_calls(args.sdpa_length, args.heads, args.head_dim, args.repeat)
    print(f"SDPA calls at L = {args.sdpa_length}:")
    plain = calls["causal SDPA (is_causal=True)"]
    for name, t in calls.items():
        print(f"  {name:<44}{t * 1e3:8.1f} ms ({t / plain:5.2f}x)")
    if args.sdpa_length in costs:
        layer = costs[args.sdpa_length]
        for m in ("alibi", "t5"):
            ratio = layer[m]["seconds"] / layer["none"]["seconds"]
            print(f"goal: {m} layer within 2x of plain causal attention at L = {args.sdpa_length}: "
                  f"{ratio:.2f}x ({'met' if ratio <= 2 else 'NOT met'})")
    path = save_results("attention", {"methods": {str(n): c for n, c in costs.items()}, "sdpa": calls},
                        settings={"heads": args.heads, "head_dim": args.head_dim, "batch": 1,
                                  "sdpa_length": args.sdpa_length, "repeat": args.repeat, "rounds": args.rounds})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
