"""RoPE apply: posenc vs the other common implementations, as ratios measured in one run.

    python benchmarks/bench_rope.py [--batch 4 --heads 32 --seq 2048 --head-dim 128] [--rounds 5 --threads 1]

Compared on a float32 ``[batch, heads, seq, head_dim]`` tensor, tables precomputed:
- posenc.apply_rope (half layout), posenc.apply_rope (interleaved layout)
- Hugging Face's eager ``x * cos + rotate_half(x) * sin``
- Meta LLaMA's complex multiply (the form the seeds use)
- the O(d^2) rotation-matrix form (one [d, d] matrix per position)
- a plain tensor copy: the memory-bandwidth floor for reading x and writing a result
Goal (issue 3): posenc no slower than the HF-style version and within 3x of the copy.

Part 2 (chapter 9): [1, 8, 1024, d] for head dimensions 32 to 256: how the O(d^2) matrix form
falls behind the O(d) forms as d grows.

Each time is the median of --repeat calls after warm-up calls. Both parts run --rounds times,
interleaved (round 1 of every entry, then round 2, ...), so a slow spell of a shared machine lands
on every method alike; the JSON keeps every round (``rounds``) and the median over rounds
(``seconds``). A ratio is taken within each round; the spread of the per-round ratios is the
noise to read next to it. Saved, with the machine and the load average (1, 5, 15 min) at the
start and the end, to posenc/results/bench_rope.json (chapter 9 prints it).
"""
from __future__ import annotations

import argparse
import os
import statistics

import torch

import posenc
from posenc.bench import describe_machine, machine, median_seconds, save_results


def model_size_calls(b: int, h: int, L: int, d: int) -> dict:
    """The timed calls on ``[b, h, L, d]``, name -> zero-argument function."""
    torch.manual_seed(0)
    x = torch.randn(b, h, L, d)
    ch, sh = posenc.rope_cos_sin(L, d, layout="half")
    ci, si = posenc.rope_cos_sin(L, d, layout="interleaved")
    freqs_cis = posenc.rope_freqs_cis(L, d)
    mats = torch.stack([posenc.rope_matrix(m, d, layout="half") for m in range(L)])  # [L, d, d]
    with torch.inference_mode():
        ref = posenc.apply_rope_rotate_half(x, ch, sh)
        assert torch.allclose(posenc.apply_rope(x, ch, sh, layout="half"), ref, atol=1e-5)
        assert torch.allclose(torch.einsum("bhle,lde->bhld", x, mats), ref, atol=1e-4)
    return {
        "copy (bandwidth floor)": lambda: x.clone(),
        "posenc.apply_rope half": lambda: posenc.apply_rope(x, ch, sh, layout="half"),
        "posenc.apply_rope interleaved": lambda: posenc.apply_rope(x, ci, si, layout="interleaved"),
        "HF eager rotate_half": lambda: posenc.apply_rope_rotate_half(x, ch, sh),
        "Meta complex multiply": lambda: posenc.apply_rope_complex(x, freqs_cis),
        "O(d^2) matrix per position": lambda: torch.einsum("bhle,lde->bhld", x, mats),
    }


def sweep_calls(d: int, seq: int = 1024, heads: int = 8) -> dict:
    """The timed calls on ``[1, heads, seq, d]``, name -> zero-argument function."""
    torch.manual_seed(0)
    x = torch.randn(1, heads, seq, d)
    cos, sin = posenc.rope_cos_sin(seq, d)
    freqs = posenc.rope_freqs_cis(seq, d)
    mats = torch.stack([posenc.rope_matrix(m, d, layout="half") for m in range(seq)])  # [L, d, d]
    return {"posenc.apply_rope": lambda: posenc.apply_rope(x, cos, sin),
            "HF rotate_half": lambda: posenc.apply_rope_rotate_half(x, cos, sin),
            "complex (Meta)": lambda: posenc.apply_rope_complex(x, freqs),
            "d×d matrix": lambda: torch.einsum("bhle,lde->bhld", x, mats)}


def spread(per_round: list[float]) -> str:
    return f"{statistics.median(per_round):6.2f} [{min(per_round):.2f}-{max(per_round):.2f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=7, help="timed calls per measurement (the median is kept)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="interleaved passes over every method and size; every round is saved")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (1: comparable on a shared machine)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    load_start = os.getloadavg()
    print(describe_machine(machine()))
    print(f"load average at the start (1, 5, 15 min): {load_start}")
    b, h, L, d = args.batch, args.heads, args.seq, args.head_dim
    dims = [32, 64, 128, 256]
    main_calls = model_size_calls(b, h, L, d)
    sweep = {dd: sweep_calls(dd) for dd in dims}
    main_rounds = {name: [] for name in main_calls}
    sweep_rounds = {name: [[] for _ in dims] for name in sweep[dims[0]]}
    with torch.inference_mode():
        for r in range(args.rounds):  # interleaved, so a slow spell of the machine hits every method alike
            for name, fn in main_calls.items():
                main_rounds[name].append(median_seconds(fn, repeat=args.repeat, warmup=1))
            for i, dd in enumerate(dims):
                for name, fn in sweep[dd].items():
                    sweep_rounds[name][i].append(median_seconds(fn, repeat=args.repeat, warmup=1))
            print(f"round {r + 1}/{args.rounds} done, load average {os.getloadavg()[0]:.2f}", flush=True)
    load_end = os.getloadavg()

    print(f"RoPE apply on [{b}, {h}, {L}, {d}] float32, {args.threads} thread(s); time / copy and time / HF "
          "eager: median over rounds [min-max of the per-round ratios]")
    copy, hf = main_rounds["copy (bandwidth floor)"], main_rounds["HF eager rotate_half"]
    for name, rs in main_rounds.items():
        print(f"  {name:<32}{statistics.median(rs) * 1e3:8.1f} ms  x copy {spread([t / c for t, c in zip(rs, copy)])}"
              f"  x HF {spread([t / f for t, f in zip(rs, hf)])}")
    print(f"[1, 8, 1024, d], {args.threads} thread(s): time / posenc.apply_rope, median over rounds [min-max]")
    ours = sweep_rounds["posenc.apply_rope"]
    for name, per_dim in sweep_rounds.items():
        print(f"  {name:<20}" + "".join(
            f"  d={dd}: {spread([t / p for t, p in zip(rs, ps)])}" for dd, rs, ps in zip(dims, per_dim, ours)))
    print(f"load average at the end (1, 5, 15 min): {load_end}")
    results = {
        "model_size": {name: statistics.median(rs) for name, rs in main_rounds.items()},
        "model_size_rounds": main_rounds,
        "head_dim_sweep": {"dims": dims,
                           "seconds": {name: [statistics.median(rs) for rs in per_dim]
                                       for name, per_dim in sweep_rounds.items()},
                           "rounds": sweep_rounds},
    }
    path = save_results("rope", results,
                        settings={"model_size": [b, h, L, d], "model_size_threads": args.threads,
                                  "sweep": [1, 8, 1024, "d"], "sweep_threads": args.threads,
                                  "repeat": args.repeat, "rounds": args.rounds, "threads": args.threads,
                                  "load_average_start": list(load_start), "load_average_end": list(load_end)})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
