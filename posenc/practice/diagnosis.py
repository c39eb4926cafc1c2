"""Naming what is wrong, and the picture of the difference.

In this order: the known mistake whose output the learner's equals on every input; else two known mistakes
at once (flags of one variant function, each right wherever the learner is right) whose output the learner's
equals on every input; else an argument kept from an earlier call (see :mod:`~posenc.practice.state`); else a
detector's diagnosis (angles or frequencies in low precision, on evidence of
that dtype; slopes linear in the head index; positions or a base read from the output; ...); else a numeric
argument ignored (posenc's answer with it set to its default or another value of the sweep); else the nearest
known mistake, with how near it is (the share of the entries, wrong in either, where the learner's output
equals the mistake's, and the distance to it relative to the distance to posenc: never a mistake farther
than posenc's answer; a claim of "every input where yours is wrong" counts the inputs with a crash or the wrong
shape too); else NaN or an infinity where posenc is finite, or NaN where it is infinite; else a known mistake
whose output the learner's equals wherever that mistake is wrong, while the learner's is wrong elsewhere too (the
part of two mistakes the checker recognises); else what raised, on
which input and with which arguments; else, when every output is within tolerance, the property that failed. A
wrong type or shape no mistake explains, and an input changed in place, are always named. ``check`` puts first what
:mod:`~posenc.practice.state` finds: a function that answers differently when called again, writes into a result
it returned earlier, or returns a result cached from an earlier call. ``_picture`` picks the smallest failing input
with a two-dimensional output, for the report's heatmap of got − expected.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from .framework import Task, _arg_names, _Crash, _f64, _show_args, _Variant
from .precision import _CURRENT
from .running import _call, _equal_output, _output
from .state import _stale

UNKNOWN = "not one of the mistakes the checker knows"

#: Nearest-mistake thresholds (see ``_nearest``): the output must be nearer (root-mean-square) the mistake's
#: than posenc's, by at least ``NEAR_RATIO``; then either at least ``NEAR_ENTRIES`` of the entries where it or the
#: mistake differ from posenc match the mistake, or the output is at most ``NEAR_DISTANCE`` as far from the
#: mistake's as from posenc's and at least ``NEAR_SOME`` of those entries match.
NEAR_RATIO = 0.7
NEAR_ENTRIES = 0.5
NEAR_DISTANCE = 0.35
NEAR_SOME = 0.1
#: A guess only "closer" (ratio above ``NEAR_DISTANCE``) that matches the learner's output exactly on no input
#: (or on too few of the entries) is weak: named only when at least this share of the entries match, else the
#: diagnosis says less rather than point at a line that may not be the wrong one.
NEAR_WEAK_ENTRIES = 0.75


def _diagnose(t: Task, cases, outs, expected, mistaken, rows, modified=(), shapeless=None) -> list[str]:
    """The diagnoses of a failed check, most specific first (see the module docstring). ``shapeless`` maps the
    inputs where the output had the wrong type or shape to what was wrong, as a mistake's ``_Crash`` says it."""
    shapeless = shapeless or {}
    usable = [i for i, o in enumerate(outs) if o is not None]
    differing = [i for i in usable if not _equal_output(t, cases[i], outs[i], expected[i])]
    crashed = [i for i in differing if isinstance(outs[i], _Crash) and not isinstance(expected[i], _Crash)]
    valued = [i for i in differing if not isinstance(outs[i], _Crash) and not isinstance(expected[i], _Crash)]
    # every other input where the output is wrong: a crash, a result where posenc refuses, a wrong type or shape
    others = [i for i in differing if i not in valued] + [i for i in shapeless if outs[i] is None]
    found: list[str] = []
    exact = False
    if differing:
        # a mistake that also has the learner's wrong shapes first, then one equal wherever the shapes are right
        for whole in (True, False):
            for text, m_outs in mistaken:
                if all(_equal_output(t, cases[i], outs[i], m_outs[i]) for i in usable) and (
                    not whole or all(_same_wrong(i, m_outs[i], outs, shapeless) for i in shapeless)
                ):
                    found.append(text)
                    exact = True
                    break
            if found:
                break
        if not found and not _nan_where_finite(t, cases, outs, expected, usable):  # NaN = NaN is no evidence
            both = _combination(t, cases, outs, expected, mistaken, usable, valued)
            if both:
                found.append(both)
                exact = True
        if not found and valued:
            kept = _stale(t, cases, outs, expected)
            if kept:
                found.append(kept)
        if not found and valued:
            _CURRENT[0] = t
            for text, detect in t.detectors:
                said = _safe(detect, cases, outs, valued)
                if said:  # a detector may say more than its text: the quantities it measured
                    found.append(said if isinstance(said, str) else text)
                    break
        if not found and valued and len(valued) == len(differing):
            ignored = _ignored(t, cases, outs, valued)
            if ignored:
                found.append(ignored)
        if not found and valued:
            near = _nearest(t, cases, outs, expected, mistaken, valued, others, shapeless)
            if near:
                found.append(near)
    if not found:
        nan = _nan_where_finite(t, cases, outs, expected, usable) or _nan_where_infinite(cases, outs, expected, usable)
        if nan:
            found.append(nan)
    if not found and valued:
        part = _contained(t, cases, outs, expected, mistaken, usable, differing)
        if part:
            found.append(part)
    if crashed and not exact:  # an exact mistake explains its crashes
        i = crashed[0]
        found.append(f"your function raised {outs[i]} when called as {_show_args(t.signature, cases[i])}")
    if modified:
        i, names = modified[0]
        what = " and ".join(names)
        found.append(
            f"your function changes its input {what} in place (first on {cases[i].label}): the caller's "
            f"tensor changes too. Build a new tensor (x = x * cos + ..., torch.cat, or x.clone() first) instead "
            "of writing into an argument (x *= ..., x[...] = ..., x.mul_(...))"
        )
    at = next((i for i, c in enumerate(cases) if c.label == rows[0].where), None)
    unexplained = not found or (at is not None and outs[at] is None)  # a wrong type or shape no mistake explains
    if rows[0].ok is False and not crashed and unexplained and rows[0].detail not in found:
        found.append(rows[0].detail)  # wrong type, shape or dtype, or no refusal: the row says what to change
    if not differing and not found:  # every output within tolerance of posenc's, but a property fails: say it
        failing = [r for r in rows[1:-1] if r.ok is False and r.detail]
        if failing:
            found.append(f"{failing[0].detail} (first at {failing[0].where})")
    if found:
        return found
    where = _smallest_failing(cases, differing, rows)
    if where:
        return [f"{UNKNOWN}; smallest failing input: {where}"]
    return [UNKNOWN]


