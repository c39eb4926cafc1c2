"""RoPE apply: posenc vs the other common implementations, as ratios measured in one run.

    python benchmarks/bench_rope.py [--batch 4 --heads 32 --seq 2048 --head-dim 128] [--rounds 5 --threads 1]
                                    [--out DIR]

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
noise to read next to it. Each method's line reads e.g. "posenc.apply_rope half: 1.9x copy
(rounds 1.8-2.0)": its time over the copy's time measured in the same round, the median over
rounds and, in parentheses, the smallest and largest per-round ratio.

Saved, with the machine and the load average (1, 5, 15 min) at the start and the end, to
DIR/bench_rope.json (--out; default ./results). ``make bench`` passes --out posenc/results, the
copy chapter 9 prints.
"""

from __future__ import annotations

import argparse
import statistics

import torch

import posenc
from posenc.measure import (
    describe_machine,
    interleaved_rounds,
    load_average,
    machine,
    ratio_spread,
    round_ratios,
    save_results,
)


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
    # the same function compiled whole (inductor, CPU): the compiler fuses the reference form into one loop
    compiled = torch.compile(posenc.apply_rope, fullgraph=True, dynamic=False)
    with torch.inference_mode():
        assert torch.allclose(compiled(x, ch, sh, layout="half"), ref, atol=1e-5)
    return {
        "copy (bandwidth floor)": lambda: x.clone(),
        "posenc.apply_rope half": lambda: posenc.apply_rope(x, ch, sh, layout="half"),
        "posenc.apply_rope half, torch.compile": lambda: compiled(x, ch, sh, layout="half"),
        "posenc.apply_rope interleaved, torch.compile": lambda: compiled(x, ci, si, layout="interleaved"),
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
    return {
        "posenc.apply_rope": lambda: posenc.apply_rope(x, cos, sin),
        "HF rotate_half": lambda: posenc.apply_rope_rotate_half(x, cos, sin),
        "complex (Meta)": lambda: posenc.apply_rope_complex(x, freqs),
        "d×d matrix": lambda: torch.einsum("bhle,lde->bhld", x, mats),
    }


COPY, HF = "copy (bandwidth floor)", "HF eager rotate_half"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=7, help="timed calls per measurement (the median is kept)")
    ap.add_argument(
        "--rounds", type=int, default=5, help="interleaved passes over every method and size; every round is saved"
    )
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (1: comparable on a shared machine)")
    ap.add_argument(
        "--out",
        default=None,
        help="folder of bench_rope.json (default ./results; make bench: posenc/results, the copy the chapters read)",
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    load_start = load_average()
    print(describe_machine(machine()))
    print(f"load average at the start (1, 5, 15 min): {load_start}")
    b, h, L, d = args.batch, args.heads, args.seq, args.head_dim
    dims = [32, 64, 128, 256]
    main_calls = model_size_calls(b, h, L, d)
    sweep = {dd: sweep_calls(dd) for dd in dims}
    calls = {("model_size", name): fn for name, fn in main_calls.items()}
    calls |= {(dd, name): fn for dd, per_dim in sweep.items() for name, fn in per_dim.items()}

    def progress(r: int) -> None:
        load = load_average()
        print(f"round {r}/{args.rounds} done, load average {load[0] if load else 'unknown'}", flush=True)

    with torch.inference_mode():  # interleaved, so a slow spell of the machine hits every method alike
        times = interleaved_rounds(calls, rounds=args.rounds, repeat=args.repeat, warmup=1, on_round=progress)
    load_end = load_average()
    main_rounds = {name: times["model_size", name] for name in main_calls}
    sweep_rounds = {name: [times[dd, name] for dd in dims] for name in sweep[dims[0]]}

    print(
        f"RoPE apply on [{b}, {h}, {L}, {d}] float32, {args.threads} thread(s), {args.rounds} rounds: each "
        "method's time over a plain copy's (and HF eager's) measured in the same round, median over rounds "
        "(smallest-largest per-round ratio); then its median time"
    )
    copy, hf = main_rounds[COPY], main_rounds[HF]
    for name, rs in main_rounds.items():
        if name == COPY:
            ms = [t * 1e3 for t in rs]
            print(f"  {name}: {statistics.median(ms):.2f} ms (rounds {min(ms):.2f}-{max(ms):.2f} ms)")
            continue
        vs_copy, vs_hf = ratio_spread(round_ratios(rs, copy), "copy"), ratio_spread(round_ratios(rs, hf), "HF eager")
        print(f"  {name}: {vs_copy}; {vs_hf}; {statistics.median(rs) * 1e3:.2f} ms")
    for layout in ("half", "interleaved"):  # the medians over rounds decide; the ranges show the noise
        ours = main_rounds[f"posenc.apply_rope {layout}"]
        vs_copy, vs_hf = round_ratios(ours, copy), round_ratios(ours, hf)
        met = statistics.median(vs_copy) <= 3 and statistics.median(vs_hf) <= 1
        print(
            f"goal (issue 3), {layout}: within 3x of the copy and no slower than HF eager: "
            f"{'met' if met else 'NOT met'} ({ratio_spread(vs_copy, 'copy')}, {ratio_spread(vs_hf, 'HF eager')})"
        )
    print(f"[1, 8, 1024, d], {args.threads} thread(s): time / posenc.apply_rope, median over rounds (min-max)")
    ours = sweep_rounds["posenc.apply_rope"]
    for name, per_dim in sweep_rounds.items():
        print(
            f"  {name:<20}"
            + "".join(f"  d={dd}: {ratio_spread(round_ratios(rs, ps))}" for dd, rs, ps in zip(dims, per_dim, ours))
        )
    print(f"load average at the end (1, 5, 15 min): {load_end}")
    results = {
        "model_size": {name: statistics.median(rs) for name, rs in main_rounds.items()},
        "model_size_rounds": main_rounds,
        "head_dim_sweep": {
            "dims": dims,
            "seconds": {name: [statistics.median(rs) for rs in per_dim] for name, per_dim in sweep_rounds.items()},
            "rounds": sweep_rounds,
        },
    }
    path = save_results(
        "rope",
        results,
        out_dir=args.out,
        settings={
            "model_size": [b, h, L, d],
            "model_size_threads": args.threads,
            "sweep": [1, 8, 1024, "d"],
            "sweep_threads": args.threads,
            "repeat": args.repeat,
            "rounds": args.rounds,
            "threads": args.threads,
            "load_average_start": load_start,
            "load_average_end": load_end,
        },
    )
    print(f"saved {path}")


if __name__ == "__main__":
    main()
