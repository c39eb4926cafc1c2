"""Decoding with a key/value cache: the time of one decode step beside a full pass, per position method.

    python benchmarks/bench_decode.py [--lengths 512 2048] [--heads 4 --head-dim 64] [--threads 1] [--out DIR]

For each method and context length T, one causal MultiHeadAttention layer (batch 1, projections
included, under ``torch.inference_mode()``) is timed two ways in one process:
- "full pass": the forward pass over all T tokens without a cache, what every new token would cost
  without one. A bias method's [1, h, T, T] bias is built on the first call and kept, as at a fixed
  length in chapter 9's attention benchmark.
- "decode step": one new token against a cache that holds the T - 1 tokens before it
  (``posenc.KVCache``; RoPE's keys are cached rotated). The timed call decodes --steps consecutive
  tokens from T - 1 cached ones and the time is divided by --steps, so each step has its own key
  length T, T + 1, ...: ALiBi and T5 build their [1, h, 1, T] bias row for each step, RoPE rotates
  the one new query and key. ``KVCache.append`` concatenates, so every step also copies the cache
  (O(T d)), the same for every method; engines that preallocate the cache avoid that copy.
Each time is the median of --repeat calls after a warm-up call. The whole sweep runs --rounds times,
interleaved, so a slow spell of the machine lands on every method alike; the JSON keeps every round.
Ratios are taken within each round: a method's step to the step of position="none" (what the
position method adds to a step), and each method's step to its own full pass.

Saves everything, with the machine and the load average (1, 5, 15 min) at the start, after every
round and at the end, to DIR/bench_decode.json (--out; default ./results; ``make bench``:
posenc/results, the copy chapter 9 prints). Timings on a shared or loaded machine are noisy: read
them with the spread over rounds, and compare runs only on one machine.
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

DEFAULT_METHODS = ["none", "rope", "alibi", "t5"]


def decode_calls(method: str, length: int, heads: int, head_dim: int, steps: int) -> dict:
    """The two timed calls of one layer at context length ``length``: ``{"full": fn, "step": fn}``."""
    d_model = heads * head_dim
    torch.manual_seed(0)
    x = torch.randn(1, length + steps, d_model)  # [1, T + steps, D]
    layer = posenc.MultiHeadAttention(d_model, heads, method, max_len=length + steps).eval()
    with torch.inference_mode():
        prefill = posenc.KVCache()
        layer(x[:, : length - 1], cache=prefill)  # the T - 1 tokens before the first decoded one
        k0, v0 = prefill.k, prefill.v  # [1, h, T - 1, d]: RoPE's keys already rotated
        # decoding reproduces the full pass: the last row of a full pass over T tokens
        step = layer(x[:, length - 1 : length], cache=posenc.KVCache(k0, v0))
        assert torch.allclose(step[:, -1], layer(x[:, :length])[:, -1], atol=1e-4), method

    def full():
        with torch.inference_mode():
            layer(x[:, :length])

    def decode():
        with torch.inference_mode():
            cache = posenc.KVCache(k0, v0)
            for i in range(length - 1, length - 1 + steps):
                layer(x[:, i : i + 1], cache=cache)

    return {"full": full, "step": decode}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[512, 2048])
    ap.add_argument("--methods", nargs="+", default=DEFAULT_METHODS, choices=list(posenc.POSITION_METHODS))
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--steps", type=int, default=8, help="consecutive decode steps per timed call")
    ap.add_argument("--repeat", type=int, default=5, help="timed calls per measurement (the median is kept)")
    ap.add_argument(
        "--rounds", type=int, default=7, help="interleaved sweeps over all lengths and methods; every round is saved"
    )
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (1: comparable on a shared machine)")
    ap.add_argument(
        "--out",
        default=None,
        help="folder of bench_decode.json (default ./results; make bench: posenc/results, the copy the chapters read)",
    )
    args = ap.parse_args()
    if "none" not in args.methods:  # every step ratio is to position="none" of the same round
        args.methods = ["none", *args.methods]
    torch.set_num_threads(args.threads)
    load_start = load_average()
    print(describe_machine(machine()))
    print(f"load average at the start (1, 5, 15 min): {load_start}")
    print(
        f"causal attention, batch 1, {args.heads} heads, head_dim {args.head_dim}; decode steps of one token, "
        f"{args.steps} per timed call; {args.rounds} interleaved rounds, each the median of {args.repeat} calls"
    )
    calls = {
        n: {m: decode_calls(m, n, args.heads, args.head_dim, args.steps) for m in args.methods} for n in args.lengths
    }
    timed = {(mode, n, m): calls[n][m][mode] for n in args.lengths for m in args.methods for mode in ("full", "step")}
    load_rounds = []

    def progress(r: int) -> None:
        load = load_average()
        load_rounds.append(load)
        print(f"round {r}/{args.rounds} done, load average {load[0] if load else 'unknown'}", flush=True)

    times = interleaved_rounds(timed, rounds=args.rounds, repeat=args.repeat, warmup=1, on_round=progress)
    load_end = load_average()

    results = {}
    for n in args.lengths:
        results[str(n)] = {}
        none_step = [t / args.steps for t in times["step", n, "none"]]
        print(
            f"T = {n}: time per call; a step's ratio to the step of 'none', and to its own full pass "
            "(median over rounds, min-max of the per-round ratios)"
        )
        for m in args.methods:
            full = times["full", n, m]
            step = [t / args.steps for t in times["step", n, m]]  # seconds per decode step
            results[str(n)][m] = {"full_rounds": full, "step_rounds": step}
            print(
                f"  {m:<8} full pass {statistics.median(full) * 1e3:8.2f} ms   "
                f"step {statistics.median(step) * 1e3:7.3f} ms"
                f"   step / none's step {ratio_spread(round_ratios(step, none_step))}"
                f"   step / full pass {ratio_spread(round_ratios(step, full))}"
            )
    print(f"load average at the end (1, 5, 15 min): {load_end}")
    path = save_results(
        "decode",
        results,
        out_dir=args.out,
        settings={
            "heads": args.heads,
            "head_dim": args.head_dim,
            "batch": 1,
            "steps": args.steps,
            "repeat": args.repeat,
            "rounds": args.rounds,
            "threads": args.threads,
            "load_average_start": load_start,
            "load_average_rounds": load_rounds,
            "load_average_end": load_end,
        },
    )
    print(f"saved {path}")


if __name__ == "__main__":
    main()
