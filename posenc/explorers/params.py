"""An explorer's parameters and the sizes its figure and controls are shown at.

A :class:`Param` is a parameter as data: its kind, allowed range, label and unit, the values tests
sweep, the values pre-rendered for the HTML book, and a bound that follows another parameter. The
live widget, the kernel-less frames and the tests all read it; :meth:`Param.validate` is where an
explorer's input is checked (a ``ValueError``/``TypeError`` that names the parameter).

Sizes: a figure of ``figsize`` inches is shown :data:`PX_PER_INCH` CSS pixels per inch, rendered at
``scale`` device pixels per CSS pixel (:data:`LIVE_SCALE` for the live widget, :data:`HTML_SCALE`
for the HTML book's frames).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.validate import check_choice, check_even, check_float, check_int

__all__ = [
    "Param",
    "nice_ceil",
    "PX_PER_INCH",
    "LIVE_SCALE",
    "HTML_SCALE",
    "FRAME_FORMAT",
    "TITLE_SIZE",
    "MIN_SLIDER_PX",
    "TRACK_MARGIN_PX",
]

#: CSS pixels per inch of ``figsize``: a 6.4-inch figure is shown 640 CSS px wide.
PX_PER_INCH = 100
#: Device pixels per CSS pixel of the live widget's PNG. 1 keeps a control change within the latency
#: budget (2 costs twice the time: see benchmarks/bench_explorers.py); on a pixel-ratio-2 screen
#: pass ``scale=2`` to the explorer for a sharper figure.
LIVE_SCALE = 1.0
#: Device pixels per CSS pixel of the HTML book's pre-rendered frames (page-weight budget).
HTML_SCALE = 1.25
#: Image format of the HTML book's frames, lossless WebP (every browser of the last five years).
FRAME_FORMAT = "webp"
#: Title font size (points) of every explorer figure.
TITLE_SIZE = 10
#: Smallest width (CSS px) of a control's slider track.
MIN_SLIDER_PX = 150
#: A slider widget is this much (CSS px) wider than its track (its padding and handle).
TRACK_MARGIN_PX = 16

_KINDS = ("int", "even", "float", "log", "choice", "bool")


@dataclass(frozen=True)
class Param:
    """One explorer parameter: its kind, allowed values, label and the values swept and pre-rendered.

    Args:
        name: keyword the explorer takes.
        default: initial value.
        kind: ``"int"``, ``"even"`` (even int), ``"float"``, ``"log"`` (positive float on a log
            slider), ``"choice"`` (one of ``options``) or ``"bool"``.
        low, high: inclusive bounds of numeric kinds (``low`` exclusive when ``open_low``).
        step: slider step of ``"int"``.
        label: text beside the control; ``unit`` follows it in brackets.
        sweep: representative valid values for tests, benchmarks and companions.
        frames: values pre-rendered for the kernel-less HTML explorer (empty: fixed at ``default``).
        options: the allowed values of ``"choice"``.
        log: an ``"int"`` spanning decades gets a log slider too (``"log"`` is the float kind).
        limit: ``(other, fn, text)``: the value must be ``< fn(values[other])``, described as
            ``text`` (e.g. ``("head_dim", lambda d: d // 2, "head_dim // 2")``). The live slider's
            maximum follows ``other``.
    """

    name: str
    default: Any
    kind: str
    low: float = 0
    high: float = 0
    step: int = 1
    label: str = ""
    unit: str = ""
    open_low: bool = False
    sweep: tuple = ()
    frames: tuple = ()
    options: tuple = ()
    limit: tuple | None = None
    log: bool = False

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, _KINDS)

    def replace(self, **changes: Any) -> Param:
        """A copy with some fields changed (a shared parameter adapted to one explorer)."""
        return dataclasses.replace(self, **changes)

    @property
    def text(self) -> str:
        """Label and unit, as the control shows them."""
        label = self.label or self.name
        return f"{label} ({self.unit})" if self.unit else label

    def validate(self, value: Any) -> Any:
        """Return the value converted to its kind, or raise ``ValueError``/``TypeError`` naming it."""
        if self.kind == "int":
            return check_int(self.name, value, min_value=int(self.low), max_value=int(self.high))
        if self.kind == "even":
            return check_even(self.name, value, min_value=int(self.low), max_value=int(self.high))
        if self.kind == "choice":
            return check_choice(self.name, value, self.options)
        if self.kind == "bool":  # 0 and 1 are accepted as False and True, nothing else
            if not isinstance(value, (bool, np.bool_, int)) or value not in (0, 1):
                raise TypeError(f"{self.name} must be True or False, got {type(value).__name__} ({value!r})")
            return bool(value)
        if self.open_low:
            return check_float(self.name, value, gt=self.low, le=self.high)
        return check_float(self.name, value, ge=self.low, le=self.high)

    def bound(self, values: dict) -> int | None:
        """The exclusive upper bound ``limit`` puts on this parameter at ``values`` (None: no limit)."""
        if self.limit is None:
            return None
        other, fn, _ = self.limit
        return int(fn(values[other]))

    def check_limit(self, values: dict) -> None:
        """Raise ``ValueError`` if ``values[name]`` breaks the bound set by another parameter."""
        bound, limit = self.bound(values), self.limit
        if bound is not None and limit is not None and not values[self.name] < bound:
            raise ValueError(f"{self.name} must be < {limit[2]} = {bound}, got {values[self.name]}")

    def values(self) -> tuple:
        """Representative valid values: the declared sweep, or low/default/high."""
        if self.sweep:
            return self.sweep
        if self.kind == "choice":
            return self.options
        if self.kind == "bool":
            return (False, True)
        return tuple(dict.fromkeys((self.default if self.open_low else self.low, self.default, self.high)))

    def format(self, value: Any) -> str:
        """The value as a control shows it (``10000``, ``5e+05``, ``on``)."""
        if self.kind == "bool":
            return "on" if value else "off"
        if self.kind in ("float", "log"):
            return f"{value:g}"
        return str(value)

    def parse(self, text: str) -> Any:
        """A typed string as this parameter's kind, or raise ``ValueError``/``TypeError``."""
        text = text.strip()
        if not text:
            raise ValueError(f"{self.name}: type a number")
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{self.name} must be a number, got {text!r}") from None
        if self.kind in ("int", "even"):
            if number != number or abs(number) == math.inf or number != int(number):
                raise ValueError(f"{self.name} must be a whole number, got {text}")
            return int(number)
        return number


def nice_ceil(x: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is >= ``x`` (> 0): axis and colour
    limits on this grid change only when the data crosses a step.

    Raises:
        TypeError: ``x`` is not a real number.
        ValueError: ``x`` is not finite or not > 0.
    """
    x = check_float("x", x, gt=0)
    power = 10.0 ** math.floor(math.log10(x))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= x * (1 - 1e-12))
