"""A tiny causal language model and a synthetic long-context task for "train short, test long".

Everything is local and seeded: the corpus is generated, nothing is downloaded. The model is a
pre-LayerNorm decoder whose position method is a parameter (``posenc.position.POSITION_METHODS``);
absolute encodings are added once to the token embeddings, the others act inside every layer.

The experiment of chapter 8 (:func:`run_extrapolation`) trains one model per position method on
short sequences of :class:`PasskeyCorpus` and measures, at longer lengths, two things the papers
measure: the language-model loss on the positions beyond the trained length, and passkey retrieval
(a token hidden in filler, asked for at the end) against the distance to it.

Shape legend: ``b`` batch, ``L`` sequence length, ``V`` vocabulary size, ``D`` model width.

References:
    Press, Smith, Lewis, "Train Short, Test Long", ICLR 2022 (the loss-against-length experiment).
    Mohtashami, Jaggi, "Landmark Attention", 2023 (the passkey retrieval task).
    Chen et al., "Extending Context Window of Large Language Models via Positional Interpolation",
    2023 (zero-shot against fine-tuned extension, passkey accuracy per length).
    Peng et al., "YaRN", 2023; Hugging Face ``modeling_rope_utils`` (dynamic NTK).
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import math
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import check_choice, check_float, check_int
from .attention import MultiHeadAttention
from .frequencies import DEFAULT_BASE
from .position import POSITION_METHODS, MethodFactory, NoPEMethod, RopeMethod

__all__ = ["SyntheticCorpus", "PasskeyCorpus", "PasskeyBatch", "TinyLM", "train_lm", "evaluate_lm",
           "evaluate_passkey", "TrigramBaseline", "run_extrapolation", "experiment_config", "scaling_kwargs",
           "finetune_corpus", "RESULT_NAMES",
           "code_hash",
           "code_files", "load_results", "summarize", "format_mean_range", "EXPERIMENT_METHODS", "EXPERIMENT_SCALINGS", "FINETUNED",
           "BIAS_METHODS", "learned_bias"]


@dataclass
class SyntheticCorpus:
    """A random "language" with local and long-range structure.

    Tokens follow a sparse random second-order Markov chain (each context allows ``branching``
    next tokens), and with probability ``copy_prob`` per position a span of 4 to 12 earlier tokens is
    repeated verbatim: predicting it needs attention to a distant position.

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


@dataclass
class PasskeyBatch:
    """Sequences of :class:`PasskeyCorpus` with what an evaluation needs to know about them.

    Attributes:
        tokens (torch.Tensor): ``[b, n + 1]``; the model reads ``tokens[:, :-1]`` and predicts ``tokens[:, 1:]``.
        filler (torch.Tensor): bool ``[b, n]``, True where the target is a filler token whose two
            predecessors are filler too (the targets a trigram can predict).
        answer (torch.Tensor): bool ``[b, n]``, True where the target is a passkey digit after ``QUERY``.
        distance (torch.Tensor): ``[b]``, how many tokens before ``QUERY`` the first passkey digit
            sits (a positive count of tokens back, i.e. ``-(key - query)`` in the book's convention);
            -1 where the sequence has no ``QUERY``.
    """

    tokens: torch.Tensor
    filler: torch.Tensor
    answer: torch.Tensor
    distance: torch.Tensor


