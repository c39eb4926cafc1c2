"""The chapters' exercise self-check: an integer answer compared with a hash of the right one."""

from __future__ import annotations

import hashlib
import re

__all__ = ["answer_digest", "check_answer"]

_DIGEST = re.compile(r"[0-9a-f]{16}")


def _as_int(value) -> int:
    """An integer answer as ``int``; ``6.9`` is not truncated to 6 (it raises and so stays wrong)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"answer must be an integer (or an integral float or str), got {type(value).__name__}")
    try:
        number = int(value)
    except (ValueError, OverflowError):
        raise ValueError(f"answer must be an integer, got {value!r}") from None
    if not isinstance(value, str) and number != value:
        raise ValueError(f"answer must be an integer, got {value!r}")
    return number


def answer_digest(answer) -> str:
    """The first 16 hex digits of the sha256 of ``repr`` of an integer answer (or a tuple of them).

    Args:
        answer: an integer (or an integral float or str), or a tuple/list of them.
    """
    key = tuple(_as_int(a) for a in answer) if isinstance(answer, (tuple, list)) else _as_int(answer)
    return hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def check_answer(name: str, answer, digest: str) -> bool:
    """The chapters' exercise self-check: compare an integer answer with a hash of the right one.

    Prints "not answered yet" for ``None``, "correct", or "not yet (...)"; never raises for a wrong
    answer. The right answer is not in the chapter's source, but a hash keeps it out of sight, not
    out of reach (a small integer can be found by trying them all): a self-check, not a test.

    Args:
        name (str): the exercise's name, printed first.
        answer: ``None``, an integer (or an integral float or str), or a tuple/list of them.
        digest (str): :func:`answer_digest` of the right answer (16 lower-case hex digits).

    Returns:
        bool: whether the answer is right.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise ValueError(f"digest must be 16 lower-case hex digits from answer_digest(), got {digest!r}")
    if answer is None:
        print(f"{name}: not answered yet")
        return False
    try:
        right = answer_digest(answer) == digest
    except (TypeError, ValueError):
        right = False
    print(f"{name}: " + ("correct" if right else f"not yet ({answer!r} is not the answer)"))
    return right
