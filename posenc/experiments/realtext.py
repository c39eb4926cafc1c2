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
from .config import EXPERIMENT_SCALINGS, check_config, experiment_scaling, text_config
from .data import CharCorpus
from .evaluation import evaluate_context_cut, evaluate_windows
from .finetune import finetune_arms, finetuned_name
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


def _context_cut(model: TinyLM, tokens: torch.Tensor, config: dict) -> dict:
    """The characters at positions ``>= L`` of windows of ``context_cut["length"]``, scored with their
    whole window before them (``"full"``) and with the last ``L`` characters only (``"cut"``): mean nats."""
    L, n = config["train_length"], config["context_cut"]["length"]
    full, cut = evaluate_context_cut(model, tokens, n, L)
    return {"full": full.mean().item(), "cut": cut.mean().item(), "targets": full.numel()}


def _run_text_job(job: tuple[str, int, dict]) -> dict:
    method, seed, config = job
    start = time.process_time()
    corpus = CharCorpus(train_fraction=config["train_fraction"])
    tokens = corpus.val[: config["val_tokens"] + 1]
    cut_tokens = corpus.val[: config["context_cut"]["tokens"] + 1]
    L = config["train_length"]
    torch.manual_seed(seed)
    model = TinyLM(corpus.vocab_size, method, max_len=L, **config["model"])
    losses = train_lm(
        model,
        corpus,
        length=L,
        steps=config["steps"],
        batch=config["batch"],
        lr=config["lr"],
        seed=seed,
        warmup=config["warmup"],
    )
    out = {method: {**_evaluate_text(model, tokens, config), "train_loss_last_50": sum(losses[-50:]) / 50}}
    if method != "learned":  # the learned table cannot read the long window
        out[method]["context_cut"] = _context_cut(model, cut_tokens, config)
    if method == "rope":
        for scaling in EXPERIMENT_SCALINGS:

            def set_length(n, scaling=scaling):
                rope, seq_len = experiment_scaling(config, scaling, n)
                model.set_rope_scaling(rope, seq_len=seq_len)

            out[f"rope+{scaling}"] = _evaluate_text(model, tokens, config, set_length)
        model.set_rope_scaling(None)
        n = config["finetune"]["length"]

        def checkpoint(model, step: int) -> dict:  # the loss at the new length, on the validation characters
            loss, per_position = evaluate_windows(model, tokens, n)
            return {"loss": loss, "loss_beyond": per_position[L:].mean().item()}

        out.update(
            finetune_arms(
                model,
                corpus,
                config,
                seed=seed,
                evaluate=checkpoint,
                after=lambda model: _evaluate_text(model, tokens, config),
            )
        )
    out[method]["cpu_seconds"] = round(time.process_time() - start, 1)  # the whole job's, this process's
    return out


def run_text_experiment(config: dict | None = None, *, workers: int = 1, progress: bool = False) -> dict:
    """Train a :class:`~posenc.experiments.TinyLM` per (method, seed) on Shakespeare at ``train_length`` characters
    and evaluate it at every length of ``eval_lengths`` with :func:`~posenc.experiments.evaluate_windows`.

    Args:
        config (dict, optional): from :func:`~posenc.experiments.text_config` (default: the full one).
        workers (int): processes for the (method, seed) jobs (see :func:`~posenc.experiments.run_jobs`).
        progress (bool): print each job as it finishes.

    Every method's model is also scored with :func:`~posenc.experiments.evaluate_context_cut` (the
    same characters with the whole window before them and with the last ``L`` only;
    ``config["context_cut"]``). Each RoPE model is evaluated zero-shot with the dynamic scalings of
    :data:`~posenc.experiments.EXPERIMENT_SCALINGS` and fine-tuned on the training text at
    ``finetune["length"]`` characters, plain, with PI and with YaRN (fixed factor of that length),
    with one schedule for every arm (:func:`~posenc.experiments.finetune.finetune_arms`), scored on the
    validation characters at that length after each checkpoint's steps.

    Returns:
        dict: ``{"config", "code": {"files", "sha256", "file_sha256"}, "metrics": {variant: {seed: {"loss": {n: nats or
        None}, "loss_by_position": [per position at the longest length] or None, ...}}}}``; the
        variants are the methods and, for RoPE, ``rope+pi``, ``rope+dynamic``, ``rope+yarn`` (dynamic,
        zero-shot) and ``rope ft``, ``rope+pi ft``, ``rope+yarn ft`` (fine-tuned, with
        ``finetune_curve``: ``{step: {"loss", "loss_beyond"}}`` at the fine-tuning length, and
        ``schedule``). A method's entry holds ``context_cut`` (``{"full", "cut", "targets"}``, mean
        nats over the same characters; not for ``learned``) and ``cpu_seconds`` (its job's CPU time).

    Raises:
        TypeError: ``config`` is not a dict.
        ValueError: ``config`` lacks an entry of :func:`~posenc.experiments.text_config` (named), or
            ``workers`` is below 1.
    """
    config = text_config() if config is None else check_config(config, text_config(), builder="text_config")
    check_int("workers", workers, min_value=1)
    code = code_record(__name__)  # the code that runs, hashed before it does
    names = sorted(config["methods"], key=lambda m: (m != "rope", m != "cope"))  # the longest jobs first
    jobs = [(m, s, config) for m in names for s in config["seeds"]]
    metrics: dict = {}
    for (_, seed, _), result in run_jobs(_run_text_job, jobs, workers=workers, progress=progress):
        for name, m in result.items():
            metrics.setdefault(name, {})[str(seed)] = m
    rope_variants = [
        *[f"rope+{s}" for s in EXPERIMENT_SCALINGS],
        *[finetuned_name(v) for v in config["finetune"]["methods"]],
    ]
    order = [n for m in config["methods"] for n in ([m, *rope_variants] if m == "rope" else [m])]
    return {"config": config, "code": code, "metrics": {name: metrics[name] for name in order}}
