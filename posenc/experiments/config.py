"""The experiments' configurations: what is run, with which settings, and RoPE's scalings in them.

:func:`experiment_config` is the passkey run's (chapter 8, :func:`~posenc.experiments.run_extrapolation`),
:func:`text_config` the real-text run's (:func:`~posenc.experiments.run_text_experiment`). Both are
plain dicts, saved with the results; :func:`experiment_scaling` turns an entry into a
:class:`posenc.RopeScaling`.
"""

from __future__ import annotations

from typing import Any

from .. import RopeScaling, rope_scaling
from .._core.validate import check_choice, check_int
from .data import PasskeyCorpus

__all__ = [
    "experiment_config",
    "text_config",
    "experiment_scaling",
    "finetune_corpus",
    "check_config",
    "EXPERIMENT_METHODS",
    "BIAS_METHODS",
    "EXPERIMENT_SCALINGS",
    "FINETUNED",
    "TEXT_METHODS",
    "FINETUNE_SCHEDULE",
]

#: Position methods compared in the experiment, each trained at ``L`` and evaluated zero-shot.
EXPERIMENT_METHODS = ("none", "sinusoidal", "learned", "t5", "rope", "alibi", "kerple", "fire", "cope")
#: Methods whose logit bias depends on distance only; the experiment saves it after training.
BIAS_METHODS = ("t5", "alibi", "kerple", "fire")
#: RoPE's context-extension scalings evaluated zero-shot, each *dynamic*: recomputed for every input from
#: its length ``n`` (position interpolation and YaRN with factor ``max(n / L, 1)``, dynamic NTK with
#: ``seq_len = n``), the YaRN paper's "Dynamic Scaling" (Peng et al. 2023, section 3.3).
EXPERIMENT_SCALINGS = ("pi", "dynamic", "yarn")
#: The RoPE variants fine-tuned at the new length (plain, i.e. direct extrapolation; PI; YaRN), all with
#: the one schedule of :data:`FINETUNE_SCHEDULE`.
FINETUNED = ("rope", "pi", "yarn")
#: The one fine-tuning schedule, shared by every arm of both runs. Inputs are ``length`` tokens,
#: ``batch`` of them a step (2048 tokens, as in pre-training), ``steps`` steps of AdamW at peak learning
#: rate ``lr`` after ``warmup`` steps of linear warm-up, cosine decay to 0 at ``steps``
#: (:func:`~posenc.experiments.train_lm`); each arm is evaluated after each number of ``checkpoints``.
FINETUNE_SCHEDULE: dict[str, Any] = {
    "length": 512,
    "steps": 400,
    "batch": 4,
    "lr": 1e-3,
    "warmup": 10,
    "checkpoints": (0, 10, 25, 50, 100, 200, 400),
}


def _schedule() -> dict:
    """A fresh copy of :data:`FINETUNE_SCHEDULE` for a configuration (a list, as JSON gives it back)."""
    return {**FINETUNE_SCHEDULE, "checkpoints": list(FINETUNE_SCHEDULE["checkpoints"])}


#: The position methods of the real-text run (the passkey run's, :data:`EXPERIMENT_METHODS`).
TEXT_METHODS = ("none", "sinusoidal", "learned", "t5", "rope", "alibi", "kerple", "fire", "cope")
_HF_TYPE = {"pi": "linear", "dynamic": "dynamic", "yarn": "yarn"}