@dataclass
class PasskeyCorpus:
    """Filler text in which a passkey is hidden and, later, asked for.

    Filler comes from a second-order Markov chain (:class:`SyntheticCorpus` without copies, entropy
    ``ln(branching)`` per token). Written over it: ``KEY d_1 .. d_k`` and later ``QUERY d_1 .. d_k``,
    where the digits are uniform over ``n_digits`` tokens of their own, so a model that does not look
    back to the key guesses them with probability ``n_digits ** -k``. Token ids: filler ``0 .. V-1``,
    digits ``V .. V + n_digits - 1``, then ``KEY`` and ``QUERY``.

    Training text (:meth:`sample_text`) is memoryless: ``KEY`` starts at each position with
    probability ``key_rate`` (once per sequence), ``QUERY`` follows after a geometric wait with
    ``query_rate``; episodes cut by the end of the window are kept cut. Nothing in it depends on the
    absolute position, so a model cannot learn "the question comes at position L" and fail for that
    reason beyond ``L``. The passkey test (:meth:`sample_probe`) puts the key at a chosen distance and
    ``QUERY`` at the end, as Mohtashami and Jaggi's prompt does.

    Args:
        vocab_size (int): filler symbols ``V``.
        branching (int): allowed next filler tokens per context.
        n_digits (int): passkey symbols.
        passkey_len (int): digits per passkey ``k``.
        key_rate (float): chance per position that the key starts (before it has).
        query_rate (float): chance per position that the question comes (after the key).
        seed (int): seed of the filler's transition table.
    """

    vocab_size: int = 16
    branching: int = 2
    n_digits: int = 10
    passkey_len: int = 1
    key_rate: float = 1 / 12
    query_rate: float = 1 / 32
    seed: int = 0

    def __post_init__(self) -> None:
        self.filler_corpus = SyntheticCorpus(vocab_size=self.vocab_size, branching=self.branching, copy_prob=0.0,
                                             seed=self.seed)
        self.n_digits = check_int("n_digits", self.n_digits, min_value=2)
        self.passkey_len = check_int("passkey_len", self.passkey_len, min_value=1)
        self.key_rate = check_float("key_rate", self.key_rate, gt=0.0, le=1.0)
        self.query_rate = check_float("query_rate", self.query_rate, gt=0.0, le=1.0)
        self.key_token = self.vocab_size + self.n_digits
        self.query_token = self.key_token + 1
        self.n_tokens = self.query_token + 1  # the model's vocabulary

    def _write(self, x: torch.Tensor, key_pos: torch.Tensor, query_pos: torch.Tensor,
               generator: torch.Generator) -> PasskeyBatch:
        """Write ``KEY digits`` at ``key_pos`` and ``QUERY digits`` at ``query_pos`` (``[b]`` each; positions
        past the end are dropped) over filler ``x`` ``[b, n + 1]``."""
        b, n1 = x.shape
        k = self.passkey_len
        digits = self.vocab_size + torch.randint(0, self.n_digits, (b, k), generator=generator)  # [b, k]
        rows = torch.arange(b)[:, None].expand(b, k + 1)
        for start, marker in ((key_pos, self.key_token), (query_pos, self.query_token)):
            pos = start[:, None] + torch.arange(k + 1)  # [b, k + 1]: the marker, then the digits
            values = torch.cat((torch.full((b, 1), marker), digits), dim=1)  # [b, k + 1]
            inside = pos < n1
            x[rows[inside], pos[inside]] = values[inside]
        answer = torch.zeros(b, n1, dtype=torch.bool)
        pos = query_pos[:, None] + torch.arange(1, k + 1)  # [b, k]: the digits after QUERY
        inside = pos < n1
        answer[rows[:, :k][inside], pos[inside]] = True
        is_filler = x < self.vocab_size  # [b, n + 1]
        filler = is_filler[:, 2:] & is_filler[:, 1:-1] & is_filler[:, :-2]  # targets 2 .. n
        filler = torch.cat((torch.zeros(b, 1, dtype=torch.bool), filler), dim=1)  # [b, n], per target 1 .. n
        distance = torch.where(query_pos < n1, query_pos - key_pos - 1, torch.full_like(query_pos, -1))
        return PasskeyBatch(x, filler, answer[:, 1:], distance)

    def sample_text(self, batch: int, n: int, *, generator: torch.Generator) -> PasskeyBatch:
        """Training-like text for inputs of ``n`` tokens: at most one passkey episode, at memoryless times."""
        x = self.filler_corpus.sample(check_int("batch", batch, min_value=1), check_int("n", n, min_value=2) + 1,
                                      generator=generator)

        def geometric(rate: float) -> torch.Tensor:  # failures before the first success, [b]
            u = torch.rand(batch, generator=generator, dtype=torch.float64).clamp_min(1e-300)
            return (u.log() / math.log1p(-rate)).floor().long() if rate < 1 else torch.zeros(batch, dtype=torch.long)

        key_pos = geometric(self.key_rate)
        query_pos = key_pos + self.passkey_len + 1 + geometric(self.query_rate)
        return self._write(x, key_pos.clamp(max=n + 1), query_pos.clamp(max=n + 1), generator)

    def distances(self, n: int) -> tuple[int, int]:
        """The smallest and largest passkey distance a probe of ``n`` input tokens can hold."""
        return self.passkey_len, n - self.passkey_len - 1

    def sample_probe(self, batch: int, n: int, *, generator: torch.Generator,
                     distance: int | None = None) -> PasskeyBatch:
        """Passkey tests of ``n`` input tokens: filler, the key ``distance`` tokens before ``QUERY``
        (default: uniform over :meth:`distances`), ``QUERY`` and the digits at the very end."""
        k = self.passkey_len
        lo, hi = self.distances(check_int("n", n, min_value=2 * k + 2))
        x = self.filler_corpus.sample(check_int("batch", batch, min_value=1), n + 1, generator=generator)
        if distance is None:
            dist = torch.randint(lo, hi + 1, (batch,), generator=generator)
        else:
            dist = torch.full((batch,), check_int("distance", distance, min_value=lo, max_value=hi))
        query_pos = torch.full((batch,), n - k)  # the input's last k positions predict the digits
        return self._write(x, query_pos - dist - 1, query_pos, generator)

    def sample(self, batch: int, length: int, *, generator: torch.Generator) -> torch.Tensor:
        """``[batch, length]`` tokens of :meth:`sample_text`, as :meth:`SyntheticCorpus.sample` returns."""
        return self.sample_text(batch, length - 1, generator=generator).tokens


