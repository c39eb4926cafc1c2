"""The experiments' data: two generated corpora and real text, each with ``sample(batch, length, *, generator)``.

:class:`SyntheticCorpus` is a random second-order Markov "language" with copied spans;
:class:`PasskeyCorpus` hides a passkey in such filler and asks for it later (the passkey retrieval
task of Mohtashami and Jaggi, "Landmark Attention", 2023); :class:`CharCorpus` is character-level
text, by default the shipped tiny Shakespeare (:func:`load_shakespeare`). Everything is local and
seeded: nothing is downloaded.

Shape legend: ``b`` batch, ``n`` input length, ``V`` vocabulary size.
"""

from __future__ import annotations

import gzip
import hashlib
import math
from dataclasses import dataclass
from importlib import resources

import torch

from .._core.validate import (
    check_float,
    check_int,
    check_size,
    check_tensor,
    get_max_tensor_bytes,
    size_limit_hint,
)

__all__ = [
    "SyntheticCorpus",
    "PasskeyBatch",
    "PasskeyCorpus",
    "CharCorpus",
    "load_shakespeare",
    "SHAKESPEARE_SHA256",
    "MAX_VOCAB",
]

#: The largest vocabulary of :class:`SyntheticCorpus`: its table holds a permutation draw for each of
#: the ``V * V`` contexts, so its cost grows as ``V ** 3`` (1024: about a billion draws).
MAX_VOCAB = 1024
#: sha256 of the uncompressed text (karpathy/char-rnn ``data/tinyshakespeare/input.txt``).
SHAKESPEARE_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"


def check_sizes(shape: tuple[int, ...], *, item_bytes: int = 4, **given: object) -> None:
    """Refuse a tensor of ``shape`` above the size limit in force (``posenc.set_max_tensor_bytes`` sets it),
    naming the arguments ``given`` (``batch=..., length=...``) that set its size. Call it before allocating.

    Raises:
        ValueError: the tensor would be larger than the limit.
    """
    n_bytes = math.prod([int(s) for s in shape]) * item_bytes  # a list: torch.compile traces it
    if n_bytes > get_max_tensor_bytes():
        args = ", ".join(f"{name}={value}" for name, value in given.items())
        raise ValueError(
            f"{args} asks for a tensor of shape {tuple(int(s) for s in shape)} ({n_bytes / 2**30:.3g} "
            f"GiB); {size_limit_hint()}; or pass a smaller {' or '.join(given)}"
        )


def _check_generator(generator) -> None:
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")


@dataclass
class SyntheticCorpus:
    """A random "language" with local and long-range structure.

    Tokens follow a sparse random second-order Markov chain (each context allows ``branching``
    next tokens), and with probability ``copy_prob`` per position a span of 4 to 12 earlier tokens is
    repeated verbatim: predicting it needs attention to a distant position.

    Args:
        vocab_size (int): number of token ids ``V``.
        branching (int): allowed next tokens per context.
        copy_prob (float): chance per position of starting a copied span.
        seed (int): seed of the transition tables.
    """

    vocab_size: int = 32
    branching: int = 3
    copy_prob: float = 0.02
    seed: int = 0

    def __post_init__(self) -> None:
        self.vocab_size = check_int("vocab_size", self.vocab_size, min_value=2, max_value=MAX_VOCAB)
        self.branching = check_int("branching", self.branching, min_value=1, max_value=self.vocab_size)
        self.copy_prob = check_float("copy_prob", self.copy_prob, ge=0.0, le=1.0)
        g = torch.Generator().manual_seed(check_int("seed", self.seed))
        v = self.vocab_size
        self.next_tokens = torch.stack([torch.randperm(v, generator=g)[: self.branching] for _ in range(v * v)]).view(
            v, v, self.branching
        )  # [V, V, branching]: allowed continuations of (a, b)

    def sample(self, batch: int, length: int, *, generator: torch.Generator) -> torch.Tensor:
        """``[batch, length]`` int64 token sequences.

        Raises:
            ValueError: ``batch`` or ``length`` below their minimum (1, 2), or the sampler's working
                memory (five ``[batch, length]`` tensors, 36 bytes an entry) above the size limit in force
                (``posenc.set_max_tensor_bytes``).
        """
        batch = check_int("batch", batch, min_value=1)
        length = check_int("length", length, min_value=2)
        # the draws below hold 4 int64 and 1 float32 [batch, length] tensors at once (36 bytes an entry):
        # refused as a whole, before the first of them is allocated
        check_sizes((batch, length), item_bytes=36, batch=batch, length=length)
        _check_generator(generator)
        v, k = self.vocab_size, self.branching
        out = torch.empty(batch, length, dtype=torch.long)
        out[:, :2] = torch.randint(0, v, (batch, 2), generator=generator)
        choice = torch.randint(0, k, (batch, length), generator=generator)
        copy_start = torch.rand(batch, length, generator=generator) < self.copy_prob
        span = torch.randint(4, 13, (batch, length), generator=generator)
        back = torch.randint(0, 10**6, (batch, length), generator=generator)
        rows = torch.arange(batch)
        src = torch.zeros(batch, dtype=torch.long)  # where each row copies from
        left = torch.zeros(batch, dtype=torch.long)  # tokens still to copy
        for t in range(2, length):
            start = (left == 0) & copy_start[:, t] & (t > 16)
            # a copied span starts at least 16 tokens back
            src = torch.where(start, back[:, t] % max(t - 16, 1), src)
            left = torch.where(start, span[:, t], left)
            markov = self.next_tokens[out[:, t - 2], out[:, t - 1], choice[:, t]]
            copying = left > 0
            out[:, t] = torch.where(copying, out[rows, src.clamp(max=t - 1)], markov)
            src = src + copying.long()
            left = (left - 1).clamp(min=0)
        return out


