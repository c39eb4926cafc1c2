"""Naming what is wrong: the known mistake whose output a failing function matches on every input, else
a detector's diagnosis, else NaN or an infinity where posenc is finite, else what raised or which row
failed.
"""

from __future__ import annotations

import torch

from .framework import Task, _Crash, _f64
from .precision import _CURRENT
from .running import _equal_output


def _diagnose(t: Task, cases, outs, expected, mistaken, rows) -> list[str]:
    """Name the known mistake whose output the learner's matches on every input; else say what failed."""
    usable = [i for i, o in enumerate(outs) if o is not None]
    differing = [i for i in usable if not _equal_output(t, cases[i], outs[i], expected[i])]
    found = []
    if differing:
        for text, m_outs in mistaken:
            if all(_equal_output(t, cases[i], outs[i], m_outs[i]) for i in differing) and \
                    sum(_equal_output(t, cases[i], outs[i], m_outs[i]) for i in usable) >= len(usable) - 0:
                found.append(text)
                break
        if not found:
            _CURRENT[0] = t
            found += [text for text, detect in t.detectors if _safe(detect, cases, outs, usable)][:1]
    if found:
        return found
    nan = _nan_where_finite(t, cases, outs, expected, usable)
    if nan:
        return [nan]
    crashes = [i for i, o in enumerate(outs) if isinstance(o, _Crash) and not cases[i].expect_error]
    if crashes:
        i = crashes[0]
        return [f"your function raised {outs[i]} at {cases[i].label}"]
    if rows[0].ok is False:  # wrong type, shape or dtype, or no refusal: the row says what to change
        return [rows[0].detail]
    return [UNKNOWN]


UNKNOWN = "not one of the mistakes the checker knows; see the failing rows"


def _nonfinite(out) -> list:
    """Flatten an output into (name, float64 tensor) parts."""
    if isinstance(out, (tuple, list)):
        names = ("cos", "sin") if len(out) == 2 and all(isinstance(o, torch.Tensor) for o in out) else \
            ("inv_freq", "attention_scaling")
        return [(n, _f64(o)) for n, o in zip(names, out)]
    return [("the result", _f64(out))]


def _nan_where_finite(t: Task, cases, outs, expected, usable) -> str | None:
    """The first input where the learner's output holds NaN or an infinity and posenc's does not."""
    for i in usable:
        o, e = outs[i], expected[i]
        if isinstance(o, _Crash) or isinstance(e, _Crash):
            continue
        for (name, a), (_, b) in zip(_nonfinite(o), _nonfinite(e)):
            if a.shape != b.shape:
                continue
            bad = ~torch.isfinite(a) & torch.isfinite(b)
            if bool(bad.any()):
                idx = [int(j) for j in torch.nonzero(bad)[0]] if a.dim() else []
                what = "NaN" if bool(torch.isnan(a[bad]).any()) else "an infinity"
                at = f" at index {idx}" if idx else ""
                return (f"your output contains {what}: {name}{at} at {cases[i].label}, where posenc's is finite "
                        "(look for a division by zero, 0/0, or a value past float16's range)")
    return None


def _safe(detect, cases, outs, usable) -> bool:
    try:
        return bool(detect(cases, outs, usable))
    except Exception:  # noqa: BLE001
        return False
