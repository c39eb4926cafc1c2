"""The machine a measurement ran on, saved beside every measured number and printed with it.

Portable: where Linux's ``/proc/cpuinfo`` or the load average cannot be read (macOS, Windows, a
sandbox), a fallback is used; nothing here fails for want of a Unix-only feature.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys

import torch

__all__ = ["machine", "describe_machine", "load_average"]

_KEYS = ("cpu", "cores", "cpu_capability", "threads", "torch", "date")


def machine() -> dict:
    """The machine and software a measurement ran on: CPU model, cores, torch, CPU kernels, threads.

    The CPU model is Linux's ``model name`` where that can be read, otherwise what the ``platform``
    module reports (e.g. ``arm`` or ``Intel64 Family 6 ...``), otherwise ``"unknown CPU"``: it never
    fails for want of ``/proc``.

    Returns:
        dict: ``cpu``, ``cores``, ``cpu_capability``, ``threads``, ``torch``, ``python``, ``date``.
    """
    cpu = platform.processor() or platform.machine() or "unknown CPU"
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo", encoding="utf-8") as f:
                cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
        except (OSError, StopIteration, IndexError, UnicodeDecodeError):
            pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
    }


def describe_machine(info: dict) -> str:
    """One line naming the machine of :func:`machine` (or a saved ``results["machine"]``), for
    printing beside measured numbers."""
    if not isinstance(info, dict):
        raise TypeError(f"info must be a dict from machine(), got {type(info).__name__}")
    missing = [k for k in _KEYS if k not in info]
    if missing:
        raise ValueError(f"info must have the keys of machine() {_KEYS}, missing {missing}")
    threads = f"{info['threads']} thread" + ("s" if info["threads"] != 1 else "")
    return (
        f"{info['cpu']}, {info['cores']} cores, {info['cpu_capability']} kernels, {threads}, "
        f"torch {info['torch']}, measured {info['date']}"
    )


def load_average() -> list[float] | None:
    """The system's load average over 1, 5 and 15 minutes, or None where the OS does not report it
    (Windows). Saved with timings: a loaded machine makes them noisy."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None
