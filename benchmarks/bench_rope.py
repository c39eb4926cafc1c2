"""RoPE apply: posenc vs the other common implementations, as ratios measured in one run.

    python benchmarks/bench_rope.py [--batch 4 --heads 32 --seq 2048 --head-dim 128]

Compared on a float32 ``[batch, heads, seq, head_dim]`` tensor, tables precomputed:
- posenc.apply_rope (half layout), posenc.apply_rope (interleaved layout)
- Hugging Face's eager ``x * cos + rotate_half(x) * sin``
- Meta LLaMA's complex multiply (the form the seeds use)
- the O(d^2) rotation-matrix form (one [d, d] matrix per position)
- a plain tensor copy: the memory-bandwidth floor for reading x and writing a result
Goal (issue 3): posenc no slower than the HF-style version and within 3x of the copy.

Part 2 (chapter 9): [1, 8, 1024, d] for head dimensions 32 to 256, one thread: how the O(d^2)
matrix form falls behind the O(d) forms as d grows. Both parts are saved, with the machine, to
posenc/results/bench_rope.json.
"""
from __future__ import annotations

import argparse

import torch

import posenc
from posenc.bench import describe_machine, machine, median_seconds, save_results


def head_dim_sweep(dims: list[int], seq: int = 1024, heads: int = 8, repeat: int = 7) -> dict:
    """Seconds per method for ``[1, heads, seq, d]``, one thread, for each ``d`` in ``dims``."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    times: dict[str, list[float]] = {"posenc.apply_rope": [], "HF rotate_half": [], "complex (Meta)": [],
                                     "d×d matrix": []}
    with torch.inference_mode():
        for d in dims:
            x = torch.randn(1, heads, seq, d)
            cos, sin = posenc.rope_cos_sin(seq, d)
            freqs = posenc.rope_freqs_cis(seq, d)
            mats = torch.stack([posenc.rope_matrix(m, d, layout="half") for m in range(seq)])  # [L, d, d]
            runs = {"posenc.apply_rope": lambda: posenc.apply_rope(x, cos, sin),
                    "HF rotate_half": lambda: posenc.apply_rope_rotate_half(x, cos, sin),
                    "complex (Meta)": lambda: posenc.apply_rope_complex(x, freqs),
                    "d×d matrix": lambda: torch.einsum("bhle,lde->bhld", x, mats)}
            for name, fn in runs.items():
                times[name].append(median_seconds(fn, repeat=repeat))
    torch.set_num_threads(threads)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    torch.manual_seed(0)
    b, h, L, d = args.batch, args.heads, args.seq, args.head_dim
    x = torch.randn(b, h, L, d)
    ch, sh = posenc.rope_cos_sin(L, d, layout="half")
    ci, si = posenc.rope_cos_sin(L, d, layout="interleaved")
    freqs_cis = posenc.rope_freqs_cis(L, d)
    mats = torch.stack([posenc.rope_matrix(m, d, layout="half") for m in range(L)])  # [L, d, d]

    with torch.inference_mode():
        ref = posenc.apply_rope_rotate_half(x, ch, sh)
        assert torch.allclose(posenc.apply_rope(x, ch, sh, layout="half"), ref, atol=1e-5)
        methods = {
            "copy (bandwidth floor)": lambda: x.clone(),
            "posenc.apply_rope half": lambda: posenc.apply_rope(x, ch, sh, layout="half"),
            "posenc.apply_rope interleaved": lambda: posenc.apply_rope(x, ci, si, layout="interleaved"),
            "HF eager rotate_half": lambda: posenc.apply_rope_rotate_half(x, ch, sh),
            "Meta complex multiply": lambda: posenc.apply_rope_complex(x, freqs_cis),
            "O(d^2) matrix per position": lambda: torch.einsum("bhle,lde->bhld", x, mats),
        }
        times = {name: median_seconds(fn, repeat=args.repeat) for name, fn in methods.items()}

    print(describe_machine(machine()))
    print(f"RoPE apply on [{b}, {h}, {L}, {d}] float32, {torch.get_num_threads()} threads, "
          f"median of {args.repeat}")
    copy, hf = times["copy (bandwidth floor)"], times["HF eager rotate_half"]
    print(f"{'method':<32}{'ms':>9}{'x copy':>9}{'x HF':>8}")
    for name, t in times.items():
        print(f"{name:<32}{t * 1e3:9.1f}{t / copy:9.2f}{t / hf:8.2f}")
    ours = times["posenc.apply_rope half"]
    print(f"posenc vs HF eager: {hf / ours:.2f}x faster; posenc / copy: {ours / copy:.2f}")

    dims = [32, 64, 128, 256]
    sweep = head_dim_sweep(dims)
    print("[1, 8, 1024, d], one thread: time / posenc.apply_rope")
    for name, ts in sweep.items():
        print(f"  {name:<20}" + "".join(f"{t / p:8.2f}" for t, p in zip(ts, sweep["posenc.apply_rope"])))
    path = save_results("rope", {"model_size": times, "head_dim_sweep": {"dims": dims, "seconds": sweep}},
                        settings={"model_size": [b, h, L, d], "model_size_threads": torch.get_num_threads(),
                                  "sweep": [1, 8, 1024, "d"], "sweep_threads": 1, "repeat": args.repeat})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