@dataclass
class PasskeyBatch:
    """Sequences of :class:`PasskeyCorpus` with what an evaluation needs to know about them.

    Attributes:
        tokens (torch.Tensor): ``[b, n + 1]``; the model reads ``tokens[:, :-1]`` and predicts ``tokens[:, 1:]``.
        filler (torch.Tensor): bool ``[b, n]``, True where the target is a filler token whose two
            predecessors are filler too (the targets a trigram can predict).
        answer (torch.Tensor): bool ``[b, n]``, True where the target is a passkey digit after ``QUERY``.
        distance (torch.Tensor): ``[b]``, how many tokens before ``QUERY`` the first passkey digit
            sits (a positive count of tokens back, i.e. ``-(key - query)`` in the book's convention);
            -1 where the sequence has no ``QUERY``.
    """

    tokens: torch.Tensor
    filler: torch.Tensor
    answer: torch.Tensor
    distance: torch.Tensor

    def __post_init__(self) -> None:
        check_tensor("tokens", self.tokens, ndim=2, floating=False)
        b, n = self.tokens.shape[0], self.tokens.shape[1] - 1
        for name in ("filler", "answer"):
            mask = getattr(self, name)
            check_tensor(name, mask, ndim=2)
            if mask.dtype != torch.bool or mask.shape != (b, n):
                raise ValueError(
                    f"{name} must be a bool tensor [b, n] = [{b}, {n}] (one entry per target), "
                    f"got {mask.dtype} {tuple(mask.shape)}"
                )
        check_tensor("distance", self.distance, ndim=1, floating=False)
        if self.distance.shape != (b,):
            raise ValueError(
                f"distance must have one entry per sequence (b={b}), got shape {tuple(self.distance.shape)}"
            )


