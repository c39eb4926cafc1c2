"""Wall-clock timing: the median of repeated calls, and rounds interleaved over several calls.

Times depend on the machine and its load, so the benchmark scripts report ratios taken within one
round (every call measured once per round, one after the other), with the spread of the per-round
ratios as the noise to read next to them. No test compares times.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Hashable, Mapping

from posenc._core.validate import check_int

__all__ = ["median_seconds", "interleaved_rounds", "round_ratios", "ratio_spread"]


def _check_callable(name: str, fn: object) -> None:
    if not callable(fn):
        raise TypeError(f"{name} must be a callable taking no arguments, got {type(fn).__name__}")


def median_seconds(fn: Callable[[], object], *, repeat: int = 7, warmup: int = 2) -> float:
    """Median wall time in seconds of ``fn()`` over ``repeat`` runs after ``warmup`` runs.

    Args:
        fn: a callable taking no arguments.
        repeat (int): timed runs, >= 1 (the median is returned).
        warmup (int): untimed runs first, >= 0 (caches, lazy initialisation).
    """
    _check_callable("fn", fn)
    repeat = check_int("repeat", repeat, min_value=1)
    for _ in range(check_int("warmup", warmup, min_value=0)):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def interleaved_rounds(
    calls: Mapping[Hashable, Callable[[], object]],
    *,
    rounds: int = 5,
    repeat: int = 7,
    warmup: int = 1,
    on_round: Callable[[int], object] | None = None,
) -> dict:
    """Time every call once per round, ``rounds`` times: round 1 of every call, then round 2, ...

    A slow spell of a shared machine then lands on every call alike, and a ratio taken within a
    round (:func:`round_ratios`) cancels most of it.

    Args:
        calls: name -> a callable taking no arguments, timed in this order within each round.
        rounds (int): passes over all the calls, >= 1.
        repeat, warmup (int): as in :func:`median_seconds`, for each call in each round.
        on_round: called with the number of the round just finished (1-based), e.g. to print progress.

    Returns:
        dict: name -> list of ``rounds`` median times in seconds (one per round).
    """
    if not isinstance(calls, Mapping) or not calls:
        raise TypeError(f"calls must be a non-empty mapping of name -> callable, got {type(calls).__name__}")
    for name, fn in calls.items():
        _check_callable(f"calls[{name!r}]", fn)
    rounds = check_int("rounds", rounds, min_value=1)
    repeat = check_int("repeat", repeat, min_value=1)
    warmup = check_int("warmup", warmup, min_value=0)
    if on_round is not None:
        _check_callable("on_round", on_round)
    times: dict = {name: [] for name in calls}
    for r in range(rounds):
        for name, fn in calls.items():
            times[name].append(median_seconds(fn, repeat=repeat, warmup=warmup))
        if on_round is not None:
            on_round(r + 1)
    return times


def round_ratios(times: list[float], base: list[float]) -> list[float]:
    """The per-round ratios ``times[r] / base[r]`` of two calls timed in the same rounds.

    Report their median with their min and max (the noise): e.g. "1.9x copy (rounds 1.8-2.0)".
    """
    for name, values in (("times", times), ("base", base)):
        if not isinstance(values, (list, tuple)) or not values:
            raise TypeError(f"{name} must be a non-empty list of seconds, got {type(values).__name__}")
    if len(times) != len(base):
        raise ValueError(f"times and base must come from the same rounds, got {len(times)} and {len(base)} rounds")
    if any(not b > 0 for b in base):
        raise ValueError(f"base must hold times > 0, got {min(base)}")
    return [t / b for t, b in zip(times, base)]


def ratio_spread(ratios: list[float], of: str = "") -> str:
    """``"1.90x copy (rounds 1.80-2.00)"``: the median of per-round ratios (to ``of``, when given) and
    the smallest and largest of them, the noise to read beside it (:func:`round_ratios` makes them)."""
    if not isinstance(ratios, (list, tuple)) or not ratios:
        raise TypeError(f"ratios must be a non-empty list of per-round ratios, got {type(ratios).__name__}")
    if not isinstance(of, str):
        raise TypeError(f"of must be a str (what the ratios are to), got {type(of).__name__}")
    return f"{statistics.median(ratios):.2f}x{' ' + of if of else ''} (rounds {min(ratios):.2f}-{max(ratios):.2f})"
