"""Running a function on a task's inputs: the call (on copies of the inputs), what a raised exception
says, and the outputs of the reference and of every known mistake, computed once per task.
"""

from __future__ import annotations

from typing import Any, Callable

from .framework import Case, Task, _Crash, _clone, _close


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
        return ("refused with assert (AssertionError), as nanoGPT does: asserts vanish under python -O, and the "
                "task asks for ValueError or IndexError")
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
        mistaken = []
        for text, wrong in task.mistakes:
            outs = []
            for c in cases:
                try:
                    outs.append(task.structure(c, _call(wrong, c)))
                except Exception as e:  # noqa: BLE001
                    outs.append(_Crash(_describe(e)))
            mistaken.append((text, outs))
        task._mistaken = mistaken
    return task._expected, task._mistaken