class _Block(nn.Module):
    def __init__(self, d_model: int, n_heads: int, position: str, max_len: int, base: float) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, n_heads, position, causal=True, max_len=max_len, base=base,
                                       t5_num_buckets=32, t5_max_distance=128)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    """A small decoder-only language model with a pluggable position method.

    The method's objects (:mod:`posenc.position`) decide where position enters: an absolute
    encoding (a method that acts on the input) is added once to the token embeddings, as in GPT-2,
    and the layers then attend without position; every other method acts inside every layer's
    attention, one method object per layer.

    Args:
        vocab_size (int): vocabulary size ``V``.
        position (str): one of :data:`posenc.position.POSITION_METHODS`.
        d_model (int): width ``D``.
        n_layers (int): number of blocks (>= 1).
        n_heads (int): heads per block.
        max_len (int): the learned table's rows (the trained length for ``"learned"``).
        base (float): wavelength base of the sinusoidal and RoPE methods.
    """

    def __init__(self, vocab_size: int, position: str, *, d_model: int = 64, n_layers: int = 2, n_heads: int = 4,
                 max_len: int = 64, base: float = DEFAULT_BASE) -> None:
        super().__init__()
        self.position = check_choice("position", position, POSITION_METHODS)
        self.max_len = check_int("max_len", max_len, min_value=1)
        self.d_model = check_int("d_model", d_model, min_value=2)
        n_layers = check_int("n_layers", n_layers, min_value=1)
        self.base = check_float("base", base, gt=1.0)
        factory = POSITION_METHODS[position]
        on_input = isinstance(factory, MethodFactory) and factory.acts_on_input()
        self.embed = nn.Embedding(check_int("vocab_size", vocab_size, min_value=2), d_model)
        # built after the embedding and before the blocks: a learned table draws its initial values there
        self.input_encoding = factory(d_model=d_model, n_heads=n_heads, causal=True, max_len=max_len,
                                      base=self.base) if on_input else NoPEMethod()
        layer_position = "none" if on_input else position  # an absolute encoding is not repeated per layer
        self.blocks = nn.ModuleList(_Block(d_model, n_heads, layer_position, max_len, self.base)
                                    for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Next-token logits ``[b, L, V]`` for ``tokens`` ``[b, L]``.

        Raises:
            ValueError: ``position="learned"`` and ``L`` exceeds ``max_len``.
        """
        x = self.embed(tokens)  # [b, L, D]
        x = self.input_encoding.encode_input(x, torch.arange(tokens.shape[1], device=tokens.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

    def set_rope_scaling(self, rope_type: str = "default", *, factor: float = 1.0, train_length: int | None = None,
                         seq_len: int | None = None, beta_fast: float = 32.0, beta_slow: float = 1.0,
                         attention_factor: float | None = None) -> None:
        """Give every layer's RoPE method the frequencies of a context-extension scaling (RoPE models only).

        The arguments mean what they mean in Hugging Face's ``rope_parameters``: ``factor`` is a
        fixed constant of the scaling. For ``"dynamic"`` the current length enters through
        ``seq_len`` only: the base becomes ``base * (factor * seq_len / L - (factor - 1)) ** (d / (d - 2))``
        (``L = train_length``), so with ``factor=1`` an input of ``s * L`` tokens gets exactly the
        NTK-aware base for an extension by ``s``. Passing ``factor = seq_len / L`` as well would scale
        twice (by ``s*s - s + 1``).

        Args:
            rope_type (str): one of ``posenc.scaling.ROPE_TYPES``; ``"default"`` restores the plain frequencies.
            factor (float): the scaling's factor ``s`` (``"linear"``, ``"yarn"``) or constant (``"dynamic"``).
            train_length (int): the trained length ``L`` (Hugging Face's ``original_max_position_embeddings``).
            seq_len (int, optional): the current length (``"dynamic"`` only).
            beta_fast, beta_slow (float): YaRN's ramp ends, in turns within ``L``.
            attention_factor (float, optional): YaRN's factor on cos and sin (its attention temperature;
                logits scale by its square); None: the scaling's own (``0.1 ln s + 1`` for YaRN), 1.0: none.
        """
        methods = [block.attn.method for block in self.blocks]
        if not all(isinstance(m, RopeMethod) for m in methods):
            raise ValueError(f"set_rope_scaling needs a RoPE model, this one uses position={self.position!r}")
        for method in methods:
            method.set_scaling(rope_type, factor=factor, train_length=train_length, seq_len=seq_len,
                               beta_fast=beta_fast, beta_slow=beta_slow, attention_factor=attention_factor)


def train_lm(model: TinyLM, corpus: SyntheticCorpus | PasskeyCorpus, *, length: int, steps: int, batch: int = 32,
             lr: float = 3e-3, seed: int = 0, answer_weight: float = 1.0, warmup: int = 0,
             on_step: Callable[[int], None] | None = None) -> list[float]:
    """Train with AdamW and a cosine schedule on fresh corpus samples; return the loss per step.

    Args:
        length (int): input length (``length + 1`` tokens are sampled per sequence).
        answer_weight (float): for a :class:`PasskeyCorpus`, the weight of the passkey digits' loss
            (1 = plain language-model loss); the loss is the weighted mean over targets.
        warmup (int): steps of linear warm-up before the cosine decay.
        on_step: if given, called with the number of steps done after each step (e.g. to evaluate
            checkpoints; it must not change the model's parameters).
    """
    steps = check_int("steps", steps, min_value=1)
    warmup = check_int("warmup", warmup, min_value=0)
    answer_weight = check_float("answer_weight", answer_weight, gt=0.0)
    g = torch.Generator().manual_seed(check_int("seed", seed))
    opt = torch.optim.AdamW(model.parameters(), lr=check_float("lr", lr, gt=0.0), weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / (warmup + 1)) * 0.5 * (1 + math.cos(math.pi * s / steps)))
    losses = []
    for step in range(steps):
        model.train()
        if isinstance(corpus, PasskeyCorpus):
            data = corpus.sample_text(batch, length, generator=g)
            tokens, weights = data.tokens, 1.0 + (answer_weight - 1.0) * data.answer.float()  # [b, L]
        else:
            tokens, weights = corpus.sample(batch, length + 1, generator=g), None
        logits = model(tokens[:, :-1])
        if weights is None:
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        else:
            nll = F.cross_entropy(logits.transpose(1, 2), tokens[:, 1:], reduction="none")  # [b, L]
            loss = (nll * weights).sum() / weights.sum()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
        if on_step is not None:
            on_step(step + 1)
    return losses


@torch.no_grad()
def evaluate_lm(model: TinyLM | TrigramBaseline, corpus: SyntheticCorpus | PasskeyCorpus, *, length: int,
                batch: int = 32, seed: int = 1234, last: int | None = None) -> float:
    """Mean next-token cross-entropy on ``batch`` fresh sequences of ``length`` input tokens.

    On a :class:`PasskeyCorpus` (text of :meth:`PasskeyCorpus.sample_text`) only the filler targets
    count, the tokens a trigram can predict; the passkey is measured by :func:`evaluate_passkey`.

    Args:
        last (int, optional): score only the last ``last`` positions (default: all), e.g.
            ``length - L`` for the positions beyond the training length ``L``.
    """
    model.eval()
    g = torch.Generator().manual_seed(check_int("seed", seed))
    if isinstance(corpus, PasskeyCorpus):
        data = corpus.sample_text(batch, length, generator=g)
        tokens, scored = data.tokens, data.filler
    else:
        tokens = corpus.sample(batch, length + 1, generator=g)
        scored = torch.ones(batch, length, dtype=torch.bool)
    logits = model(tokens[:, :-1])  # [b, L, V]
    nll = F.cross_entropy(logits.transpose(1, 2), tokens[:, 1:], reduction="none")  # [b, L]
    if last is not None:
        scored = scored.clone()
        scored[:, : length - check_int("last", last, min_value=1, max_value=length)] = False
    return nll[scored].double().mean().item()


@torch.no_grad()
def evaluate_passkey(model: TinyLM | TrigramBaseline, corpus: PasskeyCorpus, *, length: int, batch: int = 64,
                     seed: int = 1234, distance: int | None = None) -> float:
    """Passkey accuracy on ``batch`` probes of ``length`` input tokens (:meth:`PasskeyCorpus.sample_probe`):
    the fraction whose every digit after ``QUERY`` is the model's most likely next token."""
    model.eval()
    g = torch.Generator().manual_seed(check_int("seed", seed))
    data = corpus.sample_probe(batch, length, generator=g, distance=distance)
    logits = model(data.tokens[:, :-1])  # [b, n, V]
    k = corpus.passkey_len
    hit = logits[:, length - k:].argmax(-1) == data.tokens[:, length - k + 1:]  # [b, k]
    return hit.all(dim=1).double().mean().item()


class TrigramBaseline:
    """A count-based trigram model: a predictor with no context beyond the two previous tokens.

    ``p(c | a, b)`` from counts over ``sequences`` training sequences with add-``alpha`` smoothing.
    On :class:`PasskeyCorpus` it predicts the filler about as well as its entropy ``ln(branching)``
    allows and guesses passkeys at chance.
    """

    def __init__(self, corpus: PasskeyCorpus, *, length: int, sequences: int, seed: int = 0, alpha: float = 0.1):
        v = corpus.n_tokens
        g = torch.Generator().manual_seed(check_int("seed", seed))
        counts = torch.zeros(v * v * v, dtype=torch.float64)
        for _ in range(math.ceil(sequences / 256)):
            x = corpus.sample(256, length + 1, generator=g)  # [256, L + 1]
            idx = (x[:, :-2] * v + x[:, 1:-1]) * v + x[:, 2:]  # [256, L - 1]
            counts += torch.bincount(idx.reshape(-1), minlength=v ** 3).double()
        counts = counts.view(v, v, v) + check_float("alpha", alpha, gt=0.0)
        self.log_probs = (counts / counts.sum(-1, keepdim=True)).log().float()  # [V, V, V]
        self.uniform = torch.full((v,), -math.log(v))

    def eval(self) -> TrigramBaseline:
        """Nothing to switch (the evaluation functions call it on any model)."""
        return self

    def __call__(self, tokens: torch.Tensor) -> torch.Tensor:
        """Log-probabilities ``[b, L, V]`` of the next token (uniform at the first position)."""
        b, n = tokens.shape
        out = self.uniform.expand(b, n, -1).clone()
        out[:, 1:] = self.log_probs[tokens[:, :-1], tokens[:, 1:]]
        return out


#: Position methods compared in the experiment, each trained at ``L`` and evaluated zero-shot.
EXPERIMENT_METHODS = ("none", "sinusoidal", "learned", "t5", "rope", "alibi", "kerple", "fire", "cope")
#: Methods whose logit bias depends on distance only; the experiment saves it after training.
BIAS_METHODS = ("t5", "alibi", "kerple", "fire")
#: RoPE's context-extension scalings evaluated zero-shot (position interpolation, dynamic NTK, YaRN).
EXPERIMENT_SCALINGS = ("pi", "dynamic", "yarn")
#: The RoPE variants fine-tuned briefly at the longest length (plain, i.e. direct extrapolation; PI; YaRN).
FINETUNED = ("rope", "pi", "yarn")
_HF_TYPE = {"pi": "linear", "dynamic": "dynamic", "yarn": "yarn"}


def experiment_config(quick: bool = False, **overrides) -> dict:
    """The full (``python experiments/extrapolation.py``) or quick (the notebook's) configuration.

    Full: every method of :data:`EXPERIMENT_METHODS`, five seeds, 1000 steps at ``L = 64``. RoPE is
    also evaluated with each scaling and with the settings of ``sensitivity`` (YaRN with Hugging
    Face's default betas 32/1, either betas without YaRN's attention temperature, dynamic NTK with
    factor 2), and
    fine-tuned at 512 tokens on text whose waits are scaled to that length (``scale_waits``: the key
    and the question then fall anywhere in the window, as the test asks): with PI and with YaRN for
    100 steps (10 % of pre-training), directly (plain RoPE) for ``direct_steps`` = 1000 (10 times as
    many). Quick: RoPE only (and the trigram), one seed, 300 steps, zero-shot only, no distance
    sweep, smaller evaluation batches. Keyword arguments override entries (dict entries are updated,
    not replaced).
    """
    config = {
        "methods": list(EXPERIMENT_METHODS), "seeds": [0, 1, 2, 3, 4],
        "corpus": {"vocab_size": 16, "branching": 2, "n_digits": 10, "passkey_len": 1, "key_rate": 1 / 12,
                   "query_rate": 1 / 32, "seed": 0},
        "model": {"d_model": 64, "n_layers": 2, "n_heads": 4},
        "train_length": 64, "steps": 1000, "batch": 32, "lr": 3e-3, "warmup": 50, "answer_weight": 16.0,
        "eval_lengths": [64, 128, 256, 512], "eval_batch": 128,
        "distances": [8, 24, 40, 56, 96, 160, 256, 384, 496], "distance_batch": 64,
        "dynamic_factor": 1.0, "yarn": {"beta_fast": 2.0, "beta_slow": 1.0},
        "sensitivity": {"yarn b32": {"scaling": "yarn", "beta_fast": 32.0, "beta_slow": 1.0},
                        "yarn t1": {"scaling": "yarn", "attention_factor": 1.0},
                        "yarn b32 t1": {"scaling": "yarn", "beta_fast": 32.0, "beta_slow": 1.0, "attention_factor": 1.0},
                        "dynamic f2": {"scaling": "dynamic", "factor": 2.0}},
        "finetune": {"methods": list(FINETUNED), "length": 512, "steps": 100, "direct_steps": 1000, "batch": 4,
                     "lr": 1e-3, "warmup": 10, "scale_waits": True,
                     "checkpoints": [0, 10, 25, 50, 100, 200, 400, 700, 1000]},
        "trigram_sequences": 4096,
    }
    if quick:
        config.update({"methods": ["rope"], "seeds": [0], "steps": 300, "eval_batch": 64, "distances": [],
                       "sensitivity": {}, "finetune": {**config["finetune"], "methods": []}})
    for key, value in overrides.items():
        if key not in config:
            raise ValueError(f"unknown configuration entry {key!r}; expected one of {sorted(config)}")
        config[key] = {**config[key], **value} if isinstance(config[key], dict) else value
    return config


def scaling_kwargs(config: dict, scaling: str, length: int, **overrides) -> dict:
    """The :meth:`TinyLM.set_rope_scaling` arguments the experiment uses for inputs of ``length`` tokens.

    ``scaling`` is one of :data:`EXPERIMENT_SCALINGS`. ``"pi"`` (Hugging Face's ``"linear"``) and ``"yarn"``:
    factor ``s = length / L`` (YaRN with the configuration's betas); ``"dynamic"``: the
    configuration's fixed ``dynamic_factor``, the length entering through ``seq_len`` only.
    ``overrides`` replace entries (an entry of the configuration's ``sensitivity``: ``factor`` for
    dynamic NTK, ``beta_fast``, ``beta_slow`` or ``attention_factor`` for YaRN).
    """
    check_choice("scaling", scaling, EXPERIMENT_SCALINGS)
    allowed = {"dynamic": {"factor"}, "yarn": {"beta_fast", "beta_slow", "attention_factor"}}.get(scaling, set())
    if not set(overrides) <= allowed:
        raise ValueError(f"overrides for scaling={scaling!r} must be among {sorted(allowed)}, got {sorted(overrides)}")
    train_length = config["train_length"]
    if scaling == "dynamic":  # fixed factor; the length enters through seq_len only
        return {"rope_type": "dynamic", "factor": config["dynamic_factor"], "train_length": train_length,
                "seq_len": length, **overrides}
    kwargs = {"rope_type": _HF_TYPE[scaling], "factor": max(length / train_length, 1.0),
              "train_length": train_length}
    return {**kwargs, **config["yarn"], **overrides} if scaling == "yarn" else kwargs


def _evaluate_all(model, corpus: PasskeyCorpus, config: dict, seed: int, set_length=None) -> dict:
    """Every metric of one model: per evaluation length and, at the longest, per passkey distance.

    ``set_length(n)``, if given, prepares the model for inputs of ``n`` tokens (a zero-shot scaling).
    """
    L, batch = config["train_length"], config["eval_batch"]
    out: dict = {"loss_at_L": None, "loss_beyond": {}, "passkey": {}, "passkey_by_distance": {}}
    fits = (lambda n: n <= L) if getattr(model, "position", None) == "learned" else (lambda n: True)
    for n in config["eval_lengths"]:
        if not fits(n):  # the learned table ends at L
            out["passkey"][str(n)] = out["loss_beyond"][str(n)] = None
            continue
        if set_length is not None:
            set_length(n)
        out["passkey"][str(n)] = evaluate_passkey(model, corpus, length=n, batch=batch, seed=10_000 + 100 * seed + n)
        if n == L:
            out["loss_at_L"] = evaluate_lm(model, corpus, length=n, batch=batch, seed=20_000 + 100 * seed + n)
        else:
            out["loss_beyond"][str(n)] = evaluate_lm(model, corpus, length=n, batch=batch, last=n - L,
                                                     seed=20_000 + 100 * seed + n)
    longest = max(config["eval_lengths"])
    if set_length is not None and fits(longest):
        set_length(longest)
    for dist in config["distances"]:
        out["passkey_by_distance"][str(dist)] = evaluate_passkey(
            model, corpus, length=longest, batch=config["distance_batch"], seed=30_000 + 100 * seed + dist,
            distance=dist) if fits(longest) else None
    return out


def learned_bias(model: "TinyLM", length: int) -> list:
    """Per layer, the logit bias ``[h][length]`` that the last query of a ``length``-token input gives
    the key at each distance ``0 .. length - 1`` (index = distance back), rounded to 1e-4.

    For the methods of :data:`BIAS_METHODS`, whose bias does not depend on content (the zero q and k
    passed to the hook are not read).
    """
    rows = []
    with torch.no_grad():
        for block in model.blocks:
            attn = block.attn
            q = torch.zeros(1, attn.n_heads, 1, attn.head_dim)
            k = torch.zeros(1, attn.n_heads, length, attn.head_dim)
            bias = attn.method.logit_bias(q, k, causal=True)[0, :, 0].flip(-1)  # [h, length], distance 0 first
            rows.append([[round(v, 4) for v in head] for head in bias.tolist()])
    return rows


def finetune_corpus(config: dict) -> PasskeyCorpus:
    """The fine-tuning text: the training corpus, with the key's and the question's rates divided by
    ``finetune["length"] / train_length`` when ``finetune["scale_waits"]`` (so that at 512 tokens the
    key and the question fall anywhere in the window, and distances up to the window's length occur, as
    the passkey test asks); the corpus itself otherwise. The filler is the same either way."""
    ft, corpus = config["finetune"], dict(config["corpus"])
    if ft.get("scale_waits"):
        stretch = ft["length"] / config["train_length"]
        corpus.update(key_rate=corpus["key_rate"] / stretch, query_rate=corpus["query_rate"] / stretch)
    return PasskeyCorpus(**corpus)


def _run_job(job: tuple[str, int, dict]) -> dict:
    """Train one (method, seed) model and evaluate it and its variants: ``{variant: metrics}``."""
    method, seed, config = job
    start = time.process_time()
    corpus = PasskeyCorpus(**config["corpus"])
    L = config["train_length"]
    if method == "trigram":
        baseline = TrigramBaseline(corpus, length=L, sequences=config["trigram_sequences"], seed=seed)
        return {"trigram": {**_evaluate_all(baseline, corpus, config, seed),
                            "cpu_seconds": round(time.process_time() - start, 1)}}
    torch.manual_seed(seed)
    model = TinyLM(corpus.n_tokens, method, max_len=L, **config["model"])
    train_lm(model, corpus, length=L, steps=config["steps"], batch=config["batch"], lr=config["lr"], seed=seed,
             answer_weight=config["answer_weight"], warmup=config["warmup"])
    out = {method: _evaluate_all(model, corpus, config, seed)}
    out[method]["n_params"] = sum(p.numel() for p in model.parameters())
    if method in BIAS_METHODS:  # FIRE's bias also depends on the query's position: the trained and longest length
        out[method]["learned_bias"] = {str(n): learned_bias(model, n) for n in (L, max(config["eval_lengths"]))}
    if method != "rope":
        out[method]["cpu_seconds"] = round(time.process_time() - start, 1)
        return out
    for scaling in EXPERIMENT_SCALINGS:
        def set_length(n, scaling=scaling):
            model.set_rope_scaling(**scaling_kwargs(config, scaling, n))
        out[f"rope+{scaling}"] = _evaluate_all(model, corpus, config, seed, set_length)
    for name, spec in config["sensitivity"].items():  # other settings of the same scalings, zero-shot
        def set_length(n, spec=spec):
            model.set_rope_scaling(**scaling_kwargs(config, spec["scaling"], n,
                                                    **{k: v for k, v in spec.items() if k != "scaling"}))
        out[f"rope+{name}"] = _evaluate_all(model, corpus, config, seed, set_length)
    model.set_rope_scaling("default")
    ft = config["finetune"]
    ft_corpus = finetune_corpus(config)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    for variant in ft["methods"]:
        model.load_state_dict(state)
        if variant != "rope":
            model.set_rope_scaling(**scaling_kwargs(config, variant, ft["length"]))
        steps = ft["direct_steps"] if variant == "rope" else ft["steps"]
        curve = {}

        def checkpoint(step: int) -> None:
            if step in ft["checkpoints"]:
                n = ft["length"]
                curve[str(step)] = {
                    "passkey": evaluate_passkey(model, corpus, length=n, batch=config["eval_batch"],
                                                seed=40_000 + 100 * seed + step),
                    "loss_beyond": evaluate_lm(model, corpus, length=n, batch=config["eval_batch"], last=n - L,
                                               seed=50_000 + 100 * seed + step)}

        checkpoint(0)
        train_lm(model, ft_corpus, length=ft["length"], steps=steps, batch=ft["batch"], lr=ft["lr"],
                 seed=1000 + seed, answer_weight=config["answer_weight"], warmup=ft["warmup"], on_step=checkpoint)
        name = "rope" if variant == "rope" else f"rope+{variant}"
        out[f"{name} ft"] = {**_evaluate_all(model, corpus, config, seed), "finetune_curve": curve}
        model.set_rope_scaling("default")
    out[method]["cpu_seconds"] = round(time.process_time() - start, 1)  # the whole job's, this process's
    return out


def run_extrapolation(config: dict | None = None, *, workers: int = 1, progress: bool = False) -> dict:
    """Train a :class:`TinyLM` per (method, seed) at ``train_length`` and evaluate it at longer lengths.

    Every model is evaluated as trained (zero-shot). RoPE models are also evaluated zero-shot with
    each of :data:`EXPERIMENT_SCALINGS` (position interpolation and YaRN with factor ``n / L`` at input
    length ``n``; dynamic NTK with the fixed ``dynamic_factor`` and ``seq_len = n``), with the other
    settings of ``sensitivity`` (``"rope+yarn b32"`` ...), and fine-tuned at ``finetune["length"]`` on
    :func:`finetune_corpus`: plain (``"rope ft"``, ``finetune["direct_steps"]`` steps), with position
    interpolation (``"rope+pi ft"``) and with YaRN (``"rope+yarn ft"``), ``finetune["steps"]`` steps
    each, with the factor of that length. A count-based trigram (``"trigram"``) is the no-long-range-context baseline. The learned
    table cannot run past its length: those entries are None.

    Args:
        config (dict, optional): from :func:`experiment_config` (default: the full one).
        workers (int): processes to spread the (method, seed) jobs over (each uses one thread).
        progress (bool): print each job's name as it finishes.

    Returns:
        dict: ``{"config": config, "code": {"files": [...], "sha256": ...}, "metrics": {variant: {seed:
        metrics}}}``. ``metrics``: ``loss_at_L`` (filler loss at the trained length), ``loss_beyond``
        (filler loss at positions ``>= L``, per evaluation length), ``passkey`` (accuracy per
        evaluation length, key at a uniform distance), ``passkey_by_distance`` (accuracy at the
        longest length per distance) and, for fine-tuned variants, ``finetune_curve`` (passkey and
        loss beyond ``L`` at the fine-tuning length after each checkpoint's number of steps).
        Lengths, distances, steps and seeds are strings (JSON keys).
    """
    config = experiment_config() if config is None else config
    code = {"files": list(code_files()), "sha256": code_hash()}  # the code that runs, hashed before it does
    # the RoPE jobs (scalings, fine-tunes) and CoPE's (its bias is rebuilt from q and k on every call) take longest
    names = sorted(["trigram", *config["methods"]], key=lambda m: (m != "rope", m != "cope", m == "trigram"))
    jobs = [(m, s, config) for m in names for s in config["seeds"]]
    metrics: dict = {}
    if check_int("workers", workers, min_value=1) > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers, initializer=torch.set_num_threads, initargs=(1,)) as pool:
            results = pool.imap(_run_job, jobs)
            for (method, seed, _), result in zip(jobs, results):
                for name, m in result.items():
                    metrics.setdefault(name, {})[str(seed)] = m
                if progress:
                    print("done:", method, seed, flush=True)
    else:
        for job in jobs:
            for name, m in _run_job(job).items():
                metrics.setdefault(name, {})[str(job[1])] = m
            if progress:
                print("done:", job[0], job[1], flush=True)
    rope_variants = [f"rope+{s}" for s in [*EXPERIMENT_SCALINGS, *config["sensitivity"]]] + [
        "rope ft" if v == "rope" else f"rope+{v} ft" for v in config["finetune"]["methods"]]
    order = ["trigram", *[n for m in config["methods"] for n in ([m, *rope_variants] if m == "rope" else [m])]]
    return {"config": config, "code": code,
            "metrics": {name: metrics[name] for name in order}}


def code_files(entry: str = "lm.py", *, root: Path | None = None) -> tuple[str, ...]:
    """The modules whose code determines the experiment's numbers: ``entry`` and every ``posenc``
    module it imports, directly or not (the corpus, the model, training, evaluation, attention, each
    position method and scaling), plus the package's own ``__init__.py`` (importing ``posenc.lm`` runs
    it first, so a global setting there, such as a default dtype, changes the numbers), as file names
    relative to the package. The modules ``__init__.py`` imports for the reader and the experiment does
    not use are not followed."""
    root = Path(__file__).resolve().parent if root is None else Path(root)
    seen: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in ast.walk(ast.parse((root / name).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:  # from .x import y / from . import x
                modules = [node.module] if node.module else [alias.name for alias in node.names]
                todo += [m.replace(".", "/") + ".py" for m in modules if (root / (m.replace(".", "/") + ".py")).exists()]
    return tuple(sorted(seen | {"__init__.py"}))


def _code_only(source: str) -> str:
    """``source`` without comments, docstrings, blank lines and trailing spaces: editing prose must
    not invalidate results, any change to the code must."""
    lines = source.replace("\r\n", "\n").split("\n")
    tree = ast.parse(source)
    drop: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                start, end = first.lineno, first.end_lineno
                before = lines[start - 1].encode()[: first.col_offset].decode().strip()
                after = lines[end - 1].encode()[first.end_col_offset:].decode().strip()
                if not before and not after:  # the docstring has its lines to itself
                    drop.update(range(start, end + 1))
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col]
    kept = (line.rstrip() for i, line in enumerate(lines, 1) if i not in drop)
    return "\n".join(line for line in kept if line.strip())


def code_hash(entry: str = "lm.py", *, root: Path | None = None) -> str:
    """SHA-256 of the code (comments and docstrings excluded) of :func:`code_files` of ``entry``.

    A results file records it; :func:`load_results` refuses a file whose hash no longer matches.
    """
    root = Path(__file__).resolve().parent if root is None else Path(root)
    h = hashlib.sha256()
    for name in code_files(entry, root=root):
        source = (root / name).read_text(encoding="utf-8")
        if name == "__init__.py":
            source = _without_reexports(source)
        h.update(f"## {name}\n{_code_only(source)}\n".encode())
    return h.hexdigest()


def _without_reexports(source: str) -> str:
    """``__init__.py`` without what only names things for the reader: imports of the package's own
    modules (the experiment's are hashed themselves), ``__all__``, ``__version__`` and ``_MODULES``.
    Every other statement (a global setting, an import of another package) stays hashed."""
    lines = source.replace("\r\n", "\n").split("\n")
    drop: set[int] = set()
    for node in ast.parse(source).body:
        names = {t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)}
        if (isinstance(node, ast.ImportFrom) and node.level == 1) or (
                isinstance(node, ast.Assign) and names and names <= {"__all__", "__version__", "_MODULES"}):
            drop.update(range(node.lineno, node.end_lineno + 1))
    return "\n".join(line for i, line in enumerate(lines, 1) if i not in drop)


RESULT_NAMES = ("extrapolation", "extrapolation-quick-seeds", "extrapolation-text")
"""The results files ``experiments/extrapolation.py`` writes into ``posenc/results``: the full passkey
run, the chapter's quick setting over twelve seeds (``--quick --seeds 12``) and the real-text run
(``--text``, :mod:`posenc.realtext`)."""
_RESULT_ENTRY = {"extrapolation": "lm.py", "extrapolation-quick-seeds": "lm.py", "extrapolation-text": "realtext.py"}


def load_results(name: str = "extrapolation", *, check: bool | str = True) -> dict:
    """A results file shipped in ``posenc/results`` (written by ``experiments/extrapolation.py``).

    Args:
        name (str): one of :data:`RESULT_NAMES`.
        check (bool or str): ``True`` refuses a file made by other code (the unit tests use this);
            ``"report"`` prints that it is stale, with both hashes, and returns it anyway (the chapters
            use this, so a reader who edits the package still sees the saved numbers, marked as such);
            ``False`` does not look.

    Raises:
        RuntimeError: ``check`` is True and the file was made by code other than the installed one
            (re-run ``python experiments/extrapolation.py``).
    """
    from importlib import resources

    check_choice("name", name, RESULT_NAMES)
    if check not in (True, False, "report") or not isinstance(check, (bool, str)):
        raise ValueError(f"check must be True, False or 'report', got {check!r}")
    result = json.loads(resources.files("posenc").joinpath("results", f"{name}.json").read_text())
    if check:
        recorded = result.get("code", {}).get("sha256")
        current = code_hash(_RESULT_ENTRY[name])
        if recorded != current:
            message = (f"posenc/results/{name}.json is stale: it was made by code with hash {recorded}, "
                       f"the installed code hashes to {current}. Re-run "
                       f"`{result.get('command', 'python experiments/extrapolation.py')}`.")
            if check != "report":
                raise RuntimeError(message)
            print("NOTE:", message, "The numbers below are the saved ones.")
    made_with = result.get("environment", {}).get("torch")
    if made_with is not None and made_with != torch.__version__:  # reported, not refused: the code hash decides
        print(f"NOTE: posenc/results/{name}.json was made with torch {made_with}; this is torch {torch.__version__}. "
              "A re-run may differ in the last digits.")
    return result


def summarize(result: dict, metric: str = "loss_beyond") -> dict:
    """Mean, minimum and maximum over seeds: ``{variant: {key: (mean, min, max) or None}}``.

    Args:
        metric (str): ``"loss_beyond"``, ``"passkey"`` or ``"passkey_by_distance"`` (keys: lengths or
            distances, as ints), or ``"loss_at_L"`` (one key, the trained length).
    """
    check_choice("metric", metric, ("loss_at_L", "loss_beyond", "passkey", "passkey_by_distance"))
    table: dict = {}
    for name, per_seed in result["metrics"].items():
        runs = list(per_seed.values())
        if metric == "loss_at_L":
            runs = [{str(result["config"]["train_length"]): r["loss_at_L"]} for r in runs]
        else:
            runs = [r[metric] for r in runs]
        for key in runs[0]:
            values = [r[key] for r in runs]
            if any(v is None for v in values):
                table.setdefault(name, {})[int(key)] = None
                continue
            t = torch.tensor(values, dtype=torch.float64)
            table.setdefault(name, {})[int(key)] = (t.mean().item(), t.min().item(), t.max().item())
    return table


def format_mean_range(value: tuple[float, float, float] | None, *, percent: bool = False) -> str:
    """One entry of :func:`summarize` as the chapters print it: ``"2.31 (2.28–2.35)"`` (mean, then
    the range over seeds), ``"87 (80–93)"`` with ``percent`` (a fraction shown in %), ``"—"`` for None.

    Raises:
        TypeError: ``value`` is not None or a (mean, min, max) triple of numbers.
    """
    if value is None:
        return "—"
    if (isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 3
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise TypeError(f"value must be None or a (mean, min, max) triple of numbers, got {value!r}")
    if percent:
        mean, low, high = (100 * v for v in value)
        return f"{mean:.0f} ({low:.0f}–{high:.0f})"
    mean, low, high = value
    return f"{mean:.2f} ({low:.2f}–{high:.2f})"
