"""Tiny, download-free stand-ins for a tokenizer and an embedding table.

The book's examples ("The dog chased another dog", 我爱你 / 你爱我) need token vectors, not a real
language model: a seeded random table over the words of the example is enough to show what
attention does with and without position information.

Shape legend: ``L`` tokens, ``d`` embedding width, ``V`` vocabulary size.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

from posenc._core.validate import check_int, check_size

__all__ = ["toy_vocabulary", "toy_embeddings"]


def _strings(name: str, tokens: Iterable[str]) -> list[str]:
    """``tokens`` as a list of str (any iterable of str but a str itself), or a TypeError naming ``name``."""
    if isinstance(tokens, str) or not isinstance(tokens, Iterable):
        raise TypeError(
            f"{name} must be a sequence of str, e.g. 'the dog chased another dog'.split(), got {type(tokens).__name__}"
        )
    tokens = list(tokens)  # once: a generator is read a single time
    bad = [t for t in tokens if not isinstance(t, str)]
    if bad:
        raise TypeError(f"{name} must hold str only, got {type(bad[0]).__name__} ({bad[0]!r})")
    return tokens


def toy_vocabulary(tokens: Iterable[str]) -> list[str]:
    """The distinct tokens in order of first appearance (a deterministic vocabulary)."""
    return list(dict.fromkeys(_strings("tokens", tokens)))


def toy_embeddings(
    tokens: Iterable[str], d_model: int, *, seed: int = 0, vocabulary: Iterable[str] | None = None
) -> torch.Tensor:
    """Embed ``tokens`` with a seeded N(0, 1) table: equal tokens get equal vectors.

    Args:
        tokens: ``L`` token strings.
        d_model (int): embedding width ``d``.
        seed (int): seed of the table (the same seed gives the same vectors in every chapter); any
            int ``torch.Generator.manual_seed`` takes, ``-2**63 <= seed < 2**64``.
        vocabulary: the table's rows, distinct; default :func:`toy_vocabulary` of ``tokens``. Pass a
            shared vocabulary to embed several sentences with one table.

    Returns:
        torch.Tensor: float32 ``[L, d]`` (``[0, d]`` for no tokens).
    """
    tokens = _strings("tokens", tokens)
    d_model = check_int("d_model", d_model, min_value=1)
    seed = check_int("seed", seed, min_value=-(2**63), max_value=2**64 - 1)
    vocab = toy_vocabulary(tokens) if vocabulary is None else _strings("vocabulary", vocabulary)
    row = {t: i for i, t in enumerate(vocab)}  # token -> row of the table
    if len(row) != len(vocab):
        repeated = sorted({t for i, t in enumerate(vocab) if row[t] != i})
        raise ValueError(f"vocabulary must list each token once, got {repeated} more than once")
    missing = [t for t in tokens if t not in row]
    if missing:
        raise ValueError(f"tokens {missing} are not in the vocabulary {vocab}")
    check_size("d_model", d_model, (len(vocab) + len(tokens), d_model), item_bytes=4)
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(len(vocab), d_model, generator=g)  # [V, d]
    ids = torch.tensor([row[t] for t in tokens], dtype=torch.int64)  # [L]; [0] for no tokens
    return table[ids]  # [L, d]
