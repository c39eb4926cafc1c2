"""The passkey run of chapter 8: train short, test long, per position method and seed.

:func:`run_extrapolation` trains one :class:`~posenc.experiments.TinyLM` per (position method, seed)
on short sequences of :class:`~posenc.experiments.PasskeyCorpus` and measures, at longer lengths, two
things the papers measure: the language-model loss on the positions beyond the trained length, and
passkey retrieval (a token hidden in filler, asked for at the end) against the distance to it.

References:
    Press, Smith, Lewis, "Train Short, Test Long", ICLR 2022 (the loss-against-length experiment).
    Mohtashami, Jaggi, "Landmark Attention", 2023 (the passkey retrieval task).
    Chen et al., "Extending Context Window of Large Language Models via Positional Interpolation",
    2023 (zero-shot against fine-tuned extension, passkey accuracy per length).
    Peng et al., "YaRN", 2023; Hugging Face ``modeling_rope_utils`` (dynamic NTK).
"""

from __future__ import annotations

import time

import torch

from .._core.validate import check_int
from .config import (
    BIAS_METHODS,
    EXPERIMENT_SCALINGS,
    check_config,
    experiment_config,
    experiment_scaling,
    finetune_corpus,
)
from .data import PasskeyCorpus
from .evaluation import TrigramBaseline, evaluate_lm, evaluate_passkey, learned_bias
from .finetune import finetune_arms, finetuned_name
from .model import TinyLM
from .provenance import code_record
from .runner import run_jobs
from .training import train_lm

__all__ = ["run_extrapolation"]


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
            out["loss_beyond"][str(n)] = evaluate_lm(
                model, corpus, length=n, batch=batch, last=n - L, seed=20_000 + 100 * seed + n
            )
    longest = max(config["eval_lengths"])
    if set_length is not None and fits(longest):
        set_length(longest)
    for dist in config["distances"]:
        out["passkey_by_distance"][str(dist)] = (
            evaluate_passkey(
                model,
                corpus,
                length=longest,
                batch=config["distance_batch"],
                seed=30_000 + 100 * seed + dist,
                distance=dist,
            )
            if fits(longest)
            else None
        )
    return out


def _run_job(job: tuple[str, int, dict]) -> dict:
    """Train one (method, seed) model and evaluate it and its variants: ``{variant: metrics}``."""
    method, seed, config = job
    start = time.process_time()
    corpus = PasskeyCorpus(**config["corpus"])
    L = config["train_length"]
    if method == "trigram":
        baseline = TrigramBaseline(corpus, length=L, sequences=config["trigram_sequences"], seed=seed)
        return {
            "trigram": {
                **_evaluate_all(baseline, corpus, config, seed),
                "cpu_seconds": round(time.process_time() - start, 1),
            }
        }
    torch.manual_seed(seed)
    model = TinyLM(corpus.n_tokens, method, max_len=L, **config["model"])
    train_lm(
        model,
        corpus,
        length=L,
        steps=config["steps"],
        batch=config["batch"],
        lr=config["lr"],
        seed=seed,
        answer_weight=config["answer_weight"],
        warmup=config["warmup"],
    )
    out = {method: _evaluate_all(model, corpus, config, seed)}
    out[method]["n_params"] = sum(p.numel() for p in model.parameters())
    if method in BIAS_METHODS:  # FIRE's bias also depends on the query's position: the trained and longest length
        out[method]["learned_bias"] = {str(n): learned_bias(model, n) for n in (L, max(config["eval_lengths"]))}
    if method != "rope":
        out[method]["cpu_seconds"] = round(time.process_time() - start, 1)
        return out
    for scaling in EXPERIMENT_SCALINGS:

        def set_length(n, scaling=scaling):
            rope, seq_len = experiment_scaling(config, scaling, n)
            model.set_rope_scaling(rope, seq_len=seq_len)

        out[f"rope+{scaling}"] = _evaluate_all(model, corpus, config, seed, set_length)
    for name, spec in config["sensitivity"].items():  # other settings of the same scalings, zero-shot

        def set_length(n, spec=spec):
            rope, seq_len = experiment_scaling(
                config, spec["scaling"], n, **{k: v for k, v in spec.items() if k != "scaling"}
            )
            model.set_rope_scaling(rope, seq_len=seq_len)

        out[f"rope+{name}"] = _evaluate_all(model, corpus, config, seed, set_length)
    model.set_rope_scaling(None)
    n, ft_corpus = config["finetune"]["length"], finetune_corpus(config)

    def checkpoint(model, step: int) -> dict:  # the same probes and text for every arm at a given step
        return {
            "passkey": evaluate_passkey(
                model, corpus, length=n, batch=config["eval_batch"], seed=40_000 + 100 * seed + step
            ),
            "loss_beyond": evaluate_lm(
                model, corpus, length=n, batch=config["eval_batch"], last=n - L, seed=50_000 + 100 * seed + step
            ),
        }

    out.update(
        finetune_arms(
            model,
            ft_corpus,
            config,
            seed=seed,
            evaluate=checkpoint,
            after=lambda model: _evaluate_all(model, corpus, config, seed),
            answer_weight=config["answer_weight"],
        )
    )
    out[method]["cpu_seconds"] = round(time.process_time() - start, 1)  # the whole job's, this process's
    return out


