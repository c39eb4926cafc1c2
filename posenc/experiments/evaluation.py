"""Evaluating a language model: filler loss, passkey accuracy, loss on non-overlapping windows, learned biases.

Every function here takes the model as trained (it is switched to ``eval()``) and draws its
sequences from a seeded generator of its own, so two calls with the same seed score the same text.
:class:`TrigramBaseline` is the count-based model with no context beyond two tokens.

References:
    Press, Smith, Lewis, "Train Short, Test Long", ICLR 2022 (the loss-against-length evaluation).
    Mohtashami, Jaggi, "Landmark Attention", 2023 (the passkey retrieval task).
"""

from __future__ import annotations

import math
from typing import cast

import torch
import torch.nn.functional as F
from torch import nn

from .. import MultiHeadAttention
from .._core.validate import check_float, check_int, check_size, check_tensor
from .data import CharCorpus, PasskeyCorpus, SyntheticCorpus, check_sizes
from .model import TinyLM, check_model_input

__all__ = [
    "evaluate_lm",
    "evaluate_passkey",
    "TrigramBaseline",
    "learned_bias",
    "evaluate_windows",
    "evaluate_context_cut",
]


def _check_model(model, batch: int, length: int) -> None:
    """A model the evaluations can run: a :class:`TinyLM`, a :class:`TrigramBaseline` or another
    ``nn.Module`` mapping ``[b, L]`` ids to ``[b, L, V]`` scores; sizes checked before sampling."""
    if not isinstance(model, (nn.Module, TrigramBaseline)):
        raise TypeError(f"model must be a TinyLM, a TrigramBaseline or a torch.nn.Module, got {type(model).__name__}")
    if isinstance(model, TinyLM):
        check_model_input(model, batch, length)
    else:
        check_sizes((batch, length + 1), item_bytes=8, batch=batch, length=length)


@torch.no_grad()
def evaluate_lm(
    model: TinyLM | TrigramBaseline,
    corpus: SyntheticCorpus | PasskeyCorpus | CharCorpus,
    *,
    length: int,
    batch: int = 32,
    seed: int = 1234,
    last: int | None = None,
) -> float:
    """Mean next-token cross-entropy on ``batch`` fresh sequences of ``length`` input tokens.

    On a :class:`PasskeyCorpus` (text of :meth:`PasskeyCorpus.sample_text`) only the filler targets
    count, the tokens a trigram can predict; the passkey is measured by :func:`evaluate_passkey`.

    Args:
        last (int, optional): score only the last ``last`` positions (default: all), e.g.
            ``length - L`` for the positions beyond the training length ``L``.

    Raises:
        TypeError: ``model`` or ``corpus`` of the wrong type.
        ValueError: an argument out of range (``last`` in ``[1, length]``).
    """
    if not isinstance(corpus, (SyntheticCorpus, PasskeyCorpus, CharCorpus)):
        raise TypeError(f"corpus must be a SyntheticCorpus, PasskeyCorpus or CharCorpus, got {type(corpus).__name__}")
    length, batch = check_int("length", length, min_value=1), check_int("batch", batch, min_value=1)
    _check_model(model, batch, length)
    if last is not None:
        last = check_int("last", last, min_value=1, max_value=length)
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
        scored[:, : length - last] = False
    return nll[scored].double().mean().item()


@torch.no_grad()
def evaluate_passkey(
    model: TinyLM | TrigramBaseline,
    corpus: PasskeyCorpus,
    *,
    length: int,
    batch: int = 64,
    seed: int = 1234,
    distance: int | None = None,
) -> float:
    """Passkey accuracy on ``batch`` probes of ``length`` input tokens (:meth:`PasskeyCorpus.sample_probe`):
    the fraction whose every digit after ``QUERY`` is the model's most likely next token.

    Raises:
        TypeError: ``model`` of the wrong type, ``corpus`` not a :class:`PasskeyCorpus`.
        ValueError: an argument out of range.
    """
    if not isinstance(corpus, PasskeyCorpus):
        raise TypeError(f"corpus must be a PasskeyCorpus, got {type(corpus).__name__}")
    length, batch = check_int("length", length, min_value=1), check_int("batch", batch, min_value=1)
    _check_model(model, batch, length)
    model.eval()
    g = torch.Generator().manual_seed(check_int("seed", seed))
    data = corpus.sample_probe(batch, length, generator=g, distance=distance)
    logits = model(data.tokens[:, :-1])  # [b, n, V]
    k = corpus.passkey_len
    hit = logits[:, length - k :].argmax(-1) == data.tokens[:, length - k + 1 :]  # [b, k]
    return hit.all(dim=1).double().mean().item()


