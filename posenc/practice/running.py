"""Running a function on a task's inputs: the call (on copies of the inputs), what a raised exception
says, and the outputs of the reference and of every known mistake, computed once per task.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import torch

from .framework import Case, Task, _clone, _close, _Crash, _Timeout

#: Seconds of CPU time one call of the learner's function may take before ``check`` stops and reports it.
TIME_LIMIT = 10.0
#: A call that computes little (it waits) is stopped after this many times the limit of wall-clock time.
WALL_FACTOR = 6.0


#: Calls stopped for their time that may still be running: their CPU time would count against the next call.
_STILL_RUNNING: list[threading.Thread] = []


def _call_limited(fn: Callable, args: tuple, kwargs: dict, limit: float) -> Any:
    """``fn(*args, **kwargs)`` in a daemon thread joined with a timeout (portable: no ``signal.alarm``, which
    is Unix-only); raises :class:`_Timeout` when it runs past ``limit`` seconds (the thread is left to finish
    on its own), and re-raises what ``fn`` raised."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            with torch.no_grad():  # grad mode is per thread
                box["out"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 — handed to the caller below
            box["err"] = e

    thread = threading.Thread(target=target, name="posenc-practice-call", daemon=True)
    # The limit counts this process's CPU time, so a busy machine (other programs, a test run beside
    # this one) does not make a correct function "too slow"; a call that waits without computing
    # (sleep, I/O) is stopped after WALL_FACTOR times the limit of wall-clock time.
    # While an earlier call stopped for its time still runs, the process's CPU time is not this call's:
    # then only the wall-clock limit applies.
    _STILL_RUNNING[:] = [t for t in _STILL_RUNNING if t.is_alive()]
    count_cpu = not _STILL_RUNNING
    cpu0, wall0 = time.process_time(), time.monotonic()
    thread.start()
    while thread.is_alive():
        thread.join(min(0.25, limit))
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        if thread.is_alive() and ((count_cpu and cpu > limit) or wall > WALL_FACTOR * limit):
            _STILL_RUNNING.append(thread)
            if count_cpu and cpu > limit:
                raise _Timeout(f"took more than {limit:g} s of CPU time")
            raise _Timeout(
                f"did not finish within {WALL_FACTOR * limit:g} s of wall-clock time (it waits, or the machine is busy)"
            )
    if "err" in box:
        raise box["err"]
    return box["out"]


def _describe(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {msg}"[:200] if msg else type(exc).__name__


def _raised_in(exc: BaseException, fn: Callable) -> str:
    """The name of the function whose body raised ``exc``, when it is not ``fn`` itself (a helper the learner
    has not written yet); "" otherwise."""
    tb, name = exc.__traceback__, ""
    while tb is not None:
        name = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    own = getattr(fn, "__name__", "")
    if not name or name == own or name.startswith("<"):
        return ""
    return f"{name}()"


def _refusal(exc: BaseException) -> str:
    if isinstance(exc, AssertionError):
        return (
            "refused with assert (AssertionError), as nanoGPT does: asserts vanish under python -O, and the "
            "task asks for ValueError or IndexError"
        )
    return f"raised {type(exc).__name__} ({str(exc).strip()[:120]}) where it must refuse with ValueError or IndexError"


def _call(fn: Callable, case: Case) -> Any:
    return fn(*_clone(case.args), **_clone(case.kwargs))


def _equal_output(task: Task, case: Case, a: Any, b: Any) -> bool:
    if isinstance(a, _Crash) or isinstance(b, _Crash):
        return isinstance(a, _Crash) and isinstance(b, _Crash)
    cmp = task.compare or (lambda c, o, e: _close(o, e, c.tol))
    try:
        return cmp(case, a, b) is None
    except Exception:  # noqa: BLE001
        return False


def _expected(task: Task) -> tuple[list, list]:
    if task._expected is None:
        cases = task.cases()
        exp = []
        for c in cases:
            try:
                exp.append(task.structure(c, _call(task.reference, c)))
            except (ValueError, IndexError) as e:
                exp.append(_Crash(_describe(e)))
        task._expected = exp
        task._mistaken = [(text, [_output(task, wrong, c) for c in cases]) for text, wrong in task.mistakes]
    return task._expected, task._mistaken or []


def _output(task: Task, wrong: Callable, case: Case) -> Any:
    """A known mistake's output on one input, in the task's normal form, or the :class:`_Crash` it raised."""
    try:
        return task.structure(case, _call(wrong, case))
    except Exception as e:  # noqa: BLE001
        return _Crash(_describe(e))
