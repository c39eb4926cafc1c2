"""Train short, test long on real text: Press et al.'s Figure 1 at toy scale.

Character-level Shakespeare (shipped as ``posenc/data/tinyshakespeare.txt.gz``; its README gives the
source): :class:`~posenc.experiments.CharCorpus` splits it into the first 90 % for training and the last 10 % for
validation. :func:`run_text_experiment` trains one :class:`~posenc.experiments.TinyLM` per (position method,
seed) on windows of ``L`` characters and evaluates it as Press, Smith and Lewis (ICLR 2022, "Train
Short, Test Long") evaluate theirs: the validation text is cut into non-overlapping windows of ``n``
characters, the loss is averaged over **all** tokens of every window, and the same validation
characters are scored at every ``n`` (a multiple of every evaluation length). Longer windows give
more of the tokens a long context, so a model that can use it gets a *lower* loss as ``n`` grows past
``L``; a model that cannot run past ``L`` gets a higher one. The loss per position within the longest
window is kept too, so that "beyond ``L``" and "all positions" can both be read.

Shape legend: ``b`` windows, ``n`` window length, ``V`` vocabulary size.
"""

from __future__ import annotations

import time

import torch

from .._core.validate import check_int
from .config import EXPERIMENT_SCALINGS, experiment_scaling, text_config
from .data import CharCorpus
from .evaluation import evaluate_windows
from .model import TinyLM
from .provenance import code_record
from .runner import run_jobs
from .training import train_lm

__all__ = ["run_text_experiment"]


def _evaluate_text(model: TinyLM, tokens: torch.Tensor, config: dict, set_length=None) -> dict:
    L, longest = config["train_length"], max(config["eval_lengths"])
    out: dict = {"loss": {}, "loss_by_position": None}
    for n in config["eval_lengths"]:
        if model.position == "learned" and n > L:  # the learned table ends at L
            out["loss"][str(n)] = None
            continue
        if set_length is not None:
            set_length(n)
        loss, per_position = evaluate_windows(model, tokens, n)
        out["loss"][str(n)] = loss
        if n == longest:
            out["loss_by_position"] = [round(v, 4) for v in per_position.tolist()]
    return out


def _run_text_job(job: tuple[str, int, dict]) -> dict:
    method, seed, config = job
    start = time.process_time()
    corpus = CharCorpus(train_fraction=config["train_fraction"])
    tokens = corpus.val[: config["val_tokens"] + 1]
    L = config["train_length"]
    torch.manual_seed(seed)
    model = TinyLM(corpus.vocab_size, method, max_len=L, **config["model"])
    losses = train_lm(model, corpus, length=L, steps=config["steps"], batch=config["batch"], lr=config["lr"],
                      seed=seed, warmup=config["warmup"])
    out = {method: {**_evaluate_text(model, tokens, config), "train_loss_last_50": sum(losses[-50:]) / 50}}
    if method == "rope":
        for scaling in EXPERIMENT_SCALINGS:
            def set_length(n, scaling=scaling):
                rope, seq_len = experiment_scaling(config, scaling, n)
                model.set_rope_scaling(rope, seq_len=seq_len)
            out[f"rope+{scaling}"] = _evaluate_text(model, tokens, config, set_length)
        model.set_rope_scaling(None)
    out[method]["cpu_seconds"] = round(time.process_time() - start, 1)  # the whole job's, this process's
    return out


def run_text_experiment(config: dict | None = None, *, workers: int = 1, progress: bool = False) -> dict:
    """Train a :class:`~posenc.experiments.TinyLM` per (method, seed) on Shakespeare at ``train_length`` characters
    and evaluate it at every length of ``eval_lengths`` with :func:`~posenc.experiments.evaluate_windows`.

    Args:
        config (dict, optional): from :func:`~posenc.experiments.text_config` (default: the full one).
        workers (int): processes for the (method, seed) jobs (see :func:`~posenc.experiments.run_jobs`).
        progress (bool): print each job as it finishes.

    Returns:
        dict: ``{"config", "code": {"files", "sha256", "file_sha256"}, "metrics": {variant: {seed: {"loss": {n: nats or
        None}, "loss_by_position": [per position at the longest length] or None, ...}}}}``; the
        variants are the methods and, for RoPE, ``rope+pi``, ``rope+dynamic``, ``rope+yarn``.
    """
    config = text_config() if config is None else config
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict from text_config(), got {type(config).__name__}")
    check_int("workers", workers, min_value=1)
    code = code_record(__name__)  # the code that runs, hashed before it does
    names = sorted(config["methods"], key=lambda m: (m != "rope", m != "cope"))  # the longest jobs first
    jobs = [(m, s, config) for m in names for s in config["seeds"]]
    metrics: dict = {}
    for (_, seed, _), result in run_jobs(_run_text_job, jobs, workers=workers, progress=progress):
        for name, m in result.items():
            metrics.setdefault(name, {})[str(seed)] = m
    order = [n for m in config["methods"]
             for n in ([m, *[f"rope+{s}" for s in EXPERIMENT_SCALINGS]] if m == "rope" else [m])]
    return {"config": config, "code": code, "metrics": {name: metrics[name] for name in order}}
