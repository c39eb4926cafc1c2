"""A tiny causal language model and a synthetic corpus for the "train short, test long" experiment.

Everything is local and seeded: the corpus is generated, nothing is downloaded. The model is a
pre-LayerNorm decoder whose position method is a parameter (``posenc.attention.POSITION_METHODS``);
absolute encodings are added once to the token embeddings, the others act inside every layer.

Shape legend: ``b`` batch, ``L`` sequence length, ``V`` vocabulary size, ``D`` model width.

References:
    Press, Smith, Lewis, "Train Short, Test Long", ICLR 2022 (the experiment reproduced at toy scale).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import check_choice, check_float, check_int
from .absolute import LearnedPositionalEmbedding, sinusoidal_encoding_at
from .attention import POSITION_METHODS, MultiHeadAttention
from .rope import ROPE_TYPES, RotaryEmbedding, rope_scaled_inv_freq

__all__ = ["SyntheticCorpus", "TinyLM", "train_lm", "evaluate_lm", "run_extrapolation", "load_results", "summarize",
           "EXPERIMENT_METHODS",
           "ROPE_SCALINGS"]


@dataclass
class SyntheticCorpus:
    """A random "language" with local and long-range structure.

    Tokens follow a sparse random second-order Markov chain (each context allows ``branching``
    next tokens), and with probability ``copy_prob`` per position a span of 4 to 12 earlier tokens is
    repeated verbatim: predicting it needs attention to a distant position, as in real text.

    Args:
        vocab_size (int): number of token ids ``V``.
        branching (int): allowed next tokens per context.
        copy_prob (float): chance per position of starting a copied span.
        seed (int): seed of the transition tables.
    """

    vocab_size: int = 32
    branching: int = 3
    copy_prob: float = 0.02
    seed: int = 0

    def __post_init__(self) -> None:
        self.vocab_size = check_int("vocab_size", self.vocab_size, min_value=2)
        self.branching = check_int("branching", self.branching, min_value=1, max_value=self.vocab_size)
        self.copy_prob = check_float("copy_prob", self.copy_prob, ge=0.0, le=1.0)
        g = torch.Generator().manual_seed(check_int("seed", self.seed))
        v = self.vocab_size
        self.next_tokens = torch.stack(
            [torch.randperm(v, generator=g)[: self.branching] for _ in range(v * v)]
        ).view(v, v, self.branching)  # [V, V, branching]: allowed continuations of (a, b)

    def sample(self, batch: int, length: int, *, generator: torch.Generator) -> torch.Tensor:
        """``[batch, length]`` int64 token sequences."""
        batch = check_int("batch", batch, min_value=1)
        length = check_int("length", length, min_value=2)
        v, k = self.vocab_size, self.branching
        out = torch.empty(batch, length, dtype=torch.long)
        out[:, :2] = torch.randint(0, v, (batch, 2), generator=generator)
        choice = torch.randint(0, k, (batch, length), generator=generator)
        copy_start = torch.rand(batch, length, generator=generator) < self.copy_prob
        span = torch.randint(4, 13, (batch, length), generator=generator)
        back = torch.randint(0, 10**6, (batch, length), generator=generator)
        rows = torch.arange(batch)
        src = torch.zeros(batch, dtype=torch.long)  # where each row copies from
        left = torch.zeros(batch, dtype=torch.long)  # tokens still to copy
        for t in range(2, length):
            start = (left == 0) & copy_start[:, t] & (t > 16)
            # a copied span starts at least 16 tokens back
            src = torch.where(start, back[:, t] % max(t - 16, 1), src)
            left = torch.where(start, span[:, t], left)
            markov = self.next_tokens[out[:, t - 2], out[:, t - 1], choice[:, t]]
            copying = left > 0
            out[:, t] = torch.where(copying, out[rows, src.clamp(max=t - 1)], markov)
            src = src + copying.long()
            left = (left - 1).clamp(min=0)
        return out


class _Block(nn.Module):
    def __init__(self, d_model: int, n_heads: int, position: str, max_len: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, n_heads, position, causal=True, max_len=max_len,
                                       t5_num_buckets=32, t5_max_distance=128)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    """A small decoder-only language model with a pluggable position method.

    Args:
        vocab_size (int): vocabulary size ``V``.
        position (str): one of :data:`posenc.attention.POSITION_METHODS`.
        d_model (int): width ``D``.
        n_layers (int): number of blocks.
        n_heads (int): heads per block.
        max_len (int): the learned table's rows (the trained length for ``"learned"``).
    """

    def __init__(self, vocab_size: int, position: str, *, d_model: int = 64, n_layers: int = 2, n_heads: int = 4,
                 max_len: int = 64) -> None:
        super().__init__()
        self.position = check_choice("position", position, POSITION_METHODS)
        self.max_len = check_int("max_len", max_len, min_value=1)
        self.d_model = check_int("d_model", d_model, min_value=2)
        self.embed = nn.Embedding(check_int("vocab_size", vocab_size, min_value=2), d_model)
        inner = "none" if position in ("sinusoidal", "learned") else position
        if position == "learned":
            self.learned = LearnedPositionalEmbedding(max_len, d_model)
        self.blocks = nn.ModuleList(_Block(d_model, n_heads, inner, max_len) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Next-token logits ``[b, L, V]`` for ``tokens`` ``[b, L]``.

        Raises:
            ValueError: ``position="learned"`` and ``L`` exceeds ``max_len``.
        """
        seq = tokens.shape[1]
        x = self.embed(tokens)  # [b, L, D]
        pos = torch.arange(seq, device=tokens.device)
        if self.position == "learned":
            x = x + self.learned(pos)
        elif self.position == "sinusoidal":
            x = x + sinusoidal_encoding_at(pos, self.d_model, dtype=x.dtype)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

    def set_rope_scaling(self, rope_type: str = "default", *, factor: float = 1.0, original_length: int | None = None,
                         seq_len: int | None = None) -> None:
        """Swap every layer's RoPE frequencies for a context-extension scaling (RoPE models only).

        Args:
            rope_type (str): one of ``posenc.rope.ROPE_TYPES``.
            factor (float): extension factor ``s``.
            original_length (int): the trained length ``L``.
            seq_len (int, optional): the current length (``"dynamic"``).
        """
        if not self.position.startswith("rope"):
            raise ValueError(f"set_rope_scaling needs a RoPE model, this one uses position={self.position!r}")
        check_choice("rope_type", rope_type, ROPE_TYPES)
        for block in self.blocks:
            rope = block.attn.rope
            inv_freq, scale = rope_scaled_inv_freq(rope.head_dim, rope.base, rope_type=rope_type, factor=factor,
                                                   original_max_position_embeddings=original_length, seq_len=seq_len)
            block.attn.rope = RotaryEmbedding(rope.head_dim, rope.cache_len, rope.base, layout=rope.layout,
                                              inv_freq=inv_freq, attention_scaling=scale)


