"""Train short, test long on real text: Press et al.'s Figure 1 at toy scale.

Character-level Shakespeare (shipped as ``posenc/data/tinyshakespeare.txt.gz``; its README gives the
source): :class:`CharCorpus` splits it into the first 90 % for training and the last 10 % for
validation. :func:`run_text_experiment` trains one :class:`~posenc.lm.TinyLM` per (position method,
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

import gzip
import hashlib
import time
from importlib import resources

import torch
import torch.nn.functional as F

from ._validate import check_float, check_int
from .lm import EXPERIMENT_SCALINGS, TinyLM, code_files, code_hash, scaling_kwargs, train_lm

__all__ = ["SHAKESPEARE_SHA256", "load_shakespeare", "CharCorpus", "evaluate_windows", "text_config",
           "run_text_experiment", "TEXT_METHODS"]

#: sha256 of the uncompressed text (karpathy/char-rnn ``data/tinyshakespeare/input.txt``).
SHAKESPEARE_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
#: The position methods of the real-text run (the passkey run's, :data:`posenc.lm.EXPERIMENT_METHODS`).
TEXT_METHODS = ("none", "sinusoidal", "learned", "t5", "rope", "alibi", "kerple", "fire", "cope")


def load_shakespeare() -> str:
    """The shipped tiny-Shakespeare text (1 115 394 characters), checked against its sha256.

    Raises:
        RuntimeError: the shipped file does not match :data:`SHAKESPEARE_SHA256`.
    """
    raw = gzip.decompress(resources.files("posenc").joinpath("data", "tinyshakespeare.txt.gz").read_bytes())
    if hashlib.sha256(raw).hexdigest() != SHAKESPEARE_SHA256:
        raise RuntimeError("posenc/data/tinyshakespeare.txt.gz does not hold the expected text (sha256 differs)")
    return raw.decode("utf-8")


class CharCorpus:
    """Characters as tokens, with a fixed train / validation split.

    Args:
        text (str): the whole text (default: :func:`load_shakespeare`).
        train_fraction (float): the leading share of characters used for training; the rest validates.

    Attributes:
        chars (str): the vocabulary, sorted; token id = index.
        train, val (torch.Tensor): int64 token ids of the two parts.
    """

    def __init__(self, text: str | None = None, *, train_fraction: float = 0.9) -> None:
        text = load_shakespeare() if text is None else text
        if not isinstance(text, str) or len(text) < 4:
            raise ValueError("text must be a str of at least 4 characters")
        train_fraction = check_float("train_fraction", train_fraction, gt=0.0, le=1.0)
        if train_fraction == 1.0:
            raise ValueError("train_fraction must be in (0, 1): the rest of the text validates, got 1.0")
        self.chars = "".join(sorted(set(text)))
        self.vocab_size = len(self.chars)
        index = {c: i for i, c in enumerate(self.chars)}
        ids = torch.tensor([index[c] for c in text], dtype=torch.long)
        cut = int(train_fraction * len(ids))
        self.train, self.val = ids[:cut], ids[cut:]

    def sample(self, batch: int, length: int, *, generator: torch.Generator) -> torch.Tensor:
        """``[batch, length]`` windows of the training part at uniformly random offsets (what
        :func:`~posenc.lm.train_lm` asks a corpus for)."""
        batch = check_int("batch", batch, min_value=1)
        length = check_int("length", length, min_value=2, max_value=len(self.train))
        start = torch.randint(0, len(self.train) - length + 1, (batch,), generator=generator)
        return self.train[start[:, None] + torch.arange(length)]

    def decode(self, ids: torch.Tensor) -> str:
        """The text of 1-D token ids."""
        return "".join(self.chars[i] for i in ids.tolist())


@torch.no_grad()
def evaluate_windows(model: TinyLM, tokens: torch.Tensor, length: int, *, chunk: int = 16) -> tuple[float, torch.Tensor]:
    """Loss on non-overlapping windows of ``length`` input tokens, as Press et al. evaluate.

    ``tokens`` (1-D, ``m * length + 1`` ids) is cut into ``m`` windows; window ``w`` reads
    ``tokens[w*length : (w+1)*length]`` and predicts the next ``length`` tokens, so every target
    ``tokens[1:]`` is scored once, whatever ``length`` is.

    Returns:
        (mean loss over all targets in nats, loss per position ``[length]`` averaged over windows).
    """
    length = check_int("length", length, min_value=1)
    if tokens.ndim != 1 or (tokens.numel() - 1) % length:
        raise ValueError(f"tokens must be 1-D with m * length + 1 entries, got shape {tuple(tokens.shape)} "
                         f"for length={length}")
    model.eval()
    m = (tokens.numel() - 1) // length
    inputs = tokens[:-1].view(m, length)  # [m, n]
    targets = tokens[1:].view(m, length)
    per_position = torch.zeros(length, dtype=torch.float64)
    for i in range(0, m, chunk):
        logits = model(inputs[i:i + chunk])  # [b, n, V]
        nll = F.cross_entropy(logits.transpose(1, 2), targets[i:i + chunk], reduction="none")  # [b, n]
        per_position += nll.double().sum(dim=0)
    per_position /= m
    return per_position.mean().item(), per_position


def text_config(quick: bool = False, **overrides) -> dict:
    """The full or quick configuration of :func:`run_text_experiment`.

    Full: every method of :data:`TEXT_METHODS`, three seeds, the passkey run's model and optimiser
    (width 64, 2 layers, 4 heads; 1000 steps of 32 windows of ``L = 64`` characters), evaluated at
    64 to 1024 characters (1x to 16x) on the first 65 537 validation characters; RoPE also zero-shot
    with PI, dynamic NTK (factor 1) and YaRN (betas 2/1), as in the passkey run. Quick: RoPE and
    ALiBi, one seed, 300 steps, lengths 64 to 512 on 16 385 characters.
    """
    config = {
        "methods": list(TEXT_METHODS), "seeds": [0, 1, 2], "train_fraction": 0.9,
        "model": {"d_model": 64, "n_layers": 2, "n_heads": 4},
        "train_length": 64, "steps": 1000, "batch": 32, "lr": 3e-3, "warmup": 50,
        "eval_lengths": [64, 128, 256, 512, 1024], "val_tokens": 65_536,
        "dynamic_factor": 1.0, "yarn": {"beta_fast": 2.0, "beta_slow": 1.0},
    }
    if quick:
        config.update({"methods": ["rope", "alibi"], "seeds": [0], "steps": 300, "eval_lengths": [64, 128, 256, 512],
                       "val_tokens": 16_384})
    for key, value in overrides.items():
        if key not in config:
            raise ValueError(f"unknown configuration entry {key!r}; expected one of {sorted(config)}")
        config[key] = {**config[key], **value} if isinstance(config[key], dict) else value
    if any(config["val_tokens"] % n for n in config["eval_lengths"]):
        raise ValueError("val_tokens must be a multiple of every evaluation length (the same characters at each)")
    return config


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
                model.set_rope_scaling(**scaling_kwargs(config, scaling, n))
            out[f"rope+{scaling}"] = _evaluate_text(model, tokens, config, set_length)
        model.set_rope_scaling("default")
    out[method]["cpu_seconds"] = round(time.process_time() - start, 1)  # the whole job's, this process's
    return out


def run_text_experiment(config: dict | None = None, *, workers: int = 1, progress: bool = False) -> dict:
    """Train a :class:`~posenc.lm.TinyLM` per (method, seed) on Shakespeare at ``train_length`` characters
    and evaluate it at every length of ``eval_lengths`` with :func:`evaluate_windows`.

    Args:
        config (dict, optional): from :func:`text_config` (default: the full one).
        workers (int): processes for the (method, seed) jobs, one thread each.
        progress (bool): print each job as it finishes.

    Returns:
        dict: ``{"config", "code": {"files", "sha256"}, "metrics": {variant: {seed: {"loss": {n: nats or
        None}, "loss_by_position": [per position at the longest length] or None, ...}}}}``; the
        variants are the methods and, for RoPE, ``rope+pi``, ``rope+dynamic``, ``rope+yarn``.
    """
    config = text_config() if config is None else config
    code = {"files": list(code_files("realtext.py")), "sha256": code_hash(entry="realtext.py")}
    names = sorted(config["methods"], key=lambda m: (m != "rope", m != "cope"))  # the longest jobs first
    jobs = [(m, s, config) for m in names for s in config["seeds"]]
    metrics: dict = {}
    if check_int("workers", workers, min_value=1) > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers, initializer=torch.set_num_threads, initargs=(1,)) as pool:
            for (method, seed, _), result in zip(jobs, pool.imap(_run_text_job, jobs)):
                for name, m in result.items():
                    metrics.setdefault(name, {})[str(seed)] = m
                if progress:
                    print("done:", method, seed, flush=True)
    else:
        for job in jobs:
            for name, m in _run_text_job(job).items():
                metrics.setdefault(name, {})[str(job[1])] = m
            if progress:
                print("done:", job[0], job[1], flush=True)
    order = [n for m in config["methods"]
             for n in ([m, *[f"rope+{s}" for s in EXPERIMENT_SCALINGS]] if m == "rope" else [m])]
    return {"config": config, "code": code, "metrics": {name: metrics[name] for name in order}}