@dataclass
class PasskeyCorpus:
    """Filler text in which a passkey is hidden and, later, asked for.

    Filler comes from a second-order Markov chain (:class:`SyntheticCorpus` without copies, entropy
    ``ln(branching)`` per token). Written over it: ``KEY d_1 .. d_k`` and later ``QUERY d_1 .. d_k``,
    where the digits are uniform over ``n_digits`` tokens of their own, so a model that does not look
    back to the key guesses them with probability ``n_digits ** -k``. Token ids: filler ``0 .. V-1``,
    digits ``V .. V + n_digits - 1``, then ``KEY`` and ``QUERY``.

    Training text (:meth:`sample_text`) is memoryless: ``KEY`` starts at each position with
    probability ``key_rate`` (once per sequence), ``QUERY`` follows after a geometric wait with
    ``query_rate``; episodes cut by the end of the window are kept cut. Nothing in it depends on the
    absolute position, so a model cannot learn "the question comes at position L" and fail for that
    reason beyond ``L``. The passkey test (:meth:`sample_probe`) puts the key at a chosen distance and
    ``QUERY`` at the end, as Mohtashami and Jaggi's prompt does.

    Args:
        vocab_size (int): filler symbols ``V``.
        branching (int): allowed next filler tokens per context.
        n_digits (int): passkey symbols.
        passkey_len (int): digits per passkey ``k``.
        key_rate (float): chance per position that the key starts (before it has).
        query_rate (float): chance per position that the question comes (after the key).
        seed (int): seed of the filler's transition table.
    """

    vocab_size: int = 16
    branching: int = 2
    n_digits: int = 10
    passkey_len: int = 1
    key_rate: float = 1 / 12
    query_rate: float = 1 / 32
    seed: int = 0

    def __post_init__(self) -> None:
        self.filler_corpus = SyntheticCorpus(
            vocab_size=self.vocab_size, branching=self.branching, copy_prob=0.0, seed=self.seed
        )
        self.n_digits = check_int("n_digits", self.n_digits, min_value=2)
        self.passkey_len = check_int("passkey_len", self.passkey_len, min_value=1)
        self.key_rate = check_float("key_rate", self.key_rate, gt=0.0, le=1.0)
        self.query_rate = check_float("query_rate", self.query_rate, gt=0.0, le=1.0)
        self.key_token = self.vocab_size + self.n_digits
        self.query_token = self.key_token + 1
        self.n_tokens = self.query_token + 1  # the model's vocabulary

    def _write(
        self, x: torch.Tensor, key_pos: torch.Tensor, query_pos: torch.Tensor, generator: torch.Generator
    ) -> PasskeyBatch:
        """Write ``KEY digits`` at ``key_pos`` and ``QUERY digits`` at ``query_pos`` (``[b]`` each; positions
        past the end are dropped) over filler ``x`` ``[b, n + 1]``."""
        b, n1 = x.shape
        k = self.passkey_len
        digits = self.vocab_size + torch.randint(0, self.n_digits, (b, k), generator=generator)  # [b, k]
        rows = torch.arange(b)[:, None].expand(b, k + 1)
        for start, marker in ((key_pos, self.key_token), (query_pos, self.query_token)):
            pos = start[:, None] + torch.arange(k + 1)  # [b, k + 1]: the marker, then the digits
            values = torch.cat((torch.full((b, 1), marker), digits), dim=1)  # [b, k + 1]
            inside = pos < n1
            x[rows[inside], pos[inside]] = values[inside]
        answer = torch.zeros(b, n1, dtype=torch.bool)
        pos = query_pos[:, None] + torch.arange(1, k + 1)  # [b, k]: the digits after QUERY
        inside = pos < n1
        answer[rows[:, :k][inside], pos[inside]] = True
        is_filler = x < self.vocab_size  # [b, n + 1]
        filler = is_filler[:, 2:] & is_filler[:, 1:-1] & is_filler[:, :-2]  # targets 2 .. n
        filler = torch.cat((torch.zeros(b, 1, dtype=torch.bool), filler), dim=1)  # [b, n], per target 1 .. n
        distance = torch.where(query_pos < n1, query_pos - key_pos - 1, torch.full_like(query_pos, -1))
        return PasskeyBatch(x, filler, answer[:, 1:], distance)

    def sample_text(self, batch: int, n: int, *, generator: torch.Generator) -> PasskeyBatch:
        """Training-like text for inputs of ``n`` tokens: at most one passkey episode, at memoryless times."""
        batch, n = check_int("batch", batch, min_value=1), check_int("n", n, min_value=2)
        check_sizes((batch, n + 1), item_bytes=36, batch=batch, n=n)  # the filler sampler's memory
        x = self.filler_corpus.sample(batch, n + 1, generator=generator)

        def geometric(rate: float) -> torch.Tensor:  # failures before the first success, [b]
            u = torch.rand(batch, generator=generator, dtype=torch.float64).clamp_min(1e-300)
            return (u.log() / math.log1p(-rate)).floor().long() if rate < 1 else torch.zeros(batch, dtype=torch.long)

        key_pos = geometric(self.key_rate)
        query_pos = key_pos + self.passkey_len + 1 + geometric(self.query_rate)
        return self._write(x, key_pos.clamp(max=n + 1), query_pos.clamp(max=n + 1), generator)

    def distances(self, n: int) -> tuple[int, int]:
        """The smallest and largest passkey distance a probe of ``n`` input tokens can hold."""
        return self.passkey_len, n - self.passkey_len - 1

    def sample_probe(
        self, batch: int, n: int, *, generator: torch.Generator, distance: int | None = None
    ) -> PasskeyBatch:
        """Passkey tests of ``n`` input tokens: filler, the key ``distance`` tokens before ``QUERY``
        (default: uniform over :meth:`distances`), ``QUERY`` and the digits at the very end."""
        k = self.passkey_len
        lo, hi = self.distances(check_int("n", n, min_value=2 * k + 2))
        batch = check_int("batch", batch, min_value=1)
        check_sizes((batch, n + 1), item_bytes=36, batch=batch, n=n)  # the filler sampler's memory
        x = self.filler_corpus.sample(batch, n + 1, generator=generator)
        if distance is None:
            dist = torch.randint(lo, hi + 1, (batch,), generator=generator)
        else:
            dist = torch.full((batch,), check_int("distance", distance, min_value=lo, max_value=hi))
        query_pos = torch.full((batch,), n - k)  # the input's last k positions predict the digits
        return self._write(x, query_pos - dist - 1, query_pos, generator)

    def sample(self, batch: int, length: int, *, generator: torch.Generator) -> torch.Tensor:
        """``[batch, length]`` tokens of :meth:`sample_text`, as :meth:`SyntheticCorpus.sample` returns."""
        batch, length = check_int("batch", batch, min_value=1), check_int("length", length, min_value=3)
        check_sizes((batch, length), item_bytes=36, batch=batch, length=length)  # the filler sampler's memory
        return self.sample_text(batch, length - 1, generator=generator).tokens


