"""Attention with each position method: time of inference and of a training step vs sequence length.

    python benchmarks/bench_attention.py [--lengths 512 1024 2048] [--heads 4 --head-dim 64] [--threads 1]
                                         [--out DIR]

Part 1: one causal MultiHeadAttention layer (batch 1, projections included) per method and length,
timed two ways in one process:
- "inference": the forward pass only, under ``torch.inference_mode()``. A bias method's
  [1, h, L, L] bias is then built on the first call and kept (ALiBi always; T5 only because no
  gradient is needed), so this is the cost of inference at a fixed length.
- "train": one training step's attention part, forward + backward of ``y.sum()`` with gradients
  for the parameters. T5's bias is then rebuilt on every call (its bucket table is being
  trained); ALiBi's fixed bias is still kept. No optimiser step, no other layers.
Each time is the median of --repeat calls after a warm-up call. The whole sweep over lengths and
methods runs --rounds times, interleaved, so a slow spell of the machine lands on every method
alike; the JSON keeps every round (``rounds``: the per-round medians) and the median over rounds
(``seconds``). A ratio to position="none" is taken within each round; the spread of those
per-round ratios is the noise to read next to it.

Extra peak memory is not measured here: chapter 9 measures it each time the book is tested
(``posenc.measure.attention_cost``, one fresh process per method).

Part 2: the SDPA calls underneath, at one length, also over the rounds: plain causal
(``is_causal=True``: the kernel skips the key tiles above the diagonal), a plain float causal mask
(0 on and below the diagonal, -inf above, [1, h, L, L]: the control, any float mask without ALiBi),
the ALiBi bias as a 3-D [h, L, L] mask and as a 4-D [1, h, L, L] mask (the same numbers), building
the bias, and SDPA with the bias rebuilt on every call. The control separates what a float mask
costs from what ALiBi's values cost.

Saves everything, with the machine and the load average (1, 5, 15 min) at the start, after every
round and at the end,
to DIR/bench_attention.json (--out; default ./results; ``make bench``: posenc/results, the copy
chapters 6 and 9 print). Timings on a shared or loaded
machine are noisy: read them with the spread over rounds, and compare runs only on one machine.
Goal (issue 11): ALiBi and T5 within 2x of plain causal attention at L = 2048 (inference).
"""

from __future__ import annotations

import argparse
import statistics

import torch
import torch.nn.functional as F

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

DEFAULT_METHODS = ["none", "sinusoidal", "learned", "shaw", "t5", "rope", "rope_interleaved", "alibi"]


def layer_calls(method: str, length: int, heads: int, head_dim: int) -> dict:
    """The two timed calls of one layer: ``{"inference": fn, "train": fn}``."""
    d_model = heads * head_dim
    torch.manual_seed(0)
    x = torch.randn(1, length, d_model)
    # two layers with the same weights: a bias cached under inference_mode cannot enter autograd;
    # each method with its default options (Shaw: clipping distance 16)
    frozen, trained = (posenc.MultiHeadAttention(d_model, heads, method, max_len=max(length, 2)) for _ in range(2))
    trained.load_state_dict(frozen.state_dict())
    frozen.eval()
    trained.train()

    def inference():
        with torch.inference_mode():
            frozen(x)

    def train():
        trained.zero_grad(set_to_none=True)
        trained(x).sum().backward()

    return {"inference": inference, "train": train}


def _inference(fn):
    def call():
        with torch.inference_mode():
            return fn()

    return call