def _same_wrong(i: int, m_out: Any, outs, shapeless) -> bool:
    """Whether the learner's output on input ``i`` had the wrong type or shape and the mistake's fails there the
    same way (the same message)."""
    if outs[i] is not None:
        return False
    return isinstance(m_out, _Crash) and str(m_out) == shapeless.get(i)


def _combination(t: Task, cases, outs, expected, mistaken, usable, valued) -> str | None:
    """Two known mistakes at once (:class:`~posenc.practice.framework._Variant` flags of one variant function)
    whose output equals the learner's on every input, the one nearer the learner's output named first.

    Only mistakes that are each right wherever the learner's output is right take part: two mistakes that undo
    each other on some input (a sign flipped twice) would name a mistake the learner did not make there.
    A pair's output is computed input by input, and only as long as it still equals the learner's, so a
    pair that differs on the first input costs one call."""
    right = [i for i in usable if _equal_output(t, cases[i], outs[i], expected[i])]
    singles = [
        (k, text, fn)
        for k, (text, fn) in enumerate(t.mistakes)
        if isinstance(fn, _Variant) and all(_equal_output(t, cases[i], mistaken[k][1][i], expected[i]) for i in right)
    ]
    for a, (ka, text_a, fa) in enumerate(singles):
        for kb, text_b, fb in singles[a + 1 :]:
            if text_a == text_b:
                continue
            both = fa.combine(fb)
            if both is None:
                continue
            if all(_equal_output(t, cases[i], outs[i], _pair_output(t, ka, kb, both, cases, i)) for i in usable):
                near_a = _nearness(t, cases, outs, expected, mistaken[ka][1], valued)[2]
                near_b = _nearness(t, cases, outs, expected, mistaken[kb][1], valued)[2]
                first, second = (text_a, text_b) if near_a <= near_b else (text_b, text_a)
                return f"two mistakes together: {first}; and {second}"
    return None