def load_shakespeare() -> str:
    """The shipped tiny-Shakespeare text (1 115 394 characters), checked against its sha256.

    Raises:
        RuntimeError: the shipped file does not match :data:`SHAKESPEARE_SHA256`.
    """
    raw = gzip.decompress(resources.files("posenc").joinpath("data").joinpath("tinyshakespeare.txt.gz").read_bytes())
    if hashlib.sha256(raw).hexdigest() != SHAKESPEARE_SHA256:
        raise RuntimeError("posenc/data/tinyshakespeare.txt.gz does not hold the expected text (sha256 differs)")
    return raw.decode("utf-8")


class CharCorpus:
    """Characters as tokens, with a fixed train / validation split.

    Args:
        text (str): the whole text (default: :func:`load_shakespeare`), at least 4 characters.
        train_fraction (float): the leading share of characters used for training, in (0, 1); the rest
            validates. Both parts must keep at least 2 characters.

    Attributes:
        chars (str): the vocabulary, sorted; token id = index.
        train, val (torch.Tensor): int64 token ids of the two parts.

    Raises:
        TypeError: ``text`` is not a str.
        ValueError: ``text`` is too short or ``train_fraction`` leaves a part with fewer than 2 characters.
    """

    def __init__(self, text: str | None = None, *, train_fraction: float = 0.9) -> None:
        text = load_shakespeare() if text is None else text
        if not isinstance(text, str):
            raise TypeError(f"text must be a str (or None for the shipped Shakespeare), got {type(text).__name__}")
        if len(text) < 4:
            raise ValueError(f"text must hold at least 4 characters, got {len(text)}")
        check_size("len(text)", len(text), (len(text),), item_bytes=8)
        train_fraction = check_float("train_fraction", train_fraction, gt=0.0, le=1.0)
        if train_fraction == 1.0:
            raise ValueError("train_fraction must be in (0, 1): the rest of the text validates, got 1.0")
        cut = int(train_fraction * len(text))
        if cut < 2 or len(text) - cut < 2:
            raise ValueError(
                f"train_fraction={train_fraction:g} splits {len(text)} characters into {cut} for "
                f"training and {len(text) - cut} for validation; each part needs at least 2"
            )
        self.chars = "".join(sorted(set(text)))
        self.vocab_size = len(self.chars)
        index = {c: i for i, c in enumerate(self.chars)}
        ids = torch.tensor([index[c] for c in text], dtype=torch.long)
        cut = int(train_fraction * len(ids))
        self.train, self.val = ids[:cut], ids[cut:]

    def sample(self, batch: int, length: int, *, generator: torch.Generator) -> torch.Tensor:
        """``[batch, length]`` windows of the training part at uniformly random offsets (what
        :func:`~posenc.experiments.train_lm` asks a corpus for)."""
        batch = check_int("batch", batch, min_value=1)
        length = check_int("length", length, min_value=2, max_value=len(self.train))
        check_sizes((batch, length), item_bytes=8, batch=batch, length=length)
        _check_generator(generator)
        start = torch.randint(0, len(self.train) - length + 1, (batch,), generator=generator)
        return self.train[start[:, None] + torch.arange(length)]

    def decode(self, ids: torch.Tensor) -> str:
        """The text of 1-D token ids."""
        return "".join(self.chars[i] for i in ids.tolist())
