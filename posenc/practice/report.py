"""What :func:`~posenc.practice.check.check` returns: a :class:`Report`, one :class:`Row` per property.

The report has ``.passed``, ``.diagnoses`` (empty when passed), reads as text with ``str(report)`` and
shows as a table in Jupyter and in the book: each property ✓/✗, the smallest failing input, the
diagnosis and, where the output is two-dimensional ([L, L] or [L, d]), a picture of the difference at
the smallest failing input: expected and got side by side and a heatmap of got − expected, drawn as an
HTML table of coloured cells (no image file, no script: it shows alike in JupyterLab, Colab, GitHub and
the book). A skeleton that raises ``NotImplementedError`` reports "not implemented yet".
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any

import torch

from .._core.validate import check_int
from .registry import TASKS, _check_task

__all__ = ["Report", "Row"]


NOT_IMPLEMENTED = "not implemented yet"

#: The largest picture drawn, in rows and columns (the rest is cut, and the caption says so).
PICTURE_ROWS, PICTURE_COLS = 24, 64


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
            raise TypeError(
                f"ok must be True, False or None (not evaluated), got {type(self.ok).__name__} ({self.ok!r})"
            )
        _check_text("where", self.where)
        _check_text("detail", self.detail)


@dataclass
class Report:
    """What :func:`~posenc.practice.check.check` found: ``passed``, ``diagnoses`` (empty when passed), one row per
    property and, for a two-dimensional output, ``picture`` (the smallest failing input's expected and got)."""

    task: str
    rows: list[Row] = field(default_factory=list)
    diagnoses: list[str] = field(default_factory=list)
    implemented: bool = True
    n_cases: int = 0
    raised_in: str = ""  # the function that raised NotImplementedError, when not the learner's own
    picture: dict | None = None  # the smallest failing two-dimensional output: where, part, expected, got, same

    def __post_init__(self) -> None:
        if not isinstance(self.task, str):
            raise TypeError(f"task must be a str, one of {', '.join(TASKS)}; got {type(self.task).__name__}")
        _check_task(self.task)
        if not isinstance(self.rows, list) or not all(isinstance(r, Row) for r in self.rows):
            raise TypeError(f"rows must be a list of Row, got {type(self.rows).__name__} ({self.rows!r})")
        if not isinstance(self.diagnoses, list) or not all(isinstance(d, str) for d in self.diagnoses):
            raise TypeError(
                f"diagnoses must be a list of str, got {type(self.diagnoses).__name__} ({self.diagnoses!r})"
            )
        if not isinstance(self.implemented, bool):
            raise TypeError(
                f"implemented must be True or False, got {type(self.implemented).__name__} ({self.implemented!r})"
            )
        self.n_cases = check_int("n_cases", self.n_cases, min_value=0)
        _check_text("raised_in", self.raised_in)
        if self.picture is not None and not isinstance(self.picture, dict):
            raise TypeError(f"picture must be a dict or None, got {type(self.picture).__name__}")

    @property
    def passed(self) -> bool:
        return self.implemented and not self.diagnoses and all(r.ok for r in self.rows)

    def __bool__(self) -> bool:
        return self.passed

    def _verdict(self) -> str:
        if not self.implemented:
            if self.raised_in:
                return (
                    f"{self.task}: {NOT_IMPLEMENTED} ({self.raised_in}, which your function calls, raises "
                    "NotImplementedError: write it first)"
                )
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
        if self.picture is not None:
            pic = self.picture
            n_wrong = int((~pic["same"]).sum())
            lines.append(
                f"  picture (in Jupyter): {pic['part']} at {pic['where']}, expected vs got and got − expected; "
                f"{n_wrong} of {pic['same'].numel()} entries differ"
            )
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
            for r in self.rows
        )
        table = (
            f"<table><thead><tr><th{left}>property</th><th></th><th{left}>smallest failing input</th>"
            f"<th{left}>what differs</th></tr></thead><tbody>{body}</tbody></table>"
        )
        diag = "".join(f"<p><b>diagnosis:</b> {e(d)}</p>" for d in self.diagnoses)
        pic = _picture_html(self.picture) if self.picture is not None else ""
        return f'<div class="posenc-practice">{head}{table}{diag}{pic}</div>'