class TrigramBaseline:
    """A count-based trigram model: a predictor with no context beyond the two previous tokens.

    ``p(c | a, b)`` from counts over ``sequences`` training sequences with add-``alpha`` smoothing.
    On :class:`PasskeyCorpus` it predicts the filler about as well as its entropy ``ln(branching)``
    allows and guesses passkeys at chance.

    Raises:
        TypeError: ``corpus`` is not a :class:`PasskeyCorpus`.
        ValueError: an argument out of range, or a count table ``V ** 3`` above the size limit.
    """

    def __init__(self, corpus: PasskeyCorpus, *, length: int, sequences: int, seed: int = 0, alpha: float = 0.1):
        if not isinstance(corpus, PasskeyCorpus):
            raise TypeError(f"corpus must be a PasskeyCorpus, got {type(corpus).__name__}")
        length = check_int("length", length, min_value=2)
        sequences = check_int("sequences", sequences, min_value=1)
        v = corpus.n_tokens
        check_size("corpus.n_tokens", v, (v, v, v), item_bytes=8)
        check_size("length", length, (256, length + 1), item_bytes=8)
        g = torch.Generator().manual_seed(check_int("seed", seed))
        counts = torch.zeros(v * v * v, dtype=torch.float64)
        for _ in range(math.ceil(sequences / 256)):
            x = corpus.sample(256, length + 1, generator=g)  # [256, L + 1]
            idx = (x[:, :-2] * v + x[:, 1:-1]) * v + x[:, 2:]  # [256, L - 1]
            counts += torch.bincount(idx.reshape(-1), minlength=v**3).double()
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


def learned_bias(model: TinyLM, length: int) -> list:
    """Per layer, the logit bias ``[h][length]`` that the last query of a ``length``-token input gives
    the key at each distance ``0 .. length - 1`` (index = distance back), rounded to 1e-4.

    For the methods of :data:`~posenc.experiments.BIAS_METHODS`, whose bias does not depend on content
    (the zero q and k passed to the hook are not read).

    Raises:
        TypeError: ``model`` is not a :class:`TinyLM`.
        ValueError: its method adds no logit bias, or ``length`` is out of range.
    """
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM, got {type(model).__name__}")
    length = check_int("length", length, min_value=1)
    attentions = [cast(MultiHeadAttention, block.attn) for block in model.blocks]
    check_size("length", length, (attentions[0].n_heads, length, length))
    rows = []
    with torch.no_grad():
        for attn in attentions:
            q = torch.zeros(1, attn.n_heads, 1, attn.head_dim)
            k = torch.zeros(1, attn.n_heads, length, attn.head_dim)
            bias = attn.method.logit_bias(q, k, causal=True)
            if bias is None:
                raise ValueError(
                    f"learned_bias needs a method with a logit bias, this model uses position={model.position!r}"
                )
            bias = bias[0, :, 0].flip(-1)  # [h, length], distance 0 first
            rows.append([[round(v, 4) for v in head] for head in bias.tolist()])
    return rows


@torch.no_grad()
def evaluate_windows(
    model: TinyLM, tokens: torch.Tensor, length: int, *, chunk: int = 16
) -> tuple[float, torch.Tensor]:
    """Loss on non-overlapping windows of ``length`` input tokens, as Press et al. evaluate.

    ``tokens`` (1-D, ``m * length + 1`` ids, ``m >= 1``) is cut into ``m`` windows; window ``w`` reads
    ``tokens[w*length : (w+1)*length]`` and predicts the next ``length`` tokens, so every target
    ``tokens[1:]`` is scored once, whatever ``length`` is.

    Returns:
        (mean loss over all targets in nats, loss per position ``[length]`` averaged over windows).

    Raises:
        TypeError: ``model`` is not a ``torch.nn.Module``; ``tokens`` is not an integer tensor.
        ValueError: ``tokens`` is not 1-D with ``m * length + 1`` entries; ``length`` or ``chunk`` below 1.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a TinyLM (a torch.nn.Module), got {type(model).__name__}")
    length = check_int("length", length, min_value=1)
    chunk = check_int("chunk", chunk, min_value=1)
    check_tensor("tokens", tokens, floating=False)
    if tokens.ndim != 1 or tokens.numel() < length + 1 or (tokens.numel() - 1) % length:
        raise ValueError(
            f"tokens must be 1-D with m * length + 1 entries (m >= 1), got shape {tuple(tokens.shape)} "
            f"for length={length}"
        )
    if isinstance(model, TinyLM):
        check_model_input(model, min(chunk, (tokens.numel() - 1) // length), length)
    model.eval()
    m = (tokens.numel() - 1) // length
    inputs = tokens[:-1].view(m, length)  # [m, n]
    targets = tokens[1:].view(m, length)
    per_position = torch.zeros(length, dtype=torch.float64)
    for i in range(0, m, chunk):
        logits = model(inputs[i : i + chunk])  # [b, n, V]
        nll = F.cross_entropy(logits.transpose(1, 2), targets[i : i + chunk], reduction="none")  # [b, n]
        per_position += nll.double().sum(dim=0)
    per_position /= m
    return per_position.mean().item(), per_position


def _windows(model, tokens: torch.Tensor, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``tokens`` (1-D, ``m * length + 1`` ids) as ``m`` input windows and their targets, ``[m, length]`` each."""
    check_tensor("tokens", tokens, floating=False)
    if tokens.ndim != 1 or tokens.numel() < length + 1 or (tokens.numel() - 1) % length:
        raise ValueError(
            f"tokens must be 1-D with m * length + 1 entries (m >= 1), got shape {tuple(tokens.shape)} "
            f"for length={length}"
        )
    m = (tokens.numel() - 1) // length
    return tokens[:-1].view(m, length), tokens[1:].view(m, length)


