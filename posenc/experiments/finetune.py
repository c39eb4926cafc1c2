"""Fine-tuning at a new length on equal terms: one schedule for every arm (direct, PI, YaRN).

Chen et al. (2023, "Extending Context Window of Large Language Models via Positional Interpolation")
fine-tune a RoPE model at the new length with position interpolation and, as the contrast, directly
(plain RoPE, "direct extrapolation"). A comparison between the arms is fair only if nothing else
differs: here every arm starts from the same trained weights, reads the same text in the same order
(one data seed), and runs the same schedule (:func:`finetune_schedule`: steps, batch, warm-up, peak
learning rate, cosine decay over the same steps), and the arms are evaluated after the same numbers of
steps, from step 0 (the model before fine-tuning, with its scaling). PI and YaRN fine-tune with the
fixed factor ``length / L`` of the new length, as a model's configuration ships it.
"""

from __future__ import annotations

from collections.abc import Callable

from .config import FINETUNED, experiment_scaling
from .model import TinyLM
from .training import train_lm

__all__ = ["finetune_schedule", "finetune_arms", "finetuned_name"]

#: What a schedule fixes: the keyword arguments of :func:`~posenc.experiments.train_lm` it sets.
SCHEDULE_KEYS = ("length", "steps", "batch", "lr", "warmup")


def finetune_schedule(config: dict) -> dict:
    """The one schedule of every fine-tuning arm: ``{"length", "steps", "batch", "lr", "warmup"}`` from
    ``config["finetune"]``, the arguments :func:`~posenc.experiments.train_lm` takes (its decay is a
    cosine to 0 over ``steps``), plus ``"decay": "cosine"``, as the results record it.

    Raises:
        TypeError: ``config`` is not a dict.
        ValueError: ``config`` lacks ``finetune`` or one of its entries.
    """
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict from experiment_config() or text_config(), got {type(config).__name__}")
    ft = config.get("finetune")
    if not isinstance(ft, dict) or any(k not in ft for k in SCHEDULE_KEYS):
        raise ValueError(
            f"config['finetune'] must hold {', '.join(SCHEDULE_KEYS)}: build it with experiment_config() "
            "or text_config()"
        )
    return {**{k: ft[k] for k in SCHEDULE_KEYS}, "decay": "cosine"}


def finetuned_name(arm: str) -> str:
    """The results' name of a fine-tuned arm: ``"rope ft"`` (direct), ``"rope+pi ft"``, ``"rope+yarn ft"``."""
    return "rope ft" if arm == "rope" else f"rope+{arm} ft"


def finetune_arms(
    model: TinyLM,
    corpus,
    config: dict,
    *,
    seed: int,
    evaluate: Callable[[TinyLM, int], dict],
    after: Callable[[TinyLM], dict] | None = None,
    **train_options,
) -> dict:
    """Fine-tune ``model`` once per arm of ``config["finetune"]["methods"]``, each from its present
    weights and with the one schedule of :func:`finetune_schedule`; restore the weights at the end.

    Args:
        model (TinyLM): a trained RoPE model (its weights are the start of every arm and are restored).
        corpus: the fine-tuning text (what :func:`~posenc.experiments.train_lm` samples).
        config (dict): the run's configuration (``train_length`` and ``finetune``; YaRN's betas).
        seed (int): the run's seed; every arm reads the text of data seed ``1000 + seed``.
        evaluate: ``evaluate(model, step)`` gives the metrics of a checkpoint (after ``step`` steps,
            0 included); it must not change the parameters.
        after: ``after(model)`` gives the metrics after the last step, with the arm's scaling still set.
        **train_options: further arguments of :func:`~posenc.experiments.train_lm`, the same for every arm
            (``answer_weight``).

    Returns:
        dict: ``{name: {**after(model), "finetune_curve": {step: evaluate(model, step)}, "schedule": {...}}}``
        per arm, named by :func:`finetuned_name`; the steps are strings (JSON keys).
    """
    schedule = finetune_schedule(config)
    ft = config["finetune"]
    checkpoints = set(ft["checkpoints"])
    state = {k: v.clone() for k, v in model.state_dict().items()}
    out = {}
    for arm in ft["methods"]:
        if arm not in FINETUNED:
            raise ValueError(f"config['finetune']['methods'] must be among {FINETUNED}, got {arm!r}")
        model.load_state_dict(state)
        if arm != "rope":  # the fixed factor of the new length
            rope, seq_len = experiment_scaling(config, arm, schedule["length"])
            model.set_rope_scaling(rope, seq_len=seq_len)
        curve: dict = {}

        def checkpoint(step: int, curve: dict = curve) -> None:
            if step in checkpoints:
                curve[str(step)] = evaluate(model, step)

        checkpoint(0)
        train_lm(
            model,
            corpus,
            **{k: schedule[k] for k in SCHEDULE_KEYS},
            seed=1000 + seed,
            on_step=checkpoint,
            **train_options,
        )
        out[finetuned_name(arm)] = {
            **(after(model) if after is not None else {}),
            "finetune_curve": curve,
            "schedule": {**schedule, "data_seed": 1000 + seed, **train_options},
        }
        model.set_rope_scaling(None)
    model.load_state_dict(state)
    return out