def _rgb(x: float) -> str:
    """A diverging colour for x in [-1, 1]: blue (negative), white (0), red (positive); 8-bit steps."""
    x = max(-1.0, min(1.0, x))
    w = round(255 * (1 - abs(x)))
    return f"#{255:02x}{w:02x}{w:02x}" if x > 0 else f"#{w:02x}{w:02x}{255:02x}"


def _grid(values: torch.Tensor, scale: float, mark: torch.Tensor | None = None) -> str:
    """One [rows, cols] table of coloured cells; ±inf dark grey or black, NaN yellow; hover shows the value."""
    rows = []
    for r in range(values.shape[0]):
        cells = []
        for c in range(values.shape[1]):
            v = float(values[r, c])
            if math.isnan(v):
                color, text = "#f5d000", "NaN"
            elif math.isinf(v):
                color, text = ("#333333" if v < 0 else "#000000"), ("−∞" if v < 0 else "+∞")
            else:
                color, text = _rgb(v / scale if scale > 0 else 0.0), f"{v:.3g}"
            border = "1px solid #000" if mark is not None and bool(mark[r, c]) else "1px solid #fff"
            cells.append(
                f'<td title="[{r}, {c}] {text}" style="background:{color};width:9px;height:9px;padding:0;'
                f'border:{border}"></td>'
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<table style="border-collapse:collapse;display:inline-table;margin:0 12px 0 0;vertical-align:top">'
        + "".join(rows)
        + "</table>"
    )


def _finite_max(*ts: torch.Tensor) -> float:
    vals = [t[torch.isfinite(t)].abs().max() for t in ts if bool(torch.isfinite(t).any())]
    return float(max(vals)) if vals else 0.0


def _picture_html(pic: dict) -> str:
    """Expected and got side by side (one colour scale) and got − expected (its own scale; entries within
    the tolerance drawn as 0), for the report's smallest failing two-dimensional output."""
    e = html.escape
    exp, got, same = pic["expected"], pic["got"], pic["same"]
    rows, cols = exp.shape
    cut_r, cut_c = min(rows, PICTURE_ROWS), min(cols, PICTURE_COLS)
    exp, got, same = exp[:cut_r, :cut_c], got[:cut_r, :cut_c], same[:cut_r, :cut_c]
    both_inf = torch.isinf(exp) & torch.isinf(got) & (exp.sign() == got.sign())
    diff = torch.where(same | both_inf, torch.zeros_like(exp), got - exp)
    diff = torch.where(torch.isnan(got) | torch.isnan(exp), torch.full_like(exp, math.nan), diff)
    scale, dscale = _finite_max(exp, got), _finite_max(diff)
    n_wrong = int((~same).sum())
    cut = f" (first {cut_r} of {rows} rows, {cut_c} of {cols} columns)" if (cut_r, cut_c) != (rows, cols) else ""
    caption = (
        f"<p><b>the difference</b> at {e(pic['where'])}, {e(pic['part'])} [{rows}, {cols}]{e(cut)}: "
        f"{n_wrong} of {rows * cols} entries differ (outlined). Rows down, columns across; red positive, "
        f"blue negative; expected and got share a scale (±{scale:.3g}), got − expected has its own "
        f"(±{dscale:.3g}); hover over a cell for its value.</p>"
    )
    label = '<div style="font-size:90%;margin:2px 0">{}</div>'

    def panel(title: str, grid: str) -> str:
        return f'<div style="display:inline-block;vertical-align:top">{label.format(e(title))}{grid}</div>'

    body = (
        panel("expected (posenc)", _grid(exp, scale))
        + panel("got (yours)", _grid(got, scale, ~same))
        + panel("got − expected", _grid(diff, dscale, ~same))
    )
    return f'<div class="posenc-practice-picture">{caption}<div>{body}</div></div>'
