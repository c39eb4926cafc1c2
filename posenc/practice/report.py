"""What :func:`~posenc.practice.check.check` returns: a :class:`Report`, one :class:`Row` per property.

The report has ``.passed``, ``.diagnoses`` (empty when passed), reads as text with ``str(report)`` and
shows as a table in Jupyter and in the book: each property ✓/✗, the smallest failing input, the
diagnosis. A skeleton that raises ``NotImplementedError`` reports "not implemented yet".
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from .._core.validate import check_int
from .registry import TASKS, _check_task

__all__ = ["Report", "Row"]


NOT_IMPLEMENTED = "not implemented yet"


def _check_text(name: str, value: Any, *, empty: bool = True) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} ({value!r})")
    if not empty and not value:
        raise ValueError(f"{name} must be a non-empty str, got ''")


@dataclass
class Row:
    """One property of a report: its name, whether it held, the smallest input where it failed and why."""

    name: str
    ok: bool | None = None  # None: not evaluated (the function never ran)
    where: str = ""
    detail: str = ""

    def __post_init__(self) -> None:
        _check_text("name", self.name, empty=False)
        if self.ok is not None and not isinstance(self.ok, bool):
            raise TypeError(f"ok must be True, False or None (not evaluated), got {type(self.ok).__name__} "
                            f"({self.ok!r})")
        _check_text("where", self.where)
        _check_text("detail", self.detail)


@dataclass
class Report:
    """What :func:`~posenc.practice.check.check` found: ``passed``, ``diagnoses`` (empty when passed) and one row per property."""

    task: str
    rows: list[Row] = field(default_factory=list)
    diagnoses: list[str] = field(default_factory=list)
    implemented: bool = True
    n_cases: int = 0
    raised_in: str = ""  # the function that raised NotImplementedError, when not the learner's own

    def __post_init__(self) -> None:
        if not isinstance(self.task, str):
            raise TypeError(f"task must be a str, one of {', '.join(TASKS)}; got {type(self.task).__name__}")
        _check_task(self.task)
        if not isinstance(self.rows, list) or not all(isinstance(r, Row) for r in self.rows):
            raise TypeError(f"rows must be a list of Row, got {type(self.rows).__name__} ({self.rows!r})")
        if not isinstance(self.diagnoses, list) or not all(isinstance(d, str) for d in self.diagnoses):
            raise TypeError(f"diagnoses must be a list of str, got {type(self.diagnoses).__name__} "
                            f"({self.diagnoses!r})")
        if not isinstance(self.implemented, bool):
            raise TypeError(f"implemented must be True or False, got {type(self.implemented).__name__} "
                            f"({self.implemented!r})")
        self.n_cases = check_int("n_cases", self.n_cases, min_value=0)
        _check_text("raised_in", self.raised_in)

    @property
    def passed(self) -> bool:
        return self.implemented and not self.diagnoses and all(r.ok for r in self.rows)

    def __bool__(self) -> bool:
        return self.passed

    def _verdict(self) -> str:
        if not self.implemented:
            if self.raised_in:
                return (f"{self.task}: {NOT_IMPLEMENTED} ({self.raised_in}, which your function calls, raises "
                        "NotImplementedError: write it first)")
            return f"{self.task}: {NOT_IMPLEMENTED} (your function raises NotImplementedError)"
        if self.passed:
            return f"{self.task}: ✓ passed ({self.n_cases} inputs)"
        return f"{self.task}: ✗ failed"

    def __str__(self) -> str:
        lines = [self._verdict()]
        for r in self.rows:
            mark = {True: "✓", False: "✗", None: "·"}[r.ok]
            extra = f" — smallest failing input: {r.where}" if r.ok is False and r.where else ""
            extra += " (not checked: no usable result)" if r.ok is None else ""
            detail = f" ({r.detail})" if r.ok is False and r.detail else ""
            lines.append(f"  {mark} {r.name}{extra}{detail}")
        lines += [f"  diagnosis: {d}" for d in self.diagnoses if self.implemented]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        e = html.escape
        head = f"<p><b>{e(self._verdict())}</b></p>"
        if not self.implemented:
            return f'<div class="posenc-practice">{head}</div>'
        left = ' style="text-align: left"'  # JupyterLab right-aligns table cells by default
        body = "".join(
            f"<tr><td{left}>{e(r.name)}</td><td>{ {True: '✓', False: '✗', None: '·'}[r.ok] }</td>"
            f"<td{left}>{e(r.where) if r.ok is False else ''}</td>"
            f"<td{left}>{e(r.detail) if r.ok is False else ''}</td></tr>"
            for r in self.rows)
        table = (f"<table><thead><tr><th{left}>property</th><th></th><th{left}>smallest failing input</th>"
                 f"<th{left}>what differs</th></tr></thead><tbody>{body}</tbody></table>")
        diag = "".join(f"<p><b>diagnosis:</b> {e(d)}</p>" for d in self.diagnoses)
        return f'<div class="posenc-practice">{head}{table}{diag}</div>'