@torch.no_grad()
def evaluate_context_cut(
    model: TinyLM, tokens: torch.Tensor, length: int, context: int, *, start: int | None = None, chunk: int = 512
) -> tuple[torch.Tensor, torch.Tensor]:
    """The same targets scored twice: with their whole left context in a window, and with it cut to
    the last ``context`` tokens. The difference says whether the model uses context beyond ``context``.

    ``tokens`` is cut into ``m`` windows of ``length`` input tokens as in :func:`evaluate_windows`. In
    each window the targets predicted at positions ``p = start .. length - 1`` are scored from the whole
    window (the input ``window[0 : p + 1]``, one forward pass of the window) and from the input
    ``window[max(0, p - context + 1) : p + 1]`` alone (at most ``context`` tokens, which the model
    reads at positions ``0 ..``): Press et al.'s sliding-window evaluation with stride 1 (ICLR 2022,
    "Train Short, Test Long", Appendix B.2). For ``p < context`` the two inputs are the same tokens.

    Args:
        model (TinyLM): the model, switched to ``eval()``.
        tokens (torch.Tensor): 1-D ids, ``m * length + 1`` of them.
        length (int): the window's length.
        context (int): the cut context, ``1 <= context <= length``.
        start (int, optional): the first position scored (default ``context``: the targets whose whole
            context is longer than the cut one), ``0 <= start < length``.
        chunk (int): inputs per forward pass.

    Returns:
        (torch.Tensor, torch.Tensor): the loss in nats of every scored target, float64 ``[m, length - start]``,
        with the whole context and with the cut one; row ``w`` is window ``w``.

    Raises:
        TypeError: ``model`` is not a ``torch.nn.Module``; ``tokens`` is not an integer tensor.
        ValueError: ``tokens`` is not 1-D with ``m * length + 1`` entries, or an argument is out of range.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a TinyLM (a torch.nn.Module), got {type(model).__name__}")
    length = check_int("length", length, min_value=1)
    context = check_int("context", context, min_value=1, max_value=length)
    start = context if start is None else start
    start = check_int("start", start, min_value=0, max_value=length - 1)
    chunk = check_int("chunk", chunk, min_value=1)
    if isinstance(model, TinyLM):
        check_model_input(model, 1, length)
        check_model_input(model, chunk, context)
    inputs, targets = _windows(model, tokens, length)  # [m, n] each
    m = inputs.shape[0]
    check_sizes((m * length, context), item_bytes=8, tokens=tuple(tokens.shape), context=context)  # the cut inputs
    model.eval()
    full = torch.cat(
        [
            F.cross_entropy(model(inputs[i : i + chunk]).transpose(1, 2), targets[i : i + chunk], reduction="none")[
                :, start:
            ]
            for i in range(0, m, chunk)
        ]
    )  # [m, n - start]
    cut = torch.empty(m, length - start, dtype=torch.float32)
    short = range(start, min(context - 1, length))  # the first targets: their whole context is the cut one
    for p in short:
        logits = torch.cat([model(inputs[i : i + chunk, : p + 1])[:, -1] for i in range(0, m, chunk)])  # [m, V]
        cut[:, p - start] = F.cross_entropy(logits, targets[:, p], reduction="none")
    first = max(start, context - 1)
    if first < length:  # inputs of exactly `context` tokens ending at p = first .. n - 1
        rows = inputs.unfold(1, context, 1)[:, first - context + 1 :]  # [m, k, context]
        k = rows.shape[1]
        rows, last = rows.reshape(m * k, context), targets[:, first:].reshape(m * k)
        nll = torch.cat(
            [
                F.cross_entropy(model(rows[i : i + chunk])[:, -1], last[i : i + chunk], reduction="none")
                for i in range(0, m * k, chunk)
            ]
        )
        cut[:, first - start :] = nll.view(m, k)
    return full.double(), cut.double()
