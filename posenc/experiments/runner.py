"""One job runner for the experiments: jobs in this process or spread over a pool of worker processes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch

from .._core.validate import check_int

__all__ = ["run_jobs", "threads_per_worker"]


def threads_per_worker(workers: int) -> int:
    """Torch threads each of ``workers`` parallel processes gets: the machine's cores shared out, at least one."""
    return max(1, (os.cpu_count() or 1) // check_int("workers", workers, min_value=1))


def run_jobs(
    run: Callable[[Any], dict], jobs: Iterable, *, workers: int = 1, progress: bool = False
) -> Iterator[tuple[Any, dict]]:
    """Run ``run(job)`` for every job, in order, and yield ``(job, result)`` as each finishes.

    With ``workers == 1`` the jobs run in this process (with its torch thread setting); otherwise in
    ``workers`` spawned processes with :func:`threads_per_worker` torch threads each (``run`` must
    then be a module-level function, and the jobs picklable).

    Args:
        run: the job function.
        jobs: the jobs; a job's name for ``progress`` is its first two entries (method, seed).
        workers (int): processes (>= 1).
        progress (bool): print each job's name as it finishes.
    """
    if not callable(run):
        raise TypeError(f"run must be callable, got {type(run).__name__}")
    workers = check_int("workers", workers, min_value=1)
    if isinstance(jobs, (str, bytes)) or not isinstance(jobs, Iterable):
        raise TypeError(f"jobs must be an iterable of jobs, got {type(jobs).__name__}")
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be a bool, got {type(progress).__name__}")
    return _run_jobs(run, list(jobs), workers, progress)  # checked now, not when first iterated


def _run_jobs(run: Callable[[Any], dict], jobs: list, workers: int, progress: bool) -> Iterator[tuple[Any, dict]]:
    if workers == 1:
        results: Iterable[dict] = map(run, jobs)
        yield from _report(jobs, results, progress)
        return
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(
        workers, initializer=torch.set_num_threads, initargs=(threads_per_worker(workers),)
    ) as pool:
        yield from _report(jobs, pool.imap(run, jobs), progress)


def _report(jobs: list, results: Iterable[dict], progress: bool) -> Iterator[tuple[Any, dict]]:
    for job, result in zip(jobs, results):
        if progress:
            print("done:", *job[:2], flush=True)
        yield job, result