def train_lm(model: TinyLM, corpus: SyntheticCorpus, *, length: int, steps: int, batch: int = 32, lr: float = 3e-3,
             seed: int = 0) -> list[float]:
    """Train with AdamW and a cosine schedule on fresh corpus samples; return the loss per step."""
    steps = check_int("steps", steps, min_value=1)
    g = torch.Generator().manual_seed(check_int("seed", seed))
    opt = torch.optim.AdamW(model.parameters(), lr=check_float("lr", lr, gt=0.0), weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / steps)))
    losses = []
    model.train()
    for _ in range(steps):
        tokens = corpus.sample(batch, length + 1, generator=g)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


@torch.no_grad()
def evaluate_lm(model: TinyLM, corpus: SyntheticCorpus, *, length: int, batch: int = 32, seed: int = 1234,
                last: int | None = None) -> float:
    """Mean next-token cross-entropy on ``batch`` fresh sequences of ``length`` tokens.

    Args:
        last (int, optional): score only the last ``last`` positions (default: all), e.g. the
            positions beyond the training length.
    """
    model.eval()
    g = torch.Generator().manual_seed(check_int("seed", seed))
    tokens = corpus.sample(batch, length + 1, generator=g)
    logits = model(tokens[:, :-1])  # [b, L, V]
    nll = F.cross_entropy(logits.transpose(1, 2), tokens[:, 1:], reduction="none")  # [b, L]
    if last is not None:
        nll = nll[:, -check_int("last", last, min_value=1):]
    return nll.mean().item()


