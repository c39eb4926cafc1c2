""":func:`check`: run a learner's implementation over a task's sweep and say what is wrong; :func:`reference`.

``check(task, fn)`` calls ``fn`` on a sweep of inputs (sizes, head dimensions, bases, positions,
dtypes and edge cases such as one position, odd head counts or positions past a table), small inputs
first; a failing property is reported at the first input where it fails in that order. It checks
properties first (shape and dtype, the identities the chapters prove: unit pairs, norm preservation,
relative invariance, the geometric slopes...) and then compares with posenc. A correct function passes
however it computes (complex numbers, a matrix, loops, float64 inside): tolerances follow float32
rounding at the positions tested, so angles computed in float32, as Hugging Face computes them, pass.
When the output matches a known mistake (a wrong implementation kept in the task modules, drawn from
mistakes found in real code), the report names it in words: "your rotation is clockwise (R_{-m})".

``check`` never raises for a wrong or crashing ``fn``: a crash is a failed report saying what raised;
a skeleton that raises ``NotImplementedError`` reports "not implemented yet".
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from .diagnosis import _diagnose
from .framework import Case, _Crash, _Wrong, _clone, _close
from .registry import _check_task, _tasks
from .report import NOT_IMPLEMENTED, Report, Row
from .running import _describe, _expected, _raised_in, _refusal

__all__ = ["check", "reference"]


def reference(task: str) -> Callable:
    """The reference solution of ``task`` (a posenc function or a few lines around one)."""
    return _tasks()[_check_task(task)].reference


def check(task: str, fn: Callable) -> Report:
    """Run ``fn`` over the sweep of ``task`` and report what holds, what fails and why.

    Args:
        task (str): one of ``TASKS``.
        fn: the learner's implementation (a callable), with the task's signature.

    Returns:
        Report: ``.passed``, ``.diagnoses`` (empty when passed), one row per property; shows as a
        table in Jupyter.

    Raises:
        ValueError: ``task`` is not one of ``TASKS`` (the message lists them).
        TypeError: ``fn`` is not callable.

    Nothing else raises: a wrong or crashing ``fn`` gives a failed report.
    """
    _check_task(task)
    if not callable(fn):
        raise TypeError(f"fn must be a callable (your function), got {type(fn).__name__}")
    t = _tasks()[task]
    cases = t.cases()
    expected, mistaken = _expected(t)
    report = Report(task, n_cases=len(cases))
    runs = Row("runs on every input, returns the right type and shape")
    props = [Row(name) for name, _ in t.properties]
    match = Row("matches posenc")
    outs: list[Any] = []
    evaluated = {runs.name}

    def run(*args, **kwargs):
        out = fn(*_clone(args), **_clone(kwargs))
        if isinstance(out, tuple):
            return tuple(o.detach() if isinstance(o, torch.Tensor) else o for o in out)
        return out.detach() if isinstance(out, torch.Tensor) else out

    def fail(row: Row, case: Case, detail: str) -> None:
        if row.ok is not False:
            row.ok, row.where, row.detail = False, case.label, detail

    with torch.no_grad():
        for case, exp in zip(cases, expected):
            try:
                raw = run(*case.args, **case.kwargs)
            except NotImplementedError as e:
                return Report(task, implemented=False, diagnoses=[NOT_IMPLEMENTED], n_cases=len(cases),
                              raised_in=_raised_in(e, fn))
            except Exception as e:  # noqa: BLE001 — the learner's code may raise anything
                outs.append(_Crash(_describe(e)))
                if case.expect_error:
                    if not isinstance(e, (ValueError, IndexError)):
                        fail(runs, case, _refusal(e))
                    continue
                fail(runs, case, f"raised {_describe(e)}")
                continue
            if case.expect_error:
                try:
                    outs.append(t.structure(case, raw))
                except Exception:  # noqa: BLE001
                    outs.append(None)
                fail(runs, case, "returned a result where it must raise (ValueError or IndexError)")
                continue
            try:
                out = t.structure(case, raw)
            except _Wrong as e:
                outs.append(None)
                fail(runs, case, str(e))
                continue
            except Exception as e:  # noqa: BLE001
                outs.append(None)
                fail(runs, case, f"unusable result ({_describe(e)})")
                continue
            outs.append(out)
            evaluated.add("match")
            for row, (_, prop) in zip(props, t.properties):
                evaluated.add(row.name)
                if row.ok is False:
                    continue
                try:
                    msg = prop(case, out, run)
                except Exception as e:  # noqa: BLE001
                    msg = f"checking it raised {_describe(e)}"
                if msg:
                    fail(row, case, msg)
            cmp = t.compare or (lambda c, o, e: _close(o, e, c.tol))
            try:
                msg = cmp(case, out, exp)
            except Exception as e:  # noqa: BLE001
                msg = f"cannot compare ({_describe(e)})"
            if msg:
                fail(match, case, msg)
    for row in [runs, *props, match]:
        if row.ok is None and (row.name in evaluated or (row is match and "match" in evaluated)):
            row.ok = True
    report.rows = [runs, *props, match]
    if report.passed:
        return report
    report.diagnoses = _diagnose(t, cases, outs, expected, mistaken, report.rows)
    return report
