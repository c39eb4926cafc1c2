"""State a function keeps between calls, seen from its results: a result a later call writes into (a buffer
kept between calls), a result cached from an earlier call with other arguments, a wrong result that a fresh copy
of the function (its cache as before the first call) gets right when called on that input first, an argument
kept from an earlier call with tensors of the same shapes (a cos/sin table cached without its offset, a stale key
tensor), and a different result on the same arguments.

The sweep of a task that has such a cache to catch holds an input that calls an earlier one again with other
values of some arguments (the ``repeats`` field of :class:`~posenc.practice.framework.Case`), the earlier one
chosen so that no plausible constant takes its values (a base of 500, a second random table): a function right
on the earlier input that returns exactly that result again on the later one kept it from the earlier call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from .framework import _arg_names, _Crash, _same, _show_args
from .running import _call, _equal_output


def _tensors(out: Any) -> list[torch.Tensor]:
    """The tensors of a result: itself, or the tensors of a tuple such as (cos, sin)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [o for o in out if isinstance(o, torch.Tensor)]
    return []


def _identical(a: Any, b: Any) -> bool:
    """The same type, shapes, dtypes and values (NaN equal to NaN): what a cache hands back."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and _same(a, b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


class _Kept:
    """The results a check got, as the function returned them (not copies), each with a copy taken on return;
    :meth:`look` after each later call finds the first result that call changed."""

    def __init__(self, signature: str) -> None:
        self.signature = signature
        self.items: list[tuple[int, list[torch.Tensor], list[torch.Tensor]]] = []
        self.event: tuple[int, str, bool] | None = None  # (changed result's input, the call that changed it, shared)

    def add(self, index: int, returned: Any) -> None:
        got = _tensors(returned)
        if got and self.event is None:
            self.items.append((index, got, [g.detach().clone() for g in got]))

    def look(self, call: str, returned: Any = None) -> None:
        """After a call (``call`` says it in words; ``returned`` its result, if it is a sweep's call): the first
        earlier result that no longer equals its copy, and whether the two calls returned the same memory."""
        if self.event is not None:
            return
        latest = {t.untyped_storage().data_ptr() for t in _tensors(returned) if t.numel()}
        for index, got, copies in self.items:
            if any(not _same(c, g) for g, c in zip(got, copies)):
                shared = any(g.untyped_storage().data_ptr() in latest for g in got if g.numel())
                self.event = (index, call, shared)
                return

    def message(self, cases) -> str | None:
        """The diagnosis of a result a later call changed, with both calls; None when no result changed."""
        if self.event is None:
            return None
        index, call, shared = self.event
        same = "; both calls returned the same memory" if shared else ""
        return (
            f"your function writes into a result it returned earlier: the result of "
            f"{_show_args(self.signature, cases[index])} changed when {call}{same}. A buffer kept between calls "
            "(a cached tensor filled in place, out=...) does this, and a caller who keeps the first result finds it "
            "changed by the second; return a new tensor on each call"
        )


def _repeated_index(cases, case) -> int | None:
    return next((j for j, c in enumerate(cases) if c.label == case.repeats), None) if case.repeats else None


def _differing(signature: str, a, b) -> tuple[list[str], list[str]]:
    """The argument names whose values differ between two inputs, and those whose values agree."""
    names = _arg_names(signature)
    pairs = [(names[k], x, y) for k, (x, y) in enumerate(zip(a.args, b.args))]
    pairs += [(k, v, b.kwargs.get(k)) for k, v in a.kwargs.items()]
    differ: list[str] = []
    agree: list[str] = []
    for name, x, y in pairs:
        (agree if _identical(x, y) else differ).append(name)
    return differ, agree


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _cached(t, cases, returned: dict, outs, expected) -> str | None:
    """Said when, on an input that calls an earlier one again with other values of some arguments, the function
    returns exactly what it returned on the earlier input, where it was right: the result was kept from that call."""
    for i, case in enumerate(cases):
        j = _repeated_index(cases, case)
        if j is None or i not in returned or j not in returned:
            continue
        if outs[j] is None or isinstance(outs[j], _Crash) or not _equal_output(t, cases[j], outs[j], expected[j]):
            continue
        if outs[i] is not None and _equal_output(t, case, outs[i], expected[i]):
            continue
        if not _identical(returned[i], returned[j]):
            continue
        differ, agree = _differing(t.signature, case, cases[j])
        what = f"a different {differ[0]}" if len(differ) == 1 else f"different {_and(differ)}"
        key = f"keyed on {_and(agree)} alone, or " if agree else ""
        kept = f"{key}kept from the first call," if agree else "kept from the first call"
        return (
            f"your function returns a result cached from an earlier call with {what}: "
            f"{_show_args(t.signature, case)} returns exactly what {_show_args(t.signature, cases[j])} returned "
            f"before it, right for that call and wrong for this one. A cache {kept} ignores "
            f"{_and(differ)}: put every argument in the cache's key, or compute the result afresh on each call"
        )
    return None


def _unsteady(t, cases, outs, expected, again: Callable) -> str | None:
    """Said when ``fn``, called a second time on the first input where it is wrong, returns something else:
    it keeps state between calls (a cached tensor changed in place, a global, a random draw)."""
    for case, out, exp in zip(cases, outs, expected):
        if out is None or isinstance(out, _Crash) or isinstance(exp, _Crash) or _equal_output(t, case, out, exp):
            continue
        try:
            second = again(case)
        except Exception:  # noqa: BLE001 — a crash or a timeout on the second call says nothing more
            return None
        if _equal_output(t, case, out, second):
            return None
        return (
            "your function returns a different result when called again with the same arguments, "
            f"{_show_args(t.signature, case)}: it keeps something between calls. Look for a cached or global "
            "tensor changed in place (div_, mul_, +=) or a random draw; compute the result afresh on each call"
        )
    return None


def _shapes(case) -> list:
    """The shapes and dtypes of a case's positional tensor arguments: what a cache keyed on shapes sees."""
    return [(tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else None for a in case.args]


def _dims(case) -> list:
    """The shapes of a case's positional tensor arguments, without their dtypes: a cache keyed on shapes alone
    (a cos/sin table keyed on (L, d) and cast to x's dtype after the lookup) serves a call of another dtype."""
    return [tuple(s[0]) if s is not None else None for s in _shapes(case)]


def _stale(t, cases, outs, expected) -> str | None:
    """Said when, on every input where the function is wrong, its output is posenc's answer with one argument (one
    of ``t.stale``; an entry that is a tuple of names moves those arguments together) taken from an earlier input
    with tensors of the same shapes (any dtypes), where the function was right: it kept that argument, or what it
    computed from it, from the earlier call (a cos/sin table cached without the offset in its key, a key tensor
    kept from the first call of a shape, the cos and sin tables cached by their shape)."""
    if not t.stale:
        return None
    names = _arg_names(t.signature)
    wrong = [i for i, (o, e) in enumerate(zip(outs, expected)) if not _equal_output(t, cases[i], o, e)]
    if not wrong or any(outs[i] is None or isinstance(outs[i], _Crash) for i in wrong):
        return None
    right = [j for j, (o, e) in enumerate(zip(outs, expected)) if o is not None and _equal_output(t, cases[j], o, e)]
    for entry in t.stale:
        group = entry if isinstance(entry, tuple) else (entry,)
        if any(n not in names for n in group):
            continue
        ks = [names.index(n) for n in group]
        name = _and(list(group))
        found: dict[int, int] = {}
        for i in wrong:
            for j in right:
                if (
                    j >= i
                    or _dims(cases[j]) != _dims(cases[i])
                    or all(_identical(cases[i].args[k], cases[j].args[k]) for k in ks)
                ):
                    continue
                args = list(cases[i].args)
                for k in ks:
                    args[k] = cases[j].args[k]
                moved = type(cases[i])(cases[i].label, tuple(args), cases[i].kwargs, cases[i].tol)
                try:
                    answer = t.structure(moved, _call(t.reference, moved))
                except Exception:  # noqa: BLE001 — posenc refuses the mixed arguments: not this kind
                    continue
                if _equal_output(t, cases[i], outs[i], answer):
                    found[i] = j
                    break
            if i not in found:
                break
        if len(found) == len(wrong):
            i = wrong[0]
            j = found[i]
            earlier = cases[j].args[ks[0]]
            tensor = isinstance(earlier, torch.Tensor) or len(ks) > 1
            value = f"the {name} of" if tensor else f"{name}={earlier!r}, that of"
            return (
                f"your function uses what it cached from an earlier call with a different {name}: "
                f"{_show_args(t.signature, cases[i])} returns posenc's answer with {value} the earlier call "
                f"{_show_args(t.signature, cases[j])}, where yours was right. A cache keyed on the shapes of the "
                f"tensors (and perhaps their dtypes) but not on {name} does this: put {name} in the cache's key, or "
                "compute afresh on each call"
            )
    return None


_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset, range, type(Ellipsis))


def _fresh_copy(fn: Callable | None, empty: bool = False) -> Callable | None:
    """A copy of ``fn`` with its own copy of the state it keeps between calls: its mutable default arguments, the
    mutable values of its closure and of the globals its code names (a cache dict or list, deep-copied, or with
    ``empty`` a dict emptied, as a cache starts), and an ``functools.lru_cache`` dropped (its ``__wrapped__``). None
    when ``fn`` keeps no such state, or it cannot be copied (a callable object, a global that does not copy)."""
    import copy
    import types

    changed = False
    wrapped: Any = fn
    while hasattr(wrapped, "cache_clear") and hasattr(wrapped, "__wrapped__"):  # functools.cache / lru_cache
        wrapped, changed = wrapped.__wrapped__, True
    fn = wrapped
    if isinstance(fn, types.MethodType) or (
        not isinstance(fn, (types.FunctionType, types.BuiltinFunctionType, type, torch.nn.Module))
        and getattr(fn, "__dict__", None)
    ):  # a callable object (or its bound method) keeping attributes (self.seen, self.cache): a deep copy of it
        try:
            if isinstance(fn, types.MethodType):
                return types.MethodType(fn.__func__, copy.deepcopy(fn.__self__))
            return copy.deepcopy(fn)
        except Exception:  # noqa: BLE001 — an object that does not copy: no fresh copy
            return None
    if not isinstance(fn, types.FunctionType):
        return None

    def fresh(value: Any) -> Any:
        nonlocal changed
        if isinstance(value, _IMMUTABLE) or callable(value) or isinstance(value, (torch.Tensor, types.ModuleType)):
            return value
        if isinstance(value, (dict, list, set)):
            changed = True
            return type(value)() if empty and isinstance(value, dict) else copy.deepcopy(value)
        return value

    try:
        defaults = tuple(fresh(v) for v in fn.__defaults__) if fn.__defaults__ else fn.__defaults__
        kwdefaults = {k: fresh(v) for k, v in fn.__kwdefaults__.items()} if fn.__kwdefaults__ else fn.__kwdefaults__
        closure = fn.__closure__
        if closure:
            closure = tuple(types.CellType(fresh(c.cell_contents)) if _filled(c) else c for c in closure)
        names = set(fn.__code__.co_names)
        glob = fn.__globals__
        moved = {k: fresh(glob[k]) for k in names if k in glob and not k.startswith("__")}
        moved = {k: v for k, v in moved.items() if v is not glob[k]}
    except Exception:  # noqa: BLE001 — a value that does not copy: no fresh copy
        return None
    if not changed:
        return None
    g = dict(glob, **moved) if moved else glob
    new = types.FunctionType(fn.__code__, g, fn.__name__, defaults, closure)
    new.__kwdefaults__ = kwdefaults
    return new


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _fresh(t, cases, outs, expected, start: Callable | None, call: Callable) -> str | None:
    """Said when a fresh copy of ``fn`` (``start``, copied by :func:`_fresh_copy` before the check's first call; else
    a copy with its dicts emptied), called first on the first input where ``fn`` was wrong, gets it right: what made
    it wrong is state kept between calls. The pair of calls is found by calling another fresh copy on an earlier
    input and then on that one (the earlier inputs nearest first); the arguments that differ between the two are
    those the cache's key leaves out. Without such a pair nothing is said: a copy that is right only because its
    dicts were emptied (a dict of options read with ``**opts``) shows no state."""
    wrong = [
        i
        for i, (o, e) in enumerate(zip(outs, expected))
        if not isinstance(e, _Crash) and (o is None or isinstance(o, _Crash) or not _equal_output(t, cases[i], o, e))
    ]
    if not wrong or start is None:
        return None
    i = wrong[0]
    case = cases[i]

    def right_on(f, c, e) -> bool:
        try:
            got = t.structure(c, call(f, c))
        except Exception:  # noqa: BLE001 — a crash or a wrong shape: not right
            return False
        return _equal_output(t, c, got, e)

    import types

    obj = not isinstance(start, types.FunctionType)  # a callable object or its bound method, deep-copied
    fn: Callable | None = start
    how = "its state as it was before the check's first call"
    if not right_on(_fresh_copy(fn), case, expected[i]):
        fn, how = _fresh_copy(start, empty=True), "its cache dicts empty"
        if fn is None or not right_on(_fresh_copy(fn), case, expected[i]):
            return None
    pair = ""
    for j in reversed(range(i)):
        if isinstance(expected[j], _Crash):
            continue
        f = _fresh_copy(fn)
        if f is None:
            break
        try:
            call(f, cases[j])
        except Exception:  # noqa: BLE001
            continue
        if not right_on(f, case, expected[i]):
            differ, agree = _differing(t.signature, case, cases[j])
            left = (
                ""
                if obj
                else (
                    f"; the two differ only in {differ[0]}, which the cache's key leaves out"
                    if len(differ) == 1
                    else f"; the two differ in {_and(differ)}, and the cache's key leaves out at least one of them"
                    if differ
                    else ""
                )
            )
            pair = (
                f" Called first as {_show_args(t.signature, cases[j])}, then as {_show_args(t.signature, case)}, it "
                f"is wrong on the second call{left}."
            )
            break
    if not pair:
        # no earlier call makes a fresh copy wrong: what the copy changed (an emptied dict of options, say) turned the
        # mistake off, which is no evidence of state kept between calls
        return None
    if obj:
        return (
            f"your function keeps state between calls: {_show_args(t.signature, case)} is wrong in the check's "
            f"sequence of calls, but a fresh copy of your object ({how}) called first on that input gets it "
            f"right.{pair} An attribute it updates on each call (a counter, self.seen += ..., a cached table) "
            "changes what later calls return: compute the result from the arguments alone"
        )
    return (
        f"your function keeps state between calls: {_show_args(t.signature, case)} is wrong in the check's "
        f"sequence of calls, but a fresh copy of your function ({how}) called first on that input gets it "
        f"right.{pair} A cache (a dict default argument, a global) whose key leaves out an argument hands back what "
        "an earlier call computed: put every argument the result depends on (base, factor, offset, the length) in "
        "the key, or compute the result afresh on each call"
    )