#: Encodings compared in the extrapolation experiment, and the RoPE scalings evaluated zero-shot.
EXPERIMENT_METHODS = ("none", "sinusoidal", "learned", "t5", "rope", "alibi")
ROPE_SCALINGS = ("linear", "dynamic", "yarn")


def run_extrapolation(
    *,
    methods: tuple[str, ...] = EXPERIMENT_METHODS,
    seeds: tuple[int, ...] = (0,),
    train_length: int = 64,
    eval_factors: tuple[int, ...] = (1, 2, 4, 8),
    steps: int = 600,
    lr: float = 5e-3,
    d_model: int = 64,
    n_layers: int = 2,
    n_heads: int = 4,
    eval_batch: int = 32,
    progress: bool = False,
) -> dict:
    """Train a :class:`TinyLM` per (method, seed) at ``train_length`` and evaluate at multiples of it.

    RoPE models are also evaluated zero-shot with each of ``ROPE_SCALINGS`` (factor = evaluation
    length / training length). The learned table cannot run past its length: those entries are None.

    Returns:
        dict: ``{"config": {...}, "loss": {name: {seed: {length: float | None}}}}`` with names such as
        ``"alibi"`` and ``"rope+yarn"``; lengths and seeds as strings (JSON keys).
    """
    config = {"methods": list(methods), "seeds": list(seeds), "train_length": train_length,
              "eval_lengths": [f * train_length for f in eval_factors], "steps": steps, "lr": lr,
              "d_model": d_model, "n_layers": n_layers, "n_heads": n_heads, "eval_batch": eval_batch,
              "corpus": {"vocab_size": 32, "branching": 3, "copy_prob": 0.02, "seed": 0}}
    corpus = SyntheticCorpus(**config["corpus"])
    loss: dict = {}
    for method in methods:
        for seed in seeds:
            torch.manual_seed(seed)
            model = TinyLM(corpus.vocab_size, method, d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                           max_len=train_length)
            train_lm(model, corpus, length=train_length, steps=steps, lr=lr, seed=seed)
            variants = [(method, None)]
            if method == "rope":
                variants += [(f"rope+{t}", t) for t in ROPE_SCALINGS]
            for name, scaling in variants:
                row = loss.setdefault(name, {}).setdefault(str(seed), {})
                for length in config["eval_lengths"]:
                    if method == "learned" and length > train_length:
                        row[str(length)] = None
                        continue
                    if scaling is not None:
                        model.set_rope_scaling(scaling, factor=length / train_length,
                                               original_length=train_length, seq_len=length)
                    row[str(length)] = evaluate_lm(model, corpus, length=length, batch=eval_batch)
                if scaling is not None:
                    model.set_rope_scaling("default")
            if progress:
                print(method, seed, {k: v for k, v in loss[method][str(seed)].items()}, flush=True)
    return {"config": config, "loss": loss}


def load_results(name: str = "extrapolation") -> dict:
    """A results file shipped in ``posenc/results`` (written by ``experiments/extrapolation.py``)."""
    import json
    from importlib import resources

    check_choice("name", name, ("extrapolation", "extrapolation-quick"))
    return json.loads(resources.files("posenc").joinpath("results", f"{name}.json").read_text())


def summarize(result: dict) -> dict:
    """Mean and standard deviation over seeds: ``{name: {length: (mean, std) or None}}``."""
    table: dict = {}
    for name, per_seed in result["loss"].items():
        lengths = next(iter(per_seed.values())).keys()
        for length in lengths:
            values = [per_seed[s][length] for s in per_seed]
            if any(v is None for v in values):
                table.setdefault(name, {})[int(length)] = None
                continue
            t = torch.tensor(values, dtype=torch.float64)
            table.setdefault(name, {})[int(length)] = (t.mean().item(), t.std().item() if len(values) > 1 else 0.0)
    return table
