"""RoPE apply: posenc vs the other common implementations, as ratios measured in one run.

    python benchmarks/bench_rope.py [--batch 4 --heads 32 --seq 2048 --head-dim 128]

Compared on a float32 ``[batch, heads, seq, head_dim]`` tensor, tables precomputed:
- posenc.apply_rope (half layout), posenc.apply_rope (interleaved layout)
- Hugging Face's eager ``x * cos + rotate_half(x) * sin``
- Meta LLaMA's complex multiply (the form the seeds use)
- the O(d^2) rotation-matrix form (one [d, d] matrix per position)
- a plain tensor copy: the memory-bandwidth floor for reading x and writing a result
Goal (issue 3): posenc no slower than the HF-style version and within 3x of the copy.
"""
from __future__ import annotations

import argparse

import torch

import posenc
from posenc.bench import median_seconds


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

    print(f"RoPE apply on [{b}, {h}, {L}, {d}] float32, {torch.get_num_threads()} threads, "
          f"median of {args.repeat}")
    copy, hf = times["copy (bandwidth floor)"], times["HF eager rotate_half"]
    print(f"{'method':<32}{'ms':>9}{'x copy':>9}{'x HF':>8}")
    for name, t in times.items():
        print(f"{name:<32}{t * 1e3:9.1f}{t / copy:9.2f}{t / hf:8.2f}")
    ours = times["posenc.apply_rope half"]
    print(f"posenc vs HF eager: {hf / ours:.2f}x faster; posenc / copy: {ours / copy:.2f}")


if __name__ == "__main__":
    main()
