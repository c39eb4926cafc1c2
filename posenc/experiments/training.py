"""Training :class:`~posenc.experiments.TinyLM` on fresh samples of a corpus: AdamW, warm-up, cosine decay."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from .._core.validate import check_float, check_int
from .data import CharCorpus, PasskeyCorpus, SyntheticCorpus
from .model import TinyLM, check_model_input

__all__ = ["train_lm"]


def train_lm(
    model: TinyLM,
    corpus: SyntheticCorpus | PasskeyCorpus | CharCorpus,
    *,
    length: int,
    steps: int,
    batch: int = 32,
    lr: float = 3e-3,
    seed: int = 0,
    answer_weight: float = 1.0,
    warmup: int = 0,
    on_step: Callable[[int], None] | None = None,
) -> list[float]:
    """Train with AdamW and a cosine schedule on fresh corpus samples; return the loss per step.

    Args:
        model (TinyLM): the model, trained in place.
        corpus: a :class:`~posenc.experiments.SyntheticCorpus`, :class:`~posenc.experiments.PasskeyCorpus`
            or :class:`~posenc.experiments.CharCorpus`.
        length (int): input length (``length + 1`` tokens are sampled per sequence).
        answer_weight (float): for a :class:`PasskeyCorpus`, the weight of the passkey digits' loss
            (1 = plain language-model loss); the loss is the weighted mean over targets.
        warmup (int): steps of linear warm-up before the cosine decay.
        on_step: if given, called with the number of steps done after each step (e.g. to evaluate
            checkpoints; it must not change the model's parameters).

    Raises:
        TypeError: ``model`` is not a :class:`TinyLM`, ``corpus`` not one of the corpora, ``on_step``
            not callable.
        ValueError: an argument is out of range, or ``batch`` sequences of ``length`` tokens would need
            tensors above the library's size limit.
    """
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM, got {type(model).__name__}")
    if not isinstance(corpus, (SyntheticCorpus, PasskeyCorpus, CharCorpus)):
        raise TypeError(f"corpus must be a SyntheticCorpus, PasskeyCorpus or CharCorpus, got {type(corpus).__name__}")
    if on_step is not None and not callable(on_step):
        raise TypeError(f"on_step must be callable or None, got {type(on_step).__name__}")
    length = check_int("length", length, min_value=1)
    batch = check_int("batch", batch, min_value=1)
    check_model_input(model, batch, length)
    steps = check_int("steps", steps, min_value=1)
    warmup = check_int("warmup", warmup, min_value=0)
    answer_weight = check_float("answer_weight", answer_weight, gt=0.0)
    g = torch.Generator().manual_seed(check_int("seed", seed))
    opt = torch.optim.AdamW(model.parameters(), lr=check_float("lr", lr, gt=0.0), weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / (warmup + 1)) * 0.5 * (1 + math.cos(math.pi * s / steps))
    )
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
