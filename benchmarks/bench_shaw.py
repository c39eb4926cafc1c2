"""Shaw et al. relative attention: peak memory of the straightforward form vs posenc's form.

    python benchmarks/bench_shaw.py [--lengths 256 512 1024 2048] [--sweep-length 512] [--out DIR]

Memory only, no times. The memory is counted, not sampled: the most bytes of tensors that one call
creates and holds at once, as torch allocates them (posenc.measure.TensorMemory, a dispatch mode).
The count depends on shapes and dtypes only, so it is the same on every machine, CPU, thread count
and load; it excludes what a kernel allocates and frees inside one operator, Python objects and
the allocator's overhead, and the inputs (they exist before the call).

Two measurements (batch 1, clipping distance k = 16, float32):
- lengths: 4 heads, head_dim 64, L = --lengths;
- sweep: heads 4, 16, 32 x head_dim 64, 128 at L = --sweep-length. The straightforward form adds
  two [L, L, head_dim] tensors shared by all heads; both forms hold a few [heads, L, L] matrices;
  so the saving is a factor set by head_dim / heads, roughly constant in L.

Saved to DIR/bench_shaw.json (--out; default ./results; ``make bench``: posenc/results, the copy
chapter 3 prints).
"""

from __future__ import annotations

import argparse

import torch

import posenc
from posenc.measure import describe_machine, machine, save_results, tensor_peak_mib


def peak_mib(method: str, length: int, heads: int, head_dim: int, k: int) -> float:
    """Extra peak MiB of one (causal) Shaw attention call, inputs excluded (counted, not sampled)."""
    torch.manual_seed(0)
    q, kk, v = (torch.randn(1, heads, length, head_dim) for _ in range(3))
    rk, rv = torch.randn(2, 2 * k + 1, head_dim)
    fn = posenc.shaw_attention if method == "efficient" else posenc.shaw_attention_naive
    with torch.inference_mode():
        return tensor_peak_mib(lambda: fn(q, kk, v, rk, rv))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[256, 512, 1024, 2048])
    ap.add_argument("--sweep-length", type=int, default=512)
    ap.add_argument("--k", type=int, default=16, help="clipping distance")
    ap.add_argument("--out", default=None, help="folder of bench_shaw.json (default ./results)")
    args = ap.parse_args()
    print(describe_machine(machine()), "(memory is counted: the same on every machine)")
    print(f"Shaw relative attention, batch 1, k = {args.k}, float32; extra peak MiB of tensors")
    lengths = {}
    print(f"4 heads, head_dim 64\n{'L':>6}{'naive MiB':>11}{'eff. MiB':>10}{'ratio':>8}")
    for length in args.lengths:
        n, e = (peak_mib(m, length, 4, 64, args.k) for m in ("naive", "efficient"))
        lengths[str(length)] = {"naive": {"peak_mib": n}, "efficient": {"peak_mib": e}}
        print(f"{length:>6}{n:11.1f}{e:10.1f}{n / e:8.1f}")
    sweep = []
    print(f"L = {args.sweep_length}\n{'heads':>6}{'head_dim':>10}{'naive MiB':>11}{'eff. MiB':>10}{'ratio':>8}")
    for heads in (4, 16, 32):
        for head_dim in (64, 128):
            n, e = (peak_mib(m, args.sweep_length, heads, head_dim, args.k) for m in ("naive", "efficient"))
            sweep.append({"heads": heads, "head_dim": head_dim, "naive_mib": n, "efficient_mib": e})
            print(f"{heads:>6}{head_dim:>10}{n:11.1f}{e:10.1f}{n / e:8.1f}")

    path = save_results(
        "shaw",
        {"lengths": lengths, "sweep": sweep},
        out_dir=args.out,
        settings={
            "heads": 4,
            "head_dim": 64,
            "k": args.k,
            "sweep_length": args.sweep_length,
            "measure": "posenc.measure.tensor_peak_mib (bytes of live tensors, counted)",
        },
    )
    print(f"saved {path}")


if __name__ == "__main__":
    main()