def run_extrapolation(config: dict | None = None, *, workers: int = 1, progress: bool = False) -> dict:
    """Train a :class:`TinyLM` per (method, seed) at ``train_length`` and evaluate it at longer lengths.

    Every model is evaluated as trained (zero-shot). RoPE models are also evaluated zero-shot with
    each dynamic scaling of :data:`~posenc.experiments.EXPERIMENT_SCALINGS` (position interpolation
    and YaRN with factor ``max(n / L, 1)`` for an input of ``n`` tokens; dynamic NTK with the fixed
    ``dynamic_factor`` and ``seq_len = n``), with the other settings of ``sensitivity``
    (``"rope+yarn b32"`` ...; ``"rope+pi fixed"`` and ``"rope+yarn fixed"``: the factor fixed, as a
    configuration ships it, at every length), and fine-tuned at ``finetune["length"]`` on
    :func:`~posenc.experiments.finetune_corpus` with one schedule for every arm
    (:func:`~posenc.experiments.finetune.finetune_arms`): plain (``"rope ft"``, direct
    extrapolation), with position interpolation (``"rope+pi ft"``) and with YaRN (``"rope+yarn ft"``),
    the latter two with the fixed factor of that length. A count-based trigram (``"trigram"``) is the
    baseline with no long-range context. The learned table cannot run past its length: those entries
    are None.

    Args:
        config (dict, optional): from :func:`~posenc.experiments.experiment_config` (default: the full one).
        workers (int): processes to spread the (method, seed) jobs over (see :func:`~posenc.experiments.run_jobs`).
        progress (bool): print each job's name as it finishes.

    Returns:
        dict: ``{"config": config, "code": {"files", "sha256", "file_sha256"}, "metrics": {variant: {seed:
        metrics}}}``. ``metrics``: ``loss_at_L`` (filler loss at the trained length), ``loss_beyond``
        (filler loss at positions ``>= L``, per evaluation length), ``passkey`` (accuracy per
        evaluation length, key at a uniform distance), ``passkey_by_distance`` (accuracy at the
        longest length per distance) and, for fine-tuned variants, ``finetune_curve`` (passkey and
        loss beyond ``L`` at the fine-tuning length after each checkpoint's number of steps) and
        ``schedule`` (the one schedule, the data seed and the answer weight). ``cpu_seconds``: the
        CPU time of the job that trained the model (for RoPE: with its scalings and fine-tuning).
        Lengths, distances, steps and seeds are strings (JSON keys).

    Raises:
        TypeError: ``config`` is not a dict.
        ValueError: ``config`` lacks an entry of :func:`~posenc.experiments.experiment_config` (named), or
            ``workers`` is below 1.
    """
    config = experiment_config() if config is None else check_config(config, experiment_config())
    check_int("workers", workers, min_value=1)
    code = code_record(__name__)  # the code that runs, hashed before it does
    # the RoPE jobs (scalings, fine-tunes) and CoPE's (its bias is rebuilt from q and k on every call) take longest
    names = sorted(["trigram", *config["methods"]], key=lambda m: (m != "rope", m != "cope", m == "trigram"))
    jobs = [(m, s, config) for m in names for s in config["seeds"]]
    metrics: dict = {}
    for (_, seed, _), result in run_jobs(_run_job, jobs, workers=workers, progress=progress):
        for name, m in result.items():
            metrics.setdefault(name, {})[str(seed)] = m
    rope_variants = [f"rope+{s}" for s in [*EXPERIMENT_SCALINGS, *config["sensitivity"]]] + [
        finetuned_name(v) for v in config["finetune"]["methods"]
    ]
    order = ["trigram", *[n for m in config["methods"] for n in ([m, *rope_variants] if m == "rope" else [m])]]
    return {"config": config, "code": code, "metrics": {name: metrics[name] for name in order}}