def sdpa_calls(length: int, heads: int, head_dim: int) -> dict:
    """The timed SDPA calls, each under ``torch.inference_mode()``: name -> zero-argument function."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, heads, length, head_dim) for _ in range(3))
    bias3 = posenc.alibi_bias(heads, length)  # [h, L, L], -inf above the diagonal
    bias4 = bias3[None].contiguous()  # [1, h, L, L]
    # the control: the same shape and the same -inf entries, zero where ALiBi has its bias
    causal4 = torch.zeros_like(bias4).masked_fill(torch.isinf(bias4), float("-inf"))  # [1, h, L, L]
    with torch.inference_mode():
        assert torch.allclose(
            F.scaled_dot_product_attention(q, k, v, attn_mask=bias3),
            F.scaled_dot_product_attention(q, k, v, attn_mask=bias4),
            atol=1e-5,
        )
        assert torch.allclose(
            F.scaled_dot_product_attention(q, k, v, attn_mask=causal4),
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            atol=1e-5,
        )
    calls = {
        "causal SDPA (is_causal=True)": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        "SDPA + plain causal float mask, 4-D [1, h, L, L]": lambda: F.scaled_dot_product_attention(
            q, k, v, attn_mask=causal4
        ),
        "SDPA + ALiBi bias, 3-D [h, L, L] mask": lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=bias3),
        "SDPA + ALiBi bias, 4-D [1, h, L, L] mask": lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=bias4),
        "building the ALiBi bias": lambda: posenc.alibi_bias(heads, length),
        "SDPA + ALiBi bias rebuilt every call (4-D)": lambda: F.scaled_dot_product_attention(
            q, k, v, attn_mask=posenc.alibi_bias(heads, length)[None]
        ),
    }
    return {name: _inference(fn) for name, fn in calls.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[512, 1024, 2048])
    ap.add_argument("--methods", nargs="+", default=DEFAULT_METHODS, choices=list(posenc.POSITION_METHODS))
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--sdpa-length", type=int, default=2048)
    ap.add_argument("--repeat", type=int, default=5, help="timed calls per measurement (the median is kept)")
    ap.add_argument(
        "--rounds", type=int, default=7, help="interleaved sweeps over all lengths and methods; every round is saved"
    )
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (1: comparable on a shared machine)")
    ap.add_argument(
        "--out",
        default=None,
        help="folder of bench_attention.json (default ./results; "
        "make bench: posenc/results, the copy the chapters read)",
    )
    args = ap.parse_args()
    if "none" not in args.methods:  # every ratio is to position="none" of the same round
        args.methods = ["none", *args.methods]
    torch.set_num_threads(args.threads)
    load_start = load_average()
    print(describe_machine(machine()))
    print(f"load average at the start (1, 5, 15 min): {load_start}")
    print(
        f"causal attention, batch 1, {args.heads} heads, head_dim {args.head_dim}; "
        f"{args.rounds} interleaved rounds, each the median of {args.repeat} calls"
    )
    modes = ("inference", "train")
    calls = {n: {m: layer_calls(m, n, args.heads, args.head_dim) for m in args.methods} for n in args.lengths}
    sdpa = sdpa_calls(args.sdpa_length, args.heads, args.head_dim)
    timed = {(mode, n, m): calls[n][m][mode] for n in args.lengths for m in args.methods for mode in modes}
    timed |= {("sdpa", name): fn for name, fn in sdpa.items()}

    load_rounds = []  # the load average (1, 5, 15 min) after each round: how busy the machine was

    def progress(r: int) -> None:
        load = load_average()
        load_rounds.append(load)
        print(f"round {r}/{args.rounds} done, load average {load[0] if load else 'unknown'}", flush=True)

    # interleaved, so a slow spell of the machine hits every method alike
    times = interleaved_rounds(timed, rounds=args.rounds, repeat=args.repeat, warmup=1, on_round=progress)
    rounds = {mode: {n: {m: times[mode, n, m] for m in args.methods} for n in args.lengths} for mode in modes}
    sdpa_rounds = {name: times["sdpa", name] for name in sdpa}
    load_end = load_average()

    results = {}
    for mode, key in (("inference", "methods"), ("train", "train")):
        results[key] = {
            str(n): {m: {"seconds": statistics.median(rs), "rounds": rs} for m, rs in per_method.items()}
            for n, per_method in rounds[mode].items()
        }
        print(f"{mode}: time per call, and its ratio to 'none': median over rounds (min-max of the per-round ratios)")
        for n in args.lengths:
            base = rounds[mode][n]["none"]
            print(f"  L = {n}")
            for m, rs in rounds[mode][n].items():
                print(f"    {m:<17}{statistics.median(rs) * 1e3:9.1f} ms  {ratio_spread(round_ratios(rs, base))}")
    results["sdpa"] = {name: statistics.median(rs) for name, rs in sdpa_rounds.items()}
    results["sdpa_rounds"] = sdpa_rounds
    print(f"SDPA calls at L = {args.sdpa_length} (inference):")
    plain = sdpa_rounds["causal SDPA (is_causal=True)"]
    for name, rs in sdpa_rounds.items():
        print(f"  {name:<50}{statistics.median(rs) * 1e3:8.1f} ms  {ratio_spread(round_ratios(rs, plain))}")
    if args.sdpa_length in args.lengths:
        layer = rounds["inference"][args.sdpa_length]
        for m in ("alibi", "t5"):
            if m in layer:
                ratios = round_ratios(layer[m], layer["none"])
                print(
                    f"goal: {m} layer within 2x of plain causal attention at L = {args.sdpa_length} (inference): "
                    f"{ratio_spread(ratios)} ({'met' if max(ratios) <= 2 else 'NOT met in every round'})"
                )
    print(f"load average at the end (1, 5, 15 min): {load_end}")
    path = save_results(
        "attention",
        results,
        out_dir=args.out,
        settings={
            "heads": args.heads,
            "head_dim": args.head_dim,
            "batch": 1,
            "sdpa_length": args.sdpa_length,
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
