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

Each result is kept as returned: a function that writes into a result it returned earlier (a buffer kept
between calls), or that returns on a later input exactly what it returned on an earlier one with other values of
some arguments (a cache that ignores one), is told so with both calls. So is a function whose fresh copy (its
default arguments, closure and the globals its code names copied as they were before the first call) gets right,
called first, the first input where it was wrong: it kept state between calls (a cache keyed on head_dim alone).

``check`` never raises for a wrong or crashing ``fn``: a crash is a failed report saying what raised;
a skeleton that raises ``NotImplementedError`` reports "not implemented yet".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from .diagnosis import UNKNOWN, _diagnose, _picture
from .framework import Case, _clone, _close, _Crash, _modified, _show_args, _Timeout, _Wrong
from .registry import _check_task, _tasks
from .report import NOT_IMPLEMENTED, Report, Row
from .running import TIME_LIMIT, _call_limited, _describe, _expected, _raised_in, _refusal
from .state import _cached, _fresh, _fresh_copy, _Kept, _unsteady

__all__ = ["check", "reference"]


def reference(task: str) -> Callable:
    """The reference solution of ``task`` (a posenc function or a few lines around one)."""
    return _tasks()[_check_task(task)].reference


def check(task: str, fn: Callable, *, time_limit: float = TIME_LIMIT) -> Report:
    """Run ``fn`` over the sweep of ``task`` and report what holds, what fails and why.

    Args:
        task (str): one of ``TASKS``.
        fn: the learner's implementation (a callable), with the task's signature.
        time_limit (float): seconds of CPU time one call may take (a call that waits without computing:
            ``WALL_FACTOR`` (6) times that of wall-clock time); a slower call stops the check with "took more
            than ... s of CPU time" or "did not finish within ... s of wall-clock time". CPU time, so that a
            busy machine does not fail a correct function.

    Returns:
        Report: ``.passed``, ``.diagnoses`` (empty when passed), one row per property; shows as a
        table in Jupyter, with a picture of the difference for two-dimensional outputs.

    Raises:
        ValueError: ``task`` is not one of ``TASKS`` (the message lists them), or ``time_limit`` is not positive.
        TypeError: ``fn`` is not callable.

    Nothing else raises: a wrong, crashing or slow ``fn`` gives a failed report.
    """
    _check_task(task)
    if not callable(fn):
        raise TypeError(f"fn must be a callable (your function), got {type(fn).__name__}")
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0:
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    t = _tasks()[task]
    cases = t.cases()
    expected, mistaken = _expected(t)
    report = Report(task, n_cases=len(cases))
    runs = Row("runs on every input, returns the right type and shape")
    inputs = Row("leaves its inputs unchanged")
    props = [Row(name) for name, _ in t.properties]
    match = Row("matches posenc")
    outs: list[Any] = []
    evaluated = {runs.name}
    modified: list[tuple[int, list[str]]] = []
    start = _fresh_copy(fn)  # its state before the first call, if it keeps one (a cache dict, a global list)
    kept = _Kept(t.signature)  # the results as returned, to see whether a later call writes into one
    returned: dict[int, Any] = {}  # input -> the result as returned (a copy), whatever its type or shape
    shapeless: dict[
        int, str
    ] = {}  # input -> what was wrong with the output's type or shape, as a mistake's _Crash says it

    def detach(out):  # a copy: a later call must not change an output that is a cached tensor
        if isinstance(out, tuple):
            return tuple(o.detach().clone() if isinstance(o, torch.Tensor) else o for o in out)
        return out.detach().clone() if isinstance(out, torch.Tensor) else out

    def run(*args, **kwargs):
        return detach(_call_limited(fn, _clone(args), _clone(kwargs), float(time_limit)))

    def fail(row: Row, case: Case, detail: str) -> None:
        if row.ok is not False:
            row.ok, row.where, row.detail = False, case.label, detail

    has_tensor_inputs = any(isinstance(a, torch.Tensor) for c in cases for a in (*c.args, *c.kwargs.values()))
    with torch.no_grad():
        for index, (case, exp) in enumerate(zip(cases, expected)):
            args, kwargs = _clone(case.args), _clone(case.kwargs)
            try:
                got = _call_limited(fn, args, kwargs, float(time_limit))
                raw = detach(got)
            except NotImplementedError as e:
                if outs:  # it answered earlier inputs: a refusal of this one is a crash, not a blank task
                    outs.append(_Crash(_describe(e)))
                    fail(runs, case, f"raised {_describe(e)}")
                    fail(match, case, f"no result to compare: it raised {_describe(e)}")
                    continue
                return Report(
                    task,
                    implemented=False,
                    diagnoses=[NOT_IMPLEMENTED],
                    n_cases=len(cases),
                    raised_in=_raised_in(e, fn),
                )
            except _Timeout as e:
                fail(runs, case, str(e))
                report.rows = [runs, *([inputs] if has_tensor_inputs else []), *props, match]
                report.diagnoses = [
                    f"your function {e} on input {case.label}, "
                    f"{_show_args(t.signature, case)}: look for a Python loop over every entry, or pass a "
                    "larger time_limit to check"
                ]
                return report
            except Exception as e:  # noqa: BLE001 — the learner's code may raise anything
                outs.append(_Crash(_describe(e)))
                if case.expect_error:
                    if not isinstance(e, (ValueError, IndexError)):
                        fail(runs, case, _refusal(e))
                    continue
                fail(runs, case, f"raised {_describe(e)}")
                fail(match, case, f"no result to compare: it raised {_describe(e)}")
                continue
            kept.look(f"it was called again as {_show_args(t.signature, case)}", got)
            kept.add(index, got)
            returned[index] = raw
            changed = _modified(t.signature, case, args, kwargs)
            if changed:
                modified.append((index, changed))
                fail(inputs, case, f"changed {', '.join(changed)} in place")
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
                shapeless[index] = _describe(e)
                fail(runs, case, str(e))
                fail(match, case, f"no result to compare: {e}")
                continue
            except Exception as e:  # noqa: BLE001
                outs.append(None)
                fail(runs, case, f"unusable result ({_describe(e)})")
                fail(match, case, f"no result to compare: {_describe(e)}")
                continue
            outs.append(out)
            evaluated.add("match")
            for row, (_, prop) in zip(props, t.properties):
                evaluated.add(row.name)
                if row.ok is False:
                    continue
                try:
                    msg = prop(case, out, run)
                except _Timeout as e:
                    msg = f"checking it {e}"
                except Exception as e:  # noqa: BLE001
                    msg = f"checking it raised {_describe(e)}"
                if msg:
                    fail(row, case, msg)
                kept.look(f"the check called it again to test “{row.name}” at {case.label}")
            cmp = t.compare or (lambda c, o, e: _close(o, e, c.tol))
            try:
                msg = cmp(case, out, exp)
            except Exception as e:  # noqa: BLE001
                msg = f"cannot compare ({_describe(e)})"
            if msg:
                fail(match, case, msg)
    if kept.event is not None:
        fail(match, cases[kept.event[0]], "right when returned, but a later call changed it")
    if "match" not in evaluated and match.ok is False:
        match.ok, match.where, match.detail = None, "", ""  # nothing ever ran to the end: not checked
    if has_tensor_inputs:
        evaluated.add(inputs.name)
    rows = [runs, *([inputs] if has_tensor_inputs else []), *props, match]
    for row in rows:
        if row.ok is None and (row.name in evaluated or (row is match and "match" in evaluated)):
            row.ok = True
    report.rows = rows
    if report.passed:
        return report
    report.diagnoses = _diagnose(t, cases, outs, expected, mistaken, rows, modified, shapeless)
    with torch.no_grad():
        state = _unsteady(t, cases, outs, expected, lambda c: t.structure(c, run(*c.args, **c.kwargs)))
    state = state or kept.message(cases) or _cached(t, cases, returned, outs, expected)
    stale = report.diagnoses[0].startswith("your function uses what it cached from an earlier call")
    if not state and not stale:  # a fresh copy of fn, called first on the first wrong input (state._fresh)
        with torch.no_grad():
            state = _fresh(
                t,
                cases,
                outs,
                expected,
                start,
                lambda f, c: detach(_call_limited(f, _clone(c.args), _clone(c.kwargs), float(time_limit))),
            )
    if state:  # what its outputs match says nothing then: only a crash or a changed input is said besides
        said = ("your function raised ", "your function changes its input")
        report.diagnoses = [state] + [d for d in report.diagnoses if d.startswith(said)]
    report.picture = _picture(t, cases, outs, expected)
    if report.picture is not None and report.diagnoses[0].startswith(UNKNOWN):
        at = report.picture["where"]
        there = "there" if report.diagnoses[0].endswith(f"smallest failing input: {at}") else f"at {at}"
        report.diagnoses[0] += f" (the picture below shows got − expected {there})"
    return report