def experiment_config(quick: bool = False, **overrides) -> dict:
    """The full (``python experiments/extrapolation.py``) or quick (the notebook's) configuration.

    Full: every method of :data:`EXPERIMENT_METHODS`, five seeds, 1000 steps at ``L = 64``. RoPE is
    also evaluated zero-shot with each dynamic scaling of :data:`EXPERIMENT_SCALINGS` and with the
    settings of ``sensitivity`` (YaRN with Hugging Face's default betas 32/1, either betas without
    YaRN's attention temperature, dynamic NTK with factor 2, and PI and YaRN with the fixed factor 8
    that a configuration ships, at every length), and fine-tuned at 512 tokens, plain (direct
    extrapolation), with PI and with YaRN, all three with the one schedule of
    :data:`FINETUNE_SCHEDULE`, on text whose waits are scaled to that length (``scale_waits``: the
    key and the question then fall anywhere in the window, as the test asks). Quick: RoPE only (and
    the trigram), one seed, 300 steps, zero-shot only, no distance sweep, smaller evaluation batches.
    Keyword arguments override entries (dict entries are updated, not replaced).
    """
    config: dict[str, Any] = {
        "methods": list(EXPERIMENT_METHODS),
        "seeds": [0, 1, 2, 3, 4],
        "corpus": {
            "vocab_size": 16,
            "branching": 2,
            "n_digits": 10,
            "passkey_len": 1,
            "key_rate": 1 / 12,
            "query_rate": 1 / 32,
            "seed": 0,
        },
        "model": {"d_model": 64, "n_layers": 2, "n_heads": 4},
        "train_length": 64,
        "steps": 1000,
        "batch": 32,
        "lr": 3e-3,
        "warmup": 50,
        "answer_weight": 16.0,
        "eval_lengths": [64, 128, 256, 512],
        "eval_batch": 128,
        "distances": [8, 24, 40, 56, 96, 160, 256, 384, 496],
        "distance_batch": 64,
        "dynamic_factor": 1.0,
        "yarn": {"beta_fast": 2.0, "beta_slow": 1.0},
        "sensitivity": {
            "yarn b32": {"scaling": "yarn", "beta_fast": 32.0, "beta_slow": 1.0},
            "yarn t1": {"scaling": "yarn", "attention_factor": 1.0},
            "yarn b32 t1": {"scaling": "yarn", "beta_fast": 32.0, "beta_slow": 1.0, "attention_factor": 1.0},
            "dynamic f2": {"scaling": "dynamic", "factor": 2.0},
            "pi fixed": {"scaling": "pi", "factor": 8.0},
            "yarn fixed": {"scaling": "yarn", "factor": 8.0},
        },
        "finetune": {"methods": list(FINETUNED), **_schedule(), "scale_waits": True},
        "trigram_sequences": 4096,
    }
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be a bool, got {type(quick).__name__}")
    if quick:
        config.update(
            {
                "methods": ["rope"],
                "seeds": [0],
                "steps": 300,
                "eval_batch": 64,
                "distances": [],
                "sensitivity": {},
                "finetune": {**config["finetune"], "methods": []},
            }
        )
    for key, value in overrides.items():
        if key not in config:
            raise ValueError(f"unknown configuration entry {key!r}; expected one of {sorted(config)}")
        config[key] = {**config[key], **value} if isinstance(config[key], dict) else value
    return config


def text_config(quick: bool = False, **overrides) -> dict:
    """The full or quick configuration of :func:`run_text_experiment`.

    Full: every method of :data:`TEXT_METHODS`, three seeds, the passkey run's model and optimiser
    (width 64, 2 layers, 4 heads; 1000 steps of 32 windows of ``L = 64`` characters), evaluated at
    64 to 1024 characters (1x to 16x) on the first 65 537 validation characters; RoPE also zero-shot
    with the dynamic PI, dynamic NTK (factor 1) and YaRN (betas 2/1), as in the passkey run.
    ``context_cut``: on the first ``tokens`` validation characters, cut into windows of ``length``,
    every character at a position ``>= L`` is scored with its whole window before it and with only
    the last ``L`` characters (:func:`~posenc.experiments.evaluate_context_cut`). ``finetune``: each
    RoPE model is fine-tuned on the training text at 512 characters, plain, with PI and with YaRN
    (fixed factor 8), with the one schedule of :data:`FINETUNE_SCHEDULE`, and scored at 512 on the
    validation characters after each checkpoint's steps. Quick: RoPE and ALiBi, one seed, 300 steps,
    lengths 64 to 512 on 16 385 characters, the context cut on 4097, no fine-tuning.
    """
    config: dict[str, Any] = {
        "methods": list(TEXT_METHODS),
        "seeds": [0, 1, 2],
        "train_fraction": 0.9,
        "model": {"d_model": 64, "n_layers": 2, "n_heads": 4},
        "train_length": 64,
        "steps": 1000,
        "batch": 32,
        "lr": 3e-3,
        "warmup": 50,
        "eval_lengths": [64, 128, 256, 512, 1024],
        "val_tokens": 65_536,
        "dynamic_factor": 1.0,
        "yarn": {"beta_fast": 2.0, "beta_slow": 1.0},
        "context_cut": {"length": 1024, "tokens": 16_384},
        "finetune": {"methods": list(FINETUNED), **_schedule()},
    }
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be a bool, got {type(quick).__name__}")
    if quick:
        config.update(
            {
                "methods": ["rope", "alibi"],
                "seeds": [0],
                "steps": 300,
                "eval_lengths": [64, 128, 256, 512],
                "val_tokens": 16_384,
                "context_cut": {"length": 512, "tokens": 4096},
                "finetune": {**config["finetune"], "methods": []},
            }
        )
    for key, value in overrides.items():
        if key not in config:
            raise ValueError(f"unknown configuration entry {key!r}; expected one of {sorted(config)}")
        config[key] = {**config[key], **value} if isinstance(config[key], dict) else value
    if any(config["val_tokens"] % n for n in config["eval_lengths"]):
        raise ValueError("val_tokens must be a multiple of every evaluation length (the same characters at each)")
    cut = config["context_cut"]
    if cut["tokens"] % cut["length"] or cut["tokens"] > config["val_tokens"] or cut["length"] <= config["train_length"]:
        raise ValueError(
            "context_cut needs tokens a multiple of length, at most val_tokens, and length > "
            f"train_length; got {cut} with val_tokens={config['val_tokens']}, "
            f"train_length={config['train_length']}"
        )
    return config


