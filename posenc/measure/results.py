"""Saved measurements: what a benchmark script measured, with the machine it ran on.

A script writes ``bench_<name>.json`` with :func:`save_results`, by default to ``./results/`` of
the working directory (a reader's run never overwrites the installed package). ``make bench``
passes ``--out posenc/results``: the shipped copies that the chapters print with
:func:`~posenc.measure.results.load_results`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .host import machine

__all__ = ["RESULTS_DIR", "save_results", "load_results", "known_results"]

#: The shipped measurements (``posenc/results/``), read by the chapters.
RESULTS_DIR = Path(__file__).resolve().parents[1] / "results"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def _check_name(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (e.g. 'rope'), got {type(name).__name__}")
    if not _NAME.fullmatch(name):
        raise ValueError(f"name must be letters, digits, '_' or '-' (it names bench_<name>.json), got {name!r}")
    return name


def save_results(
    name: str, results: dict, *, settings: dict | None = None, out_dir: str | os.PathLike | None = None
) -> Path:
    """Write ``{"machine", "settings", "results"}`` to ``<out_dir>/bench_<name>.json``.

    Args:
        name (str): the benchmark's name: letters, digits, ``_``, ``-``.
        results (dict): what was measured (JSON-serialisable).
        settings (dict | None): the settings it was measured with.
        out_dir: the folder, created if missing; default ``./results`` (of the working directory).
            ``posenc/results`` (:data:`RESULTS_DIR`) replaces the shipped copy the chapters read.

    Returns:
        Path: the file written.
    """
    name = _check_name(name)
    if not isinstance(results, dict):
        raise TypeError(f"results must be a dict, got {type(results).__name__}")
    if settings is not None and not isinstance(settings, dict):
        raise TypeError(f"settings must be a dict or None, got {type(settings).__name__}")
    if out_dir is not None and not isinstance(out_dir, (str, os.PathLike)):
        raise TypeError(f"out_dir must be a path (str or os.PathLike) or None, got {type(out_dir).__name__}")
    folder = Path("results") if out_dir is None else Path(out_dir)
    payload = {"machine": machine(), "settings": settings or {}, "results": results}
    text = json.dumps(payload, indent=1, ensure_ascii=False) + "\n"  # fails before the file is touched
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"bench_{name}.json"
    path.write_text(text, encoding="utf-8")
    return path


def known_results() -> tuple[str, ...]:
    """The names of the shipped measurements, sorted (``posenc/results/bench_<name>.json``)."""
    return tuple(sorted(p.stem[len("bench_") :] for p in RESULTS_DIR.glob("bench_*.json")))


def load_results(name: str) -> dict:
    """The shipped measurements of a benchmark: ``{"machine", "settings", "results"}``.

    Args:
        name (str): one of :func:`known_results` (e.g. ``"rope"``); another name is refused with
            the list of known ones.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, one of {known_results()}, got {type(name).__name__}")
    if name not in known_results():
        raise ValueError(f"name must be one of {known_results()} (posenc/results/bench_<name>.json), got {name!r}")
    return json.loads((RESULTS_DIR / f"bench_{name}.json").read_text(encoding="utf-8"))
