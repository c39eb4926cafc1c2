"""Tiny, download-free stand-ins for a tokenizer and an embedding table.

The book's examples ("The dog chased another dog", 我爱你 / 你爱我) need token vectors, not a real
language model: a seeded random table over the words of the example is enough to show what
attention does with and without position information.

Shape legend: ``L`` tokens, ``d`` embedding width, ``V`` vocabulary size.
"""

from __future__ import annotations

from typing import Sequence

import torch

from .._core.validate import check_int, check_size

__all__ = ["toy_vocabulary", "toy_embeddings"]


def toy_vocabulary(tokens: Sequence[str]) -> list[str]:
    """The distinct tokens in order of first appearance (a deterministic vocabulary)."""
    if isinstance(tokens, str) or not all(isinstance(t, str) for t in tokens):
        raise TypeError("tokens must be a sequence of str, e.g. 'the dog chased another dog'.split()")
    return list(dict.fromkeys(tokens))


def toy_embeddings(tokens: Sequence[str], d_model: int, *, seed: int = 0,
                   vocabulary: Sequence[str] | None = None) -> torch.Tensor:
    """Embed ``tokens`` with a seeded N(0, 1) table: equal tokens get equal vectors.

    Args:
        tokens: ``L`` token strings.
        d_model (int): embedding width ``d``.
        seed (int): seed of the table (the same seed gives the same vectors in every chapter).
        vocabulary: the table's rows; default :func:`toy_vocabulary` of ``tokens``. Pass a shared
            vocabulary to embed several sentences with one table.

    Returns:
        torch.Tensor: float32 ``[L, d]`` (``[0, d]`` for no tokens).
    """
    d_model = check_int("d_model", d_model, min_value=1)
    vocab = toy_vocabulary(tokens)
    if vocabulary is not None:
        if isinstance(vocabulary, str) or not all(isinstance(t, str) for t in vocabulary):
            raise TypeError("vocabulary must be a sequence of str")
        vocab = list(vocabulary)
    missing = [t for t in tokens if t not in vocab]
    if missing:
        raise ValueError(f"tokens {missing} are not in the vocabulary {vocab}")
    seed = check_int("seed", seed)
    check_size("d_model", d_model, (len(vocab) + len(tokens), d_model), item_bytes=4)
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(len(vocab), d_model, generator=g)  # [V, d]
    ids = torch.tensor([vocab.index(t) for t in tokens], dtype=torch.int64)  # [L]; [0] for no tokens
    return table[ids]  # [L, d]