def experiment_scaling(config: dict, scaling: str, length: int, **overrides) -> tuple[RopeScaling, int | None]:
    """The RoPE scaling the experiments use for inputs of ``length`` tokens, and the ``seq_len`` to pass
    with it: ``model.set_rope_scaling(scaling, seq_len=seq_len)``.

    ``scaling`` is one of :data:`EXPERIMENT_SCALINGS`. ``"pi"`` (Hugging Face's ``"linear"``) and
    ``"yarn"``: factor ``s = max(length / L, 1)`` (YaRN with the configuration's betas), ``seq_len``
    None: dynamic, recomputed per input from its length (the YaRN paper's "Dynamic Scaling"), unless
    a ``factor`` override fixes it, as a model's configuration does; ``"dynamic"``: the
    configuration's fixed ``dynamic_factor``, the length entering through ``seq_len = length`` only.
    ``L`` (``train_length``) is the configuration's
    ``original_max_position_embeddings`` (for dynamic NTK, transformers reads it from the model's
    ``max_position_embeddings``). ``overrides`` replace entries (an entry of the
    configuration's ``sensitivity``: ``factor`` for each (fixed, whatever the length), ``beta_fast``,
    ``beta_slow`` or ``attention_factor`` for YaRN).

    Returns:
        (posenc.RopeScaling, int or None): the validated scaling and the current length it reads.

    Raises:
        ValueError: ``scaling`` is not an experiment scaling, an override does not belong to it, or
            ``length`` is below 1.
    """
    _check_config(config, ("train_length", "dynamic_factor", "yarn"))
    check_choice("scaling", scaling, EXPERIMENT_SCALINGS)
    length = check_int("length", length, min_value=1)
    allowed = {
        "pi": {"factor"},
        "dynamic": {"factor"},
        "yarn": {"factor", "beta_fast", "beta_slow", "attention_factor"},
    }[scaling]
    if not set(overrides) <= allowed:
        raise ValueError(f"overrides for scaling={scaling!r} must be among {sorted(allowed)}, got {sorted(overrides)}")
    train_length = config["train_length"]
    if scaling == "dynamic":  # fixed factor; the length enters through seq_len only
        params = {"factor": config["dynamic_factor"], **overrides}
        return rope_scaling("dynamic", original_max_position_embeddings=train_length, **params), length
    params = {"factor": max(length / train_length, 1.0)}  # dynamic: this input's own factor
    if scaling == "yarn":
        params = {**params, **config["yarn"], **overrides}
        return rope_scaling("yarn", original_max_position_embeddings=train_length, **params), None
    return rope_scaling(_HF_TYPE[scaling], **{**params, **overrides}), None


def finetune_corpus(config: dict) -> PasskeyCorpus:
    """The fine-tuning text: the training corpus, with the key's and the question's rates divided by
    ``finetune["length"] / train_length`` when ``finetune["scale_waits"]`` (so that at 512 tokens the
    key and the question fall anywhere in the window, and distances up to the window's length occur, as
    the passkey test asks); the corpus itself otherwise. The filler is the same either way."""
    _check_config(config, ("finetune", "corpus", "train_length"))
    ft, corpus = config["finetune"], dict(config["corpus"])
    if ft.get("scale_waits"):
        stretch = ft["length"] / config["train_length"]
        corpus.update(key_rate=corpus["key_rate"] / stretch, query_rate=corpus["query_rate"] / stretch)
    return PasskeyCorpus(**corpus)


def check_config(config, template: dict, *, builder: str = "experiment_config") -> dict:
    """Refuse a ``config`` that lacks an entry of ``template`` (the full configuration of ``builder``),
    at the top level or inside its ``finetune`` and ``context_cut`` entries, before anything runs.

    Raises:
        TypeError: ``config`` is not a dict.
        ValueError: an entry is missing, named with the builder that makes a complete one.
    """
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict from {builder}(), got {type(config).__name__}")
    missing = [k for k in template if k not in config]
    for part in ("finetune", "context_cut"):
        if part in template and isinstance(config.get(part), dict):
            missing += [f"{part}[{k!r}]" for k in template[part] if k not in config[part]]
        elif part in template and part in config:
            raise TypeError(f"config[{part!r}] must be a dict, got {type(config[part]).__name__}")
    if missing:
        raise ValueError(
            f"config lacks {', '.join(missing)}: build it with {builder}() (keyword arguments override its entries)"
        )
    return config


def _check_config(config: dict, needed: tuple[str, ...]) -> None:
    """Refuse a ``config`` that is not a dict with the entries ``needed`` (from :func:`experiment_config`)."""
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict from experiment_config(), got {type(config).__name__}")
    missing = [k for k in needed if k not in config]
    if missing:
        raise ValueError(f"config lacks {', '.join(missing)}: build it with experiment_config()")