def _defaults(signature: str) -> dict[str, Any]:
    """The numeric defaults of a task's signature text: ``"fn(x, base=10000.0)"`` -> ``{"base": 10000.0}``."""
    inside = signature[signature.index("(") + 1 : signature.index(")")]
    out: dict[str, Any] = {}
    for p in inside.split(","):
        if "=" in p:
            name, value = (x.strip() for x in p.split("=", 1))
            try:
                out[name] = int(value) if value.lstrip("-").isdigit() else float(value)
            except ValueError:
                continue
    return out


def _ignored(t: Task, cases, outs, valued) -> str | None:
    """A numeric argument ignored (a value hard-coded in its place): on every input where the output is wrong it
    is posenc's answer with that argument (or two of them, or every numeric argument at once) set to one
    constant, its default or a value the sweep passes elsewhere, and at least one such input passes another
    value."""
    names = _arg_names(t.signature)
    defaults = _defaults(t.signature)

    def value(case, name):
        k = names.index(name)
        if k < len(case.args):
            return case.args[k]
        return case.kwargs.get(name, defaults.get(name))

    def numeric(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    nums = [n for n in names if all(numeric(value(c, n)) for c in cases if not c.expect_error)]
    if not nums:
        return None
    pairs = [(a, b) for k, a in enumerate(nums) for b in nums[k + 1 :]] if len(nums) > 2 else []
    groups = [(n,) for n in nums] + pairs + ([tuple(nums)] if len(nums) > 1 else [])
    for group in groups:
        candidates = []
        for n in group:
            seen = [defaults[n]] if n in defaults else []
            seen += [value(c, n) for c in cases if not c.expect_error]
            candidates.append(list(dict.fromkeys(seen)))
        combos = [tuple(c[0] for c in candidates)] if len(group) > 1 else [(v,) for v in candidates[0]]
        for fixed in combos:
            if all(value(cases[i], n) == v for i in valued for n, v in zip(group, fixed)):
                continue  # the constant is what every wrong input passes: it explains nothing
            ok = True
            for i in valued:
                c = cases[i]
                args, kwargs = list(c.args), dict(c.kwargs)
                for n, v in zip(group, fixed):
                    k = names.index(n)
                    if k < len(args):
                        args[k] = v
                    else:
                        kwargs[n] = v
                moved = type(c)(c.label, tuple(args), kwargs, c.tol)
                try:
                    answer = t.structure(moved, _call(t.reference, moved))
                except Exception:  # noqa: BLE001
                    ok = False
                    break
                if not _equal_output(t, c, outs[i], answer):
                    ok = False
                    break
            if ok:
                said = ", ".join(f"{n} = {v!r}" for n, v in zip(group, fixed))
                which = " and ".join(group)
                return (
                    f"{which} ignored: on every input where yours is wrong it equals the right answer for {said}, "
                    f"whatever {which} the call passes (first on {cases[valued[0]].label}). Use the argument"
                    f"{'s' if len(group) > 1 else ''} passed in, not a value written into the code"
                )
    return None


def _pair_output(t: Task, ka: int, kb: int, both: _Variant, cases, i: int) -> Any:
    key = (ka, kb, i)
    if key not in t._combined:
        t._combined[key] = _output(t, both, cases[i])
    return t._combined[key]


def _contained(t: Task, cases, outs, expected, mistaken, usable, differing) -> str | None:
    """Part of a known mistake: the learner's output equals the mistake's on every input where the mistake is
    wrong (at least two, each with a value, not a crash), and is wrong on other inputs too, where the mistake is
    right (a second mistake the checker does not know). The mistake wrong on the most inputs is named."""
    best = None
    for k, (text, m_outs) in enumerate(mistaken):
        if k not in t._mistake_wrong:  # a property of the task's mistake, the same for every learner: kept
            t._mistake_wrong[k] = [
                i for i in range(len(cases)) if not _equal_output(t, cases[i], m_outs[i], expected[i])
            ]
        wrong_m = t._mistake_wrong[k]
        if len(wrong_m) < 2 or not set(wrong_m) < set(differing):
            continue
        if any(isinstance(outs[i], _Crash) or isinstance(m_outs[i], _Crash) for i in wrong_m):
            continue
        if not all(_equal_output(t, cases[i], outs[i], m_outs[i]) for i in wrong_m):
            continue
        if best is None or len(wrong_m) > len(best[1]):
            best = (text, wrong_m)
    if best is None:
        return None
    text, wrong_m = best
    rest = [i for i in differing if i not in wrong_m]
    return (
        f"part of your mistake is a known one: on every input where it is wrong ({len(wrong_m)} of the "
        f"{len(differing)} inputs where yours is wrong, first {cases[wrong_m[0]].label}) your output equals its: "
        f"{text}. Yours is also wrong where that mistake is right, so a second mistake is left (first at "
        f"{cases[rest[0]].label})"
    )


def _smallest_failing(cases, differing, rows) -> str:
    """The smallest input (the first in the sweep's order) where the output differs from posenc's; when it
    equals posenc's everywhere (only a property that calls it again fails), the first input of any failing row.
    Never an input where the function's own output is right while another is not."""
    if differing:
        return cases[differing[0]].label
    order = {c.label: i for i, c in reversed(list(enumerate(cases)))}
    failing = [r.where for r in rows if r.ok is False and r.where]
    return min(failing, key=lambda w: order.get(w, len(cases))) if failing else ""


def _parts(out: Any) -> list[torch.Tensor]:
    """An output as a list of float64 tensors: (cos, sin), (inv_freq, attention_scaling) or one tensor."""
    if isinstance(out, (tuple, list)):
        return [_f64(o) for o in out]
    return [_f64(out)]


def _entries_equal(a: torch.Tensor, b: torch.Tensor, tol: float) -> torch.Tensor:
    """Entry by entry: equal within ``tol`` absolute or 2e-5 relative, or the same infinity, or both NaN."""
    special = (torch.isnan(a) & torch.isnan(b)) | (torch.isinf(a) & torch.isinf(b) & (a.sign() == b.sign()))
    close = (a - b).abs() <= tol + 2e-5 * b.abs()
    return special | (close & torch.isfinite(a) & torch.isfinite(b))


def _nearness(t: Task, cases, outs, expected, m_outs, valued) -> tuple[int, float, float]:
    """(inputs equal to the mistake's, share, distance ratio) of the learner's output against one mistake.

    The share counts the entries where the learner's output differs from posenc's and equals the mistake's,
    out of those where either differs from posenc's (a mistake that is wrong where the learner is right
    counts against it). The ratio is the root-mean-square distance to the mistake's output over the distance
    to posenc's."""
    n_cases = n_union = n_same = 0
    d_mistake = d_posenc = 0.0
    for i in valued:
        m = m_outs[i]
        if isinstance(m, _Crash) or m is None:
            continue
        if _equal_output(t, cases[i], outs[i], m):
            n_cases += 1
        tol = cases[i].tol
        for o, e, w in zip(_parts(outs[i]), _parts(expected[i]), _parts(m)):
            if o.shape != e.shape:
                continue
            wrong = ~_entries_equal(o, e, tol)
            if w.shape != o.shape:
                n_union += int(wrong.sum())
                continue
            n_union += int((wrong | ~_entries_equal(w, e, tol)).sum())
            n_same += int((wrong & _entries_equal(o, w, tol)).sum())
            finite = torch.isfinite(o) & torch.isfinite(e) & torch.isfinite(w)
            d_mistake += float(((o - w)[finite] ** 2).sum())
            d_posenc += float(((o - e)[finite] ** 2).sum())
    ratio = math.sqrt(d_mistake / d_posenc) if d_posenc > 0 else math.inf
    return n_cases, (n_same / n_union if n_union else 0.0), ratio


def _nearest(t: Task, cases, outs, expected, mistaken, valued, others=(), shapeless=None) -> str | None:
    """The known mistake nearest the learner's output on the inputs where it is wrong, said with how near.

    Named only when the output is closer to the mistake's than to posenc's (distance ratio below
    ``NEAR_RATIO``) and either most wrong entries match it (share at least ``NEAR_ENTRIES``) or it is much
    closer (ratio at most ``NEAR_DISTANCE``) with some entries matching (share at least ``NEAR_SOME``).
    The inputs counted as wrong are ``valued`` (a wrong value) and ``others`` (a crash, a result where posenc
    refuses, a wrong type or shape: the mistake matches there when it fails the same way)."""
    shapeless = shapeless or {}
    best, best_key = None, None
    n_wrong = len(valued) + len(others)
    n_raised = sum(isinstance(outs[i], _Crash) for i in others)
    for text, m_outs in mistaken:
        n_cases, share, ratio = _nearness(t, cases, outs, expected, m_outs, valued)
        n_others = sum(
            _same_wrong(i, m_outs[i], outs, shapeless)
            if outs[i] is None
            else _equal_output(t, cases[i], outs[i], m_outs[i])
            for i in others
        )
        if n_raised > len(valued) and not n_others:
            continue  # wrong mostly by raising, where this mistake does not: its few values are no evidence
        n_cases += n_others
        if not ratio < NEAR_RATIO:
            continue
        if not (share >= NEAR_ENTRIES or (ratio <= NEAR_DISTANCE and share >= NEAR_SOME)):
            continue
        if ratio > NEAR_DISTANCE and share < NEAR_WEAK_ENTRIES:
            continue  # a weak guess: only closer, with a third or more of the wrong entries unexplained
        key = (n_cases, share, -ratio)
        if best_key is None or key > best_key:
            best, best_key = (text, n_cases, share, ratio), key
    if best is None:
        return None
    text, n_cases, share, ratio = best
    if n_cases == n_wrong:
        return (
            "your output equals this known mistake's on every input where yours is wrong (yours is right on some "
            f"inputs where the mistake is wrong): {text}"
        )
    far = "under 1%" if ratio < 0.01 else f"about {ratio:.0%}"
    how = f"it matches it on {share:.0%} of the entries where either differs from the right answer"
    if n_cases:
        how += f", and exactly on {n_cases} of the {n_wrong} inputs where yours is wrong"
    closer = "much closer" if ratio <= NEAR_DISTANCE else "closer"
    return (
        f"your output is not exactly a known mistake, but it is {closer} to this one than to the right answer "
        f"({far} of the distance; {how}): {text}"
    )


def _names(out) -> tuple[str, ...]:
    if isinstance(out, (tuple, list)):
        if len(out) == 2 and all(isinstance(o, torch.Tensor) for o in out):
            return ("cos", "sin")
        return ("inv_freq", "attention_scaling")
    return ("the result",)


def _first_nonfinite(cases, outs, expected, usable, where) -> tuple | None:
    """The first input and output part where ``where(learner's, posenc's)`` marks an entry: (case label, part
    name, index text, the learner's marked values, posenc's marked values); None if there is none."""
    for i in usable:
        o, e = outs[i], expected[i]
        if isinstance(o, _Crash) or isinstance(e, _Crash):
            continue
        for name, a, b in zip(_names(o), _parts(o), _parts(e)):
            if a.shape != b.shape:
                continue
            bad = where(a, b)
            if bool(bad.any()):
                idx = [int(j) for j in torch.nonzero(bad)[0]] if a.dim() else []
                return cases[i].label, name, f" at index {idx}" if idx else "", a[bad], b[bad]
    return None


def _nan_where_finite(t: Task, cases, outs, expected, usable) -> str | None:
    """The first input where the learner's output holds NaN or an infinity and posenc's does not."""
    found = _first_nonfinite(cases, outs, expected, usable, lambda a, b: ~torch.isfinite(a) & torch.isfinite(b))
    if found is None:
        return None
    label, name, at, mine, _ = found
    what = "NaN" if bool(torch.isnan(mine).any()) else "an infinity"
    if t.name in MASKED_TASKS:
        hint = (
            "(look for a division by zero, 0/0, 0·∞ — a mask built as ones.triu(1) * -inf holds "
            "0·(−inf) = NaN below the diagonal: use masked_fill or torch.full(..., -inf).triu(1) — or a "
            "value past float16's range)"
        )
    else:  # no mask in this task: no advice about one
        hint = (
            "(look for a division by zero, 0/0, 0·∞, a log of 0 or of a negative number, or a value past "
            "float16's range, 65504: a position or angle held in float16 beyond it is inf, and cos or sin of inf "
            "is NaN)"
        )
    return f"your output contains {what}: {name}{at} at {label}, where posenc's is finite {hint}"


#: The tasks with a causal mask (a −inf fill), where a NaN may come from a mask built as 0/1 · (−inf).
MASKED_TASKS = frozenset({"attention", "shaw_attention", "alibi_bias"})


def _nan_where_infinite(cases, outs, expected, usable) -> str | None:
    """The first input where the learner's output holds NaN where posenc's holds an infinity (a −inf mask)."""
    found = _first_nonfinite(cases, outs, expected, usable, lambda a, b: torch.isnan(a) & torch.isinf(b))
    if found is None:
        return None
    label, name, at, _, theirs = found
    sign = "−inf" if float(theirs[0]) < 0 else "+inf"
    return (
        f"your output contains NaN where posenc's is {sign}: {name}{at} at {label} (0·(−inf) "
        "is NaN: a −inf mask multiplied by 0 or by a 0/1 mask leaves NaN; put −inf there with "
        "masked_fill(..., float('-inf')))"
    )


def _safe(detect, cases, outs, usable) -> bool | str:
    """What a detector says: False, True (its own text), or a diagnosis in words; False if it raised."""
    try:
        said = detect(cases, outs, usable)
    except Exception:  # noqa: BLE001
        return False
    return said if isinstance(said, str) and said else bool(said)


def _picture(t: Task, cases, outs, expected) -> dict | None:
    """The smallest failing input whose output is at least two-dimensional: its label, the part (cos, sin,
    the result), and the expected and got [rows, cols] slice with the largest difference (leading dimensions,
    batch or heads, fixed at that slice's index)."""
    for c, o, e in zip(cases, outs, expected):
        if o is None or isinstance(o, _Crash) or isinstance(e, _Crash) or _equal_output(t, c, o, e):
            continue
        best = None
        for name, a, b in zip(_names(o), _parts(o), _parts(e)):
            if a.dim() < 2 or a.shape != b.shape or a.numel() == 0:
                continue
            a2, b2 = a.reshape(-1, *a.shape[-2:]), b.reshape(-1, *b.shape[-2:])
            same = _entries_equal(a2, b2, c.tol)
            size = (~same).flatten(1).sum(1)
            k = int(size.argmax())
            if best is None or int(size[k]) > best[0]:
                lead = [int(j) for j in torch.unravel_index(torch.tensor(k), a.shape[:-2])] if a.dim() > 2 else []
                best = (int(size[k]), name, lead, b2[k], a2[k], same[k])
        if best is None:
            return None
        _, name, lead, exp2, got2, same2 = best
        return {
            "where": c.label,
            "part": name + (f"[{', '.join(map(str, lead))}]" if lead else ""),
            "expected": exp2,
            "got": got2,
            "same": same2,
            "tol": c.tol,
        }
    return None
