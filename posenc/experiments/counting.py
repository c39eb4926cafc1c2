"""Chapter 11's counting task: which label started the k-th sentence back?

A sequence is a run of "sentences", each a label token (one of 8) followed by 0 to 5 filler tokens
(8 others), and ends with a question token ``Q_k``, k in {1, 2, 3}. The answer is the label of the
k-th sentence back (chance: 1 in 8). One attention layer with an MLP (:class:`Counter`) is trained on
8-sentence sequences and tested on 8 and 16. ``experiments/counting_sweep.py`` runs it over ten seeds
for CoPE and RoPE and saves ``posenc/results/counting-sweep.json``; :func:`load_counting_sweep` reads it.
"""

from __future__ import annotations

import json
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

from .. import CoPE, MultiHeadAttention
from .provenance import code_record

__all__ = [
    "N_LABELS",
    "K_MAX",
    "COUNTING_CONFIG",
    "counting_batch",
    "Counter",
    "train_counter",
    "accuracy_by_k",
    "run_counting_sweep",
    "load_counting_sweep",
]

N_LABELS, N_FILLERS, MAX_FILLERS, K_MAX = 8, 8, 5, 3
QUESTION = N_LABELS + N_FILLERS  # token QUESTION + k - 1 asks for the k-th sentence back
PAD = QUESTION + K_MAX

#: The setting of the chapter and of the saved sweep.
COUNTING_CONFIG: dict[str, Any] = {
    "steps": 150,
    "batch": 64,
    "train_sentences": 8,
    "eval_sentences": [8, 16],
    "eval_questions": 3000,
    "eval_seed": 1,
    "lr": 3e-3,
    "d_model": 32,
    "n_heads": 2,
    "cope_npos_max": 16,
    "methods": ["CoPE", "RoPE"],
    "seeds": list(range(10)),
}


def counting_batch(batch: int, n_sentences: int, generator: torch.Generator):
    """``tokens`` [b, T] (left-padded, the question last), ``answers`` [b], ``k`` [b]."""
    labels = torch.randint(0, N_LABELS, (batch, n_sentences), generator=generator)
    n_fill = torch.randint(0, MAX_FILLERS + 1, (batch, n_sentences), generator=generator)
    slots = N_LABELS + torch.randint(0, N_FILLERS, (batch, n_sentences, 1 + MAX_FILLERS), generator=generator)
    slots[:, :, 0] = labels
    used = (torch.arange(1 + MAX_FILLERS) <= n_fill[..., None]).flatten(1)  # label + its fillers
    order = torch.argsort((~used).int(), dim=1, stable=True)  # used slots first, in order
    tokens = torch.where(used.gather(1, order), slots.flatten(1).gather(1, order), PAD)
    tokens = torch.cat([tokens, torch.full((batch, 1), PAD)], 1)
    shift = tokens.shape[1] - 1 - used.sum(1)  # right-align the sentences
    tokens = tokens.gather(1, (torch.arange(tokens.shape[1]) - shift[:, None]) % tokens.shape[1])
    k = torch.randint(1, K_MAX + 1, (batch,), generator=generator)
    tokens[:, -1] = QUESTION + k - 1
    return tokens, labels[torch.arange(batch), n_sentences - k], k


class Counter(nn.Module):
    """Embedding, one attention layer with ``position`` and an MLP, read out at the last token."""

    def __init__(self, position, d_model: int = 32, n_heads: int = 2):
        super().__init__()
        self.embed = nn.Embedding(PAD + 1, d_model)
        self.norm = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, n_heads, position=position)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.out = nn.Linear(d_model, N_LABELS)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens [b, T] -> logits of the answer [b, N_LABELS]."""
        z = self.embed(tokens)
        z = z + self.attn(self.norm(z))
        return self.out(z + self.mlp(z))[:, -1]


def _position(method: str):
    if method == "CoPE":
        return CoPE(16, npos_max=COUNTING_CONFIG["cope_npos_max"])
    if method == "RoPE":
        return "rope"
    raise ValueError(f"method must be 'CoPE' or 'RoPE', got {method!r}")


def train_counter(method: str, seed: int = 0, steps: int = 150) -> Counter:
    """A :class:`Counter` with ``method`` ("CoPE" or "RoPE"), trained with Adam on 8-sentence sequences;
    ``seed`` fixes the initialisation and the training data."""
    position = _position(method)
    torch.manual_seed(seed)
    model = Counter(position)
    opt = torch.optim.Adam(model.parameters(), lr=COUNTING_CONFIG["lr"])
    data = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        tokens, answer, _ = counting_batch(COUNTING_CONFIG["batch"], COUNTING_CONFIG["train_sentences"], data)
        loss = F.cross_entropy(model(tokens), answer)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model


@torch.no_grad()
def accuracy_by_k(model: Counter, n_sentences: int) -> list[float]:
    """Accuracy for k = 1, 2, 3 on 3000 fixed questions (seed 1) of ``n_sentences`` sentences."""
    tokens, answer, k = counting_batch(
        COUNTING_CONFIG["eval_questions"], n_sentences, torch.Generator().manual_seed(COUNTING_CONFIG["eval_seed"])
    )
    hit = model(tokens).argmax(-1) == answer
    return [hit[k == kk].float().mean().item() for kk in range(1, K_MAX + 1)]


def run_counting_sweep(seeds=None, *, progress: bool = False) -> dict:
    """Train CoPE and RoPE counters for every seed; ``{"config", "code", "accuracy": {method: {seed:
    {n_sentences: [acc k=1, k=2, k=3]}}}}`` (keys as strings, as JSON stores them)."""
    config = dict(COUNTING_CONFIG)
    if seeds is not None:
        config["seeds"] = [int(s) for s in seeds]
    accuracy: dict = {}
    for method in config["methods"]:
        for seed in config["seeds"]:
            model = train_counter(method, seed=seed, steps=config["steps"])
            accuracy.setdefault(method, {})[str(seed)] = {
                str(n): accuracy_by_k(model, n) for n in config["eval_sentences"]
            }
            if progress:
                print(method, seed, accuracy[method][str(seed)], flush=True)
    return {"config": config, "code": code_record(__name__), "accuracy": accuracy}


def load_counting_sweep() -> dict:
    """``posenc/results/counting-sweep.json``; prints a note (and returns it anyway) when the code that
    made it differs from the installed code, as :func:`~posenc.experiments.load_results` does with
    ``check="report"``."""
    from importlib import resources

    result = json.loads(resources.files("posenc").joinpath("results").joinpath("counting-sweep.json").read_text())
    current = code_record(__name__)["sha256"]
    if result.get("code", {}).get("sha256") != current:
        print(
            f"NOTE: posenc/results/counting-sweep.json was made by code with hash {result['code'].get('sha256')}, "
            f"the installed code hashes to {current}. Re-run `{result.get('command')}`. "
            "The numbers below are the saved ones."
        )
    return result
