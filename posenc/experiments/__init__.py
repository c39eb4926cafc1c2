"""The extrapolation experiments of chapters 8 and 11: a tiny language model, trained short, tested long.

Tooling on top of the library: it imports the library through ``posenc``'s public names only.
Everything is local and seeded: the corpora are generated or shipped, nothing is downloaded.

- :mod:`~posenc.experiments.data`: the corpora (synthetic, passkey, character-level Shakespeare)
- :mod:`~posenc.experiments.model`: :class:`TinyLM`, a decoder whose position method is a parameter
- :mod:`~posenc.experiments.training`: :func:`train_lm`
- :mod:`~posenc.experiments.finetune`: fine-tuning at a new length, one schedule for every arm (:func:`finetune_arms`)
- :mod:`~posenc.experiments.evaluation`: losses, passkey accuracy, windows, the context cut, learned biases,
  the trigram baseline
- :mod:`~posenc.experiments.config`: the runs' configurations and RoPE scalings
- :mod:`~posenc.experiments.runner`: one job runner (in process or a process pool)
- :mod:`~posenc.experiments.passkey`: the passkey run, :func:`run_extrapolation`
- :mod:`~posenc.experiments.realtext`: the real-text run, :func:`run_text_experiment`
- :mod:`~posenc.experiments.provenance`: which code made a result, :func:`code_hash`
- :mod:`~posenc.experiments.results`: the saved results, :func:`~posenc.experiments.results.load_results`,
  :func:`summarize`
"""

from .config import (
    BIAS_METHODS,
    EXPERIMENT_METHODS,
    EXPERIMENT_SCALINGS,
    FINETUNE_SCHEDULE,
    FINETUNED,
    TEXT_METHODS,
    experiment_config,
    experiment_scaling,
    finetune_corpus,
    text_config,
)
from .data import SHAKESPEARE_SHA256, CharCorpus, PasskeyBatch, PasskeyCorpus, SyntheticCorpus, load_shakespeare
from .evaluation import (
    TrigramBaseline,
    evaluate_context_cut,
    evaluate_lm,
    evaluate_passkey,
    evaluate_windows,
    learned_bias,
)
from .finetune import finetune_arms, finetune_schedule
from .model import TinyLM
from .passkey import run_extrapolation
from .provenance import code_files, code_hash, code_record
from .realtext import run_text_experiment
from .results import RESULT_NAMES, format_mean_range, load_results, summarize
from .runner import run_jobs
from .training import train_lm

__all__ = [
    "SyntheticCorpus",
    "PasskeyBatch",
    "PasskeyCorpus",
    "CharCorpus",
    "load_shakespeare",
    "SHAKESPEARE_SHA256",
    "TinyLM",
    "train_lm",
    "evaluate_lm",
    "evaluate_passkey",
    "evaluate_windows",
    "evaluate_context_cut",
    "TrigramBaseline",
    "finetune_arms",
    "finetune_schedule",
    "FINETUNE_SCHEDULE",
    "learned_bias",
    "experiment_config",
    "text_config",
    "experiment_scaling",
    "finetune_corpus",
    "EXPERIMENT_METHODS",
    "BIAS_METHODS",
    "EXPERIMENT_SCALINGS",
    "FINETUNED",
    "TEXT_METHODS",
    "run_jobs",
    "run_extrapolation",
    "run_text_experiment",
    "code_files",
    "code_hash",
    "code_record",
    "RESULT_NAMES",
    "load_results",
    "summarize",
    "format_mean_range",
]
