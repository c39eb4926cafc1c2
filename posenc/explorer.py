"""The explorer framework: parameters as data, plot kinds that own drawing, three faces.

An explorer (see :mod:`posenc.widgets`) is a small class that gives only

- ``params``: its :class:`Param` s (allowed range, label and unit, the values tests sweep, the
  values pre-rendered for the HTML book, and a bound that follows another parameter);
- ``plot``: a plot kind (:class:`Heatmap`, :class:`Curves`, :class:`Rotation`) that draws the
  figure once and afterwards only updates its artists' data;
- ``compute(**values)``: the numbers to plot, a dict the plot kind understands;
- ``title(data, **values)``: what the figure says.

This module turns that into three faces of the same drawing code:

- ``SomeExplorer().widget()``: live controls in Jupyter (a kernel recomputes and redraws; the
  figure is one HTML widget, its title as text above the image, so that a redraw is one message);
- ``SomeExplorer.frames_widget()``: kernel-less controls for the HTML book, the figure
  pre-rendered over a grid of parameter values and shown in nested ``Stack`` s whose selection is
  ``jslink`` ed to the controls (the book's Sphinx extension embeds it, see ``book/_ext``);
- ``SomeExplorer.static_companion()``: small multiples at a few settings, for print and for
  readers without JavaScript.

Sizes: a figure of ``figsize`` inches is shown :data:`PX_PER_INCH` CSS pixels per inch, rendered at
``scale`` device pixels per CSS pixel (:data:`LIVE_SCALE` for the live widget, :data:`HTML_SCALE`
for the HTML book's frames).

Drawing: the figure is laid out once and frozen; every redraw goes through the private module
``posenc._canvas`` (a cached background, the data, cached overlays), which is what keeps a control
change to a few milliseconds of kernel time. While the reader looks at the live figure, its kernel
renders ahead the overlays of the settings one control step away (:meth:`Explorer.prefetch`,
``PREFETCH_DELAY_S`` after the last change), so that the next step redraws no axis.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import functools
import html
import io
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from ._canvas import LayeredCanvas, png_rgba
from ._validate import check_choice, check_even, check_float, check_int

__all__ = ["Param", "Plot", "Heatmap", "Curves", "Rotation", "Explorer", "nice_ceil", "PX_PER_INCH", "LIVE_SCALE",
           "HTML_SCALE", "FRAME_FORMAT"]

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
# a slider widget's track is about 12 px narrower than the widget (its padding and handle)
_TRACK_MARGIN_PX = 16

#: Seconds the live widget's kernel waits, after a redraw or after building the widget, before it
#: renders ahead the axes of the settings one control step away (``Explorer.prefetch``): the
#: browser has shown the new figure by then, and a reader is still looking at it.
PREFETCH_DELAY_S = 0.25

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

    def replace(self, **changes: Any) -> "Param":
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
        bound = self.bound(values)
        if bound is not None and not values[self.name] < bound:
            raise ValueError(f"{self.name} must be < {self.limit[2]} = {bound}, got {values[self.name]}")

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
    limits on this grid change only when the data crosses a step."""
    power = 10.0 ** math.floor(math.log10(x))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= x * (1 - 1e-12))


# ---------------------------------------------------------------------------------------------
# Plot kinds: each draws its artists once and afterwards only updates their data.
# ---------------------------------------------------------------------------------------------
class Plot:
    """A plot kind. ``draw`` creates the artists on ``ax`` and returns them by name; ``redraw``
    updates them in place for new data (no new artists, no layout change)."""

    #: number of colours in a pre-rendered frame's palette (a fraction of the RGB size)
    frame_colors: ClassVar[int] = 32

    def draw(self, ax, data: dict) -> dict:
        raise NotImplementedError

    def redraw(self, ax, artists: dict, data: dict) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Heatmap(Plot):
    """A matrix as an image with a colour bar.

    Data: the matrix ``[rows, cols]`` (array or tensor), or ``{"z": matrix, "limits": (low, high)}``
    when the colour scale follows the data in a way the explorer chooses. ``limits``: a fixed
    ``(low, high)``, or ``"symmetric"`` for ``±max|z|`` (a diverging map centred on 0)."""

    xlabel: str
    ylabel: str
    colorbar: str = ""
    cmap: str = "RdBu_r"
    limits: tuple | str | None = None
    aspect: str = "auto"
    frame_colors: ClassVar[int] = 256

    def _z_limits(self, data) -> tuple:
        if isinstance(data, dict):
            z, limits = np.asarray(data["z"]), data.get("limits", self.limits)
        else:
            z, limits = np.asarray(data), self.limits
        if limits == "symmetric":  # rounded up, so that the colour bar (a full redraw) rarely moves
            top = nice_ceil(float(np.nanmax(np.abs(z))) or 1.0)
            limits = (-top, top)
        return z, limits

    def draw(self, ax, data) -> dict:
        z, (low, high) = self._z_limits(data)
        from matplotlib.ticker import MaxNLocator

        image = ax.imshow(z, cmap=self.cmap, vmin=low, vmax=high, aspect=self.aspect, interpolation="nearest")
        for axis in (ax.xaxis, ax.yaxis):  # rows and columns are indices: no tick at 0.25
            axis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        bar = ax.figure.colorbar(image, ax=ax, fraction=0.06, pad=0.03)
        bar.set_label(self.colorbar)
        return {"image": image}

    def redraw(self, ax, artists: dict, data) -> None:
        image = artists["image"]
        z, limits = self._z_limits(data)
        rows, cols = z.shape
        image.set_data(z)
        image.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))
        image.set_clim(*limits)


@dataclass(frozen=True)
class Curves(Plot):
    """Lines against a shared x. Data: ``{"x": [n], "ys": [[n], ...]}``, optional ``"guides"``
    (y values of horizontal guide lines, one per ``guide_labels`` entry) and ``"ylim"``.

    Without ``ylim`` (here or in the data) the y-range follows the data, with a 5 % margin."""

    xlabel: str
    ylabel: str
    labels: tuple = ()
    marker: str = ""
    guide_labels: tuple = ()
    zero_line: bool = False
    ylim: tuple | None = None
    yscale: str = "linear"
    colors: tuple = ()
    guide_colors: tuple = ()
    legend_loc: str = "lower left"

    def draw(self, ax, data: dict) -> dict:
        ax.set_yscale(self.yscale)
        lines = [ax.plot(data["x"], y, marker=self.marker or None, ms=3, lw=1.5,
                         color=self.colors[i] if i < len(self.colors) else None,
                         label=self.labels[i] if i < len(self.labels) else None)[0]
                 for i, y in enumerate(data["ys"])]
        guides = [ax.axhline(y, color=self.guide_colors[i] if i < len(self.guide_colors) else "0.5", ls="--",
                             lw=0.9, label=label)
                  for i, (y, label) in enumerate(zip(data.get("guides", ()), self.guide_labels))]
        if self.zero_line:
            ax.axhline(0, color="0.7", lw=0.8, zorder=1)  # under the data
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        if self.labels or self.guide_labels:
            ax.legend(loc=self.legend_loc, fontsize=8)
        artists = {"lines": lines, "guides": guides}
        self.redraw(ax, artists, data)
        return artists

    def redraw(self, ax, artists: dict, data: dict) -> None:
        for line, y in zip(artists["lines"], data["ys"]):
            line.set_data(data["x"], y)
        for guide, y in zip(artists["guides"], data.get("guides", ())):
            guide.set_ydata([y, y])
        x = np.asarray(data["x"], dtype=float)
        pad = 0.02 * float(x.max() - x.min()) or 0.5
        ax.set_xlim(float(x.min()) - pad, float(x.max()) + pad)
        ylim = data.get("ylim", self.ylim)
        if ylim is None and self.yscale == "log":  # whole decades, guides included
            ys = np.concatenate([np.asarray(y, dtype=float).ravel() for y in data["ys"]] +
                                [np.asarray(data.get("guides", ()), dtype=float)])
            ys = ys[ys > 0]
            ylim = (10.0 ** math.floor(math.log10(ys.min())), 10.0 ** math.ceil(math.log10(ys.max())))
        if ylim is None:  # follow the data, on a coarse grid so that the axis (a full redraw) rarely moves
            ys = np.concatenate([np.asarray(y, dtype=float).ravel() for y in data["ys"]])
            low, high = float(ys.min()), float(ys.max())
            step = nice_ceil((high - low) or abs(high) or 1.0) / 10
            ylim = (math.floor(low / step - 0.5) * step, math.ceil(high / step + 0.5) * step)
        ax.set_ylim(*ylim)


@dataclass(frozen=True)
class Rotation(Plot):
    """A point travelling round the unit circle. Data: ``{"x": [m + 1], "y": [m + 1]}``, the
    point at positions ``0..m``; the last one is drawn as an arrow from the origin."""

    xlabel: str
    ylabel: str
    trail_label: str = "positions 0..m"
    arrow_label: str = "position m"

    def draw(self, ax, data: dict) -> dict:
        t = np.linspace(0, 2 * math.pi, 200)
        ax.plot(np.cos(t), np.sin(t), color="0.85", lw=1)
        trail, = ax.plot(data["x"], data["y"], "o-", color="tab:blue", ms=3, lw=0.8, alpha=0.6,
                         label=self.trail_label)
        arrow, = ax.plot([0, data["x"][-1]], [0, data["y"][-1]], color="tab:red", lw=2.5, label=self.arrow_label)
        ax.set_xlim(-1.2, 1.2)
        ax.set_ylim(-1.2, 1.2)
        ax.set_aspect("equal")
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        ax.legend(loc="lower left", fontsize=8)
        return {"trail": trail, "arrow": arrow}

    def redraw(self, ax, artists: dict, data: dict) -> None:
        artists["trail"].set_data(data["x"], data["y"])
        artists["arrow"].set_data([0, data["x"][-1]], [0, data["y"][-1]])


# ---------------------------------------------------------------------------------------------
# The explorer base
# ---------------------------------------------------------------------------------------------
class Explorer:
    """Base class: subclasses set ``params``, ``plot``, ``figsize``, ``companion``, ``topic`` and
    implement ``compute`` and ``title`` (static methods: the companion calls them without an
    instance)."""

    params: ClassVar[tuple[Param, ...]] = ()
    plot: ClassVar[Plot]
    companion: ClassVar[tuple[dict, ...]] = ()
    #: inches; shown PX_PER_INCH CSS px per inch
    figsize: ClassVar[tuple[float, float]] = (6.4, 4.0)
    #: what the "run this cell" hint says the reader will explore
    topic: ClassVar[str] = "this figure"

    # -- to implement -------------------------------------------------------------------------
    @staticmethod
    def compute(**values: Any) -> dict:
        """Numbers to plot for these (valid) values (raises ValueError/TypeError on bad input)."""
        raise NotImplementedError

    @staticmethod
    def title(data: dict, **values: Any) -> str:
        """The figure's title at these values."""
        raise NotImplementedError

    # -- construction ---------------------------------------------------------------------------
    def __init__(self, *, scale: float = LIVE_SCALE, **values: Any) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.values = self.check(values)
        self.data = self.compute(**self.values)
        self.scale = check_float("scale", scale, gt=0, le=4)
        # Lay the figure out once (constrained: nothing cut off), then freeze it (below): a layout
        # engine re-solved on every redraw costs time and makes the figure jump as labels change.
        self.fig = Figure(figsize=self.figsize, dpi=PX_PER_INCH * self.scale, layout="constrained")
        FigureCanvasAgg(self.fig)
        self.ax = self.fig.add_subplot()
        self.artists = self.plot.draw(self.ax, self.data)
        self.show_title = True
        self.ax.set_title(self.title(self.data, **self.values), fontsize=TITLE_SIZE)
        # Laid out once (constrained: nothing cut off), then frozen: a layout engine re-solved on
        # every redraw costs time and makes the figure jump as labels change. Redraws go through a
        # layered canvas: background, data, cached overlays (see posenc._canvas).
        self.canvas = LayeredCanvas(self.fig, _flat(self.artists.values()), pad=(0.08, 0.06))
        self.canvas.layout()
        self.error: str | None = None
        self.error_param: str | None = None
        self._ui: _LiveUI | None = None

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{type(self).__name__}({args})"

    @classmethod
    def param(cls, name: str) -> Param:
        """The declared parameter called ``name``."""
        for p in cls.params:
            if p.name == name:
                return p
        raise KeyError(f"{cls.__name__} has no parameter {name!r}; it has {[p.name for p in cls.params]}")

    @classmethod
    def defaults(cls) -> dict:
        return {p.name: p.default for p in cls.params}

    @classmethod
    def check(cls, changes: dict, values: dict | None = None) -> dict:
        """``values`` (default: the defaults) with ``changes`` validated and applied, limits checked."""
        unknown = set(changes) - {p.name for p in cls.params}
        if unknown:
            raise TypeError(f"unknown parameter(s) {sorted(unknown)}; allowed: {[p.name for p in cls.params]}")
        new = dict(values if values is not None else cls.defaults())
        new.update({k: cls.param(k).validate(v) for k, v in changes.items()})
        for p in cls.params:
            p.check_limit(new)
        return new

    # -- headless update ----------------------------------------------------------------------
    def update(self, **changes: Any) -> bool:
        """Validate ``changes``, recompute and redraw in place.

        Returns True on success. On bad input nothing changes, ``error`` holds the message
        (``error_param`` the parameter it concerns) and False is returned.
        """
        try:
            new = self.check(changes, self.values)
            data = self.compute(**new)
        except (ValueError, TypeError) as exc:
            self.error = str(exc)
            named = [k for k in changes if str(exc).startswith(k)]
            self.error_param = named[0] if named else next(iter(changes), None)
            return False
        self.values, self.data, self.error, self.error_param = new, data, None, None
        self._show(data, new)
        return True

    def prefetch(self, **changes: Any) -> int:
        """Render ahead what ``update(**changes)`` would draw anew (an axis whose limits move, its
        tick labels), then put the figure back: the live widget calls it, while the reader looks,
        for the settings one control step away, so that the next step redraws no axis. Returns the
        number of overlays rendered (0 for an invalid change). What the figure draws afterwards,
        now or after that change, is the same as without it (``tests/test_widgets.py``)."""
        try:
            values = self.check(changes, self.values)
            data = self.compute(**values)
        except (ValueError, TypeError):
            return 0
        self._show(data, values)
        try:
            return self.canvas.warm()
        finally:
            self._show(self.data, self.values)

    def _show(self, data: dict, values: dict) -> None:
        """Set the artists (and the title, if drawn in the figure) to ``data`` at ``values``."""
        self.plot.redraw(self.ax, self.artists, data)
        if self.show_title:
            self.ax.set_title(self.title(data, **values), fontsize=TITLE_SIZE)

    @property
    def title_text(self) -> str:
        """The figure's title at the current values (shown above the live widget's image)."""
        return self.title(self.data, **self.values)

    def title_outside(self) -> None:
        """Leave the title out of the figure (the live widget shows it as HTML above the image,
        where it costs nothing to redraw) and lay the figure out again without it."""
        self.show_title = False
        self.ax.set_title("")
        self.canvas.layout()

    @property
    def css_size(self) -> tuple[int, int]:
        """(width, height) in CSS pixels at which the figure is shown."""
        w, h = self.figsize
        return round(w * PX_PER_INCH), round(h * PX_PER_INCH)

    def draw(self) -> None:
        """Draw the figure into its canvas: cached background, the data, cached overlays (the
        private module ``posenc._canvas``)."""
        self.canvas.draw()

    def render_png(self) -> bytes:
        """The current figure as PNG bytes at ``scale`` device px per CSS px (the live widget's)."""
        self.draw()
        return self.encode_png()

    def encode_png(self) -> bytes:
        """The canvas as drawn by :meth:`draw`, as a PNG: fast, light compression (``png_rgba`` of
        the private module ``posenc._canvas``)."""
        return png_rgba(self.canvas.rgba())

    def render_frame(self) -> bytes:
        """The current figure as one pre-rendered frame of the HTML book: quantized to the plot
        kind's ``frame_colors`` and stored as lossless WebP (``FRAME_FORMAT``), a third smaller
        than the same palette as PNG."""
        from PIL import Image

        self.draw()
        palette = Image.fromarray(np.ascontiguousarray(self.canvas.rgb())).quantize(
            self.plot.frame_colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        buf = io.BytesIO()
        palette.save(buf, format=FRAME_FORMAT, lossless=True, quality=100, method=2)
        return buf.getvalue()

    # -- static companion ---------------------------------------------------------------------
    @classmethod
    def static_companion(cls, settings: Sequence[dict] | None = None, *, ncols: int | None = None):
        """Small multiples of the plot at a few settings (default ``companion``), drawn by the same
        plot kind as the live figure. Returns a pyplot figure (``plt.show()`` displays it)."""
        import matplotlib.pyplot as plt

        settings = list(settings or cls.companion)
        if not settings:
            raise ValueError("settings must name at least one parameter setting")
        ncols = ncols or min(len(settings), 3)
        nrows = math.ceil(len(settings) / ncols)
        w, h = cls.figsize
        fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols * 0.72, h * nrows * 0.8), squeeze=False,
                                 layout="constrained")
        for ax, setting in zip(axes.flat, settings):
            values = cls.check(setting)
            data = cls.compute(**values)
            cls.plot.draw(ax, data)
            ax.set_title(cls.title(data, **values), fontsize=TITLE_SIZE - 1)
        for ax in list(axes.flat)[len(settings):]:
            ax.set_visible(False)
        return fig

    # -- live widget (kernel) -----------------------------------------------------------------
    def widget(self):
        """Live controls, one per parameter, above the figure (an ``ipywidgets.VBox``).

        CSS classes for tests and styling: ``posenc-explorer`` (the box), ``posenc-control`` and
        ``posenc-param-<name>`` (one control's cell), ``posenc-message`` (its ⚠ line),
        ``posenc-image`` (the figure).
        """
        return _LiveUI(self).box

    # -- kernel-less frames (HTML book) ---------------------------------------------------------
    @classmethod
    def frame_params(cls) -> list[Param]:
        """The parameters the HTML book's explorer varies (those with ``frames``)."""
        return [p for p in cls.params if p.frames]

    @classmethod
    def render_frames(cls, *, scale: float = HTML_SCALE) -> list[bytes]:
        """Frames (:meth:`render_frame`) over the grid of ``frames`` values (C order: the last parameter varies
        fastest); the other parameters stay at their defaults."""
        grid = cls.frame_params()
        explorer = cls(scale=scale)
        frames = []
        for combo in itertools.product(*(p.frames for p in grid)):
            changes = dict(zip((p.name for p in grid), combo))
            if not explorer.update(**changes):
                raise ValueError(f"{cls.__name__}: frame {changes} is invalid: {explorer.error}")
            frames.append(explorer.render_frame())
        explorer.close()
        return frames

    @classmethod
    def frames_widget(cls, frames: Sequence[bytes] | None = None, *, scale: float = HTML_SCALE):
        """Kernel-less explorer: controls whose ``index`` is ``jslink`` ed to nested ``Stack`` s
        of pre-rendered frames (one level per varied parameter). Works from the embedded widget
        state alone: no kernel, no Python in the browser.

        Same CSS classes as :meth:`widget`, plus ``posenc-frames``.
        """
        import ipywidgets as w

        grid = cls.frame_params()
        frames = list(frames) if frames is not None else cls.render_frames(scale=scale)
        sizes = [len(p.frames) for p in grid]
        if len(frames) != math.prod(sizes):
            raise ValueError(f"frames must hold {math.prod(sizes)} images for {cls.__name__}, got {len(frames)}")
        width, height = (round(s * PX_PER_INCH) for s in cls.figsize)
        layout = w.Layout(width=f"{width}px", height=f"{height}px")
        defaults = [p.frames.index(p.default) for p in grid]
        images = iter(frames)

        def stack(level: int):
            if level == len(grid):
                image = w.Image(value=next(images), format=FRAME_FORMAT, layout=layout)
                image.add_class("posenc-image")
                return image
            return w.Stack([stack(level + 1) for _ in range(sizes[level])], selected_index=defaults[level])

        root = stack(0)
        cells, links = [], []
        for level, p in enumerate(grid):
            control = _frame_control(p, defaults[level])
            stacks = [root]
            for _ in range(level):
                stacks = [child for s in stacks for child in s.children]
            links += [w.jslink((control, "index"), (s, "selected_index")) for s in stacks]
            label = w.HTML(f"<b style='white-space:nowrap'>{html.escape(p.text)}</b>")
            cell = w.VBox([label, control], layout=w.Layout(min_width=f"{MIN_SLIDER_PX + 190}px"))
            cell.add_class("posenc-control")
            cell.add_class(f"posenc-param-{p.name}")
            cells.append(cell)
        controls = w.GridBox(cells, layout=_grid_layout())
        box = w.VBox([controls, root], layout=w.Layout(width="100%"))
        box.add_class("posenc-explorer")
        box.add_class("posenc-frames")
        box._posenc_links = links  # keep the links alive with the box
        return box

    @classmethod
    def frames_embed(cls, frames: Sequence[bytes] | None = None, *, scale: float = HTML_SCALE) -> dict:
        """The kernel-less explorer as embeddable widget state (what ``ipywidgets.embed`` writes
        into a page): ``{"state": manager state, "view": view spec}``. The widgets are closed
        afterwards; the page's widget manager rebuilds them from the state."""
        from ipywidgets.embed import dependency_state, embed_data

        box = cls.frames_widget(frames, scale=scale)
        roots = [box, *box._posenc_links]
        # Every trait is kept: with drop_defaults a control's ``index`` of 0 is left out, and the
        # browser's default for it ('') would select no frame at all.
        state = dependency_state(roots, drop_defaults=False)
        data = embed_data(views=[box], drop_defaults=False, state=state)
        _close_tree(roots)
        return {"state": data["manager_state"], "view": data["view_specs"][0]}

    def close(self) -> None:
        """Release the figure (and the live widget's controls)."""
        import matplotlib.pyplot as plt

        plt.close(self.fig)
        if self._ui is not None:
            self._ui._cancel_prefetch()
            self._ui.box.close()


def _flat(items) -> list:
    out = []
    for item in items:
        out.extend(_flat(item) if isinstance(item, (list, tuple)) else [item])
    return out


def _close_tree(roots: Sequence) -> None:
    """Close every widget reachable from ``roots`` (children, layouts, styles, link ends)."""
    from ipywidgets import Widget

    seen: set[int] = set()
    todo = list(roots)
    while todo:
        item = todo.pop()
        if isinstance(item, (list, tuple)):
            todo.extend(item)
            continue
        if not isinstance(item, Widget) or id(item) in seen:
            continue
        seen.add(id(item))
        todo.extend(getattr(item, key, None) for key in item.keys)
        item.close()


def _grid_layout():
    import ipywidgets as w

    return w.Layout(grid_template_columns=f"repeat(auto-fill, minmax({MIN_SLIDER_PX + 190}px, 1fr))",
                    grid_gap="0px 18px", width="100%")


def _frame_control(p: Param, index: int):
    """A selection control whose ``index`` picks a frame: slider, toggle buttons or dropdown."""
    import ipywidgets as w

    labels = [p.format(v) for v in p.frames]
    if p.kind == "bool":
        control = w.ToggleButtons(options=labels, index=index)
    elif p.kind == "choice":
        control = w.Dropdown(options=labels, index=index, layout=w.Layout(width="auto"))
    else:
        # no description beside it (the label sits above), so the track gets the width but the readout's
        width = MIN_SLIDER_PX + _TRACK_MARGIN_PX + 8 * max(len(t) for t in labels) + 24
        control = w.SelectionSlider(options=labels, index=index, continuous_update=True,
                                    layout=w.Layout(min_width=f"{width}px", width="95%"))
    control.add_class("posenc-input")
    return control


class _LiveUI:
    """The live widget's controls: a slider (numbers) or selector and a text box per parameter,
    a reserved ⚠ line under each, and the image. Text boxes are parsed here, so an empty box, a
    word or ``1e400`` gets a message and the box returns to the last good value."""

    def __init__(self, explorer: Explorer) -> None:
        import ipywidgets as w

        self.explorer = explorer
        explorer._ui = self  # Explorer.close closes it
        self.syncing = False
        self.controls: dict[str, dict] = {}
        cells = [self._cell(p) for p in explorer.params]
        width, height = explorer.css_size
        explorer.title_outside()
        # The figure is one HTML widget: the title line and the image as a data URL. One message
        # per redraw (not a title and an image), and a data URL decodes in about half the time of
        # the blob URL an Image widget makes (Chromium fetches a blob through its browser process).
        self.png = explorer.render_png()  # the figure shown (tests read it)
        self.figure = w.HTML(self._figure_html(), layout=w.Layout(width=f"{width}px"))
        self.figure.add_class("posenc-figure")
        self.grid = w.GridBox(cells, layout=_grid_layout())
        self.box = _ExplorerBox([self.grid, self.figure], layout=w.Layout(width="100%"))
        self.box._posenc_topic = explorer.topic
        self.box.add_class("posenc-explorer")
        self._sync_limits()
        self._prefetch: asyncio.Handle | None = None
        self._last: str | None = None  # the parameter the reader changed last
        self._schedule_prefetch()

    # -- building -----------------------------------------------------------------------------
    def _cell(self, p: Param):
        import ipywidgets as w

        value = self.explorer.values[p.name]
        parts: dict[str, Any] = {}
        label = w.HTML(f"<b style='white-space:nowrap'>{html.escape(p.text)}</b>",
                       layout=w.Layout(width="auto", min_width="90px", flex="0 0 auto"))
        slider_layout = w.Layout(min_width=f"{MIN_SLIDER_PX + _TRACK_MARGIN_PX}px", flex="1 1 auto")
        if p.kind == "int" and p.log:
            parts["slider"] = w.FloatLogSlider(value=value, base=10, min=math.log10(max(p.low, 1)),
                                               max=math.log10(p.high), step=0.01, readout=False,
                                               continuous_update=False, layout=slider_layout)
        elif p.kind in ("int", "even"):
            parts["slider"] = w.IntSlider(value=value, min=int(p.low), max=int(p.high),
                                          step=2 if p.kind == "even" else p.step, readout=False,
                                          continuous_update=False, layout=slider_layout)
        elif p.kind == "log":
            low = math.log10(p.low) + (0.3 if p.open_low else 0.0)  # an open bound: start at 2 * low
            parts["slider"] = w.FloatLogSlider(value=value, base=10, min=low, max=math.log10(p.high), step=0.01,
                                               readout=False, continuous_update=False, layout=slider_layout)
        elif p.kind == "float":
            parts["slider"] = w.FloatSlider(value=value, min=p.low, max=p.high, step=(p.high - p.low) / 200,
                                            readout=False, continuous_update=False, layout=slider_layout)
        if p.kind == "choice":
            parts["input"] = w.Dropdown(options=list(p.options), value=value, layout=w.Layout(width="auto"))
        elif p.kind == "bool":
            parts["input"] = w.ToggleButton(value=value, description="on" if value else "off",
                                            icon="check" if value else "", layout=w.Layout(width="90px"))
        else:
            parts["input"] = w.Text(value=p.format(value), continuous_update=False, layout=w.Layout(width="90px"))
        parts["message"] = w.HTML("", layout=w.Layout(height="1.6em", overflow="hidden"))
        parts["message"].add_class("posenc-message")
        row = [label] + ([parts["slider"]] if "slider" in parts else []) + [parts["input"]]
        cell = w.VBox([w.HBox(row, layout=w.Layout(align_items="center")), parts["message"]],
                      layout=w.Layout(min_width=f"{MIN_SLIDER_PX + _TRACK_MARGIN_PX + 90 + 7 * len(p.text) + 16}px"))
        cell.add_class("posenc-control")
        cell.add_class(f"posenc-param-{p.name}")
        for kind in ("slider", "input"):
            if kind in parts:
                # No echo of the reader's own value (ipywidgets 8 sends one before anything else;
                # traitlets reads per-instance metadata from `_<trait>_metadata`; a menu syncs its
                # `index`): it is one more message ahead of the figure, for a value the browser
                # already shows. Values the kernel changes are still sent (`_sync_values`).
                parts[kind]._value_metadata = parts[kind]._index_metadata = {"echo_update": False}
                parts[kind].add_class(f"posenc-{kind}")
                parts[kind].observe(lambda change, p=p, kind=kind: self._on_change(p, kind, change["new"]),
                                    names="value")
        self.controls[p.name] = parts
        return cell

    # -- events ---------------------------------------------------------------------------------
    def _on_change(self, p: Param, kind: str, new: Any) -> None:
        if self.syncing:
            return
        self._last = p.name
        if kind == "slider" and p.kind == "int":
            new = int(round(new))
        if kind == "input" and p.kind not in ("choice", "bool"):
            try:
                new = p.parse(new)
            except ValueError as exc:
                self._fail(p.name, str(exc))
                self._schedule_prefetch()
                return
        self.set(p.name, new)
        self._schedule_prefetch()

    def _changes(self, name: str, value: Any) -> dict:
        """``{name: value}`` and each dependent value beyond its new limit moved to the limit, as
        its slider's maximum does."""
        explorer = self.explorer
        changes = {name: value}
        try:
            trial = {**explorer.values, name: explorer.param(name).validate(value)}
        except (ValueError, TypeError):
            return changes
        for q in explorer.params:
            if q.limit is not None and q.limit[0] == name:
                bound = q.bound(trial)
                if explorer.values[q.name] >= bound:
                    changes[q.name] = max(bound - 1, int(q.low))
        return changes

    def set(self, name: str, value: Any) -> bool:
        """Apply one reader's change (what a control does); a dependent value beyond its new
        limit moves to the limit, as its slider's maximum does."""
        explorer = self.explorer
        if not explorer.update(**self._changes(name, value)):
            self._fail(explorer.error_param or name, explorer.error)
            return False
        self.png = explorer.render_png()
        self.figure.value = self._figure_html()
        for parts in self.controls.values():
            parts["message"].value = ""
        self._sync_limits()
        self._sync_values()
        return True

    # -- rendering ahead --------------------------------------------------------------------------
    def steps(self) -> list[dict]:
        """The changes one control step away from the current values, as :meth:`set` applies them:
        an arrow key on a slider (either way), the next or previous menu item, a toggle's click.
        The parameter changed last comes first."""
        explorer = self.explorer
        out = []
        for p in sorted(explorer.params, key=lambda q: q.name != self._last):
            value, slider = explorer.values[p.name], self.controls[p.name].get("slider")
            if p.kind == "choice":
                i = p.options.index(value)
                near = [p.options[j] for j in (i + 1, i - 1) if 0 <= j < len(p.options)]
            elif p.kind == "bool":
                near = [not value]
            elif slider is None:
                near = []
            elif hasattr(slider, "base"):  # a log slider steps its exponent
                exponent = math.log(value, slider.base)
                near = [slider.base ** e for e in (exponent + slider.step, exponent - slider.step)
                        if slider.min <= e <= slider.max]
            else:
                near = [v for v in (value + slider.step, value - slider.step) if slider.min <= v <= slider.max]
            if p.kind in ("int", "even"):
                near = [int(round(v)) for v in near]
            out += [self._changes(p.name, v) for v in dict.fromkeys(near) if v != value]
        return out

    def _schedule_prefetch(self) -> None:
        """In ``PREFETCH_DELAY_S``, render ahead (``Explorer.prefetch``) the :meth:`steps`, one per
        turn of the kernel's event loop, so that a reader's input waits for one at most. Without
        a running event loop (a script) nothing is scheduled."""
        self._cancel_prefetch()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._prefetch = loop.call_later(PREFETCH_DELAY_S, self._prefetch_next, loop, iter(self.steps()))

    def _prefetch_next(self, loop, steps) -> None:
        changes = next(steps, None)
        if changes is None:
            self._prefetch = None
            return
        self.explorer.prefetch(**changes)
        self._prefetch = loop.call_soon(self._prefetch_next, loop, steps)

    def _cancel_prefetch(self) -> None:
        if self._prefetch is not None:
            self._prefetch.cancel()
            self._prefetch = None

    def _figure_html(self) -> str:
        """The title line (centred, the figure's title size, line breaks kept) above ``self.png``
        as a data URL shown at its CSS size."""
        explorer = self.explorer
        lines = "<br>".join(html.escape(line) for line in explorer.title_text.split("\n"))
        width, height = explorer.css_size
        png = base64.b64encode(self.png).decode("ascii")
        return (f"<div class='posenc-title' style='text-align:center;font-size:{TITLE_SIZE * 4 / 3:.0f}px;"
                f"line-height:1.25;font-family:\"DejaVu Sans\",sans-serif'>{lines}</div>"
                f"<img class='posenc-image' decoding='sync' width='{width}' height='{height}' alt='figure: {html.escape(lines)}' "
                f"src='data:image/png;base64,{png}'>")

    def _fail(self, name: str, message: str) -> None:
        self.controls[name]["message"].value = (
            f"<span style='color:#b00020;font-size:12px;white-space:nowrap'>&#9888; {html.escape(message)}</span>")
        self._sync_values()  # the box returns to the last good value

    # -- keeping the controls in step -------------------------------------------------------------
    def _sync_values(self) -> None:
        self.syncing = True
        try:
            for p in self.explorer.params:
                value = self.explorer.values[p.name]
                parts = self.controls[p.name]
                if "slider" in parts and parts["slider"].value != value:
                    parts["slider"].value = value
                inp = parts["input"]
                if p.kind == "bool":
                    inp.value, inp.description, inp.icon = value, ("on" if value else "off"), ("check" if value else "")
                elif p.kind == "choice":
                    inp.value = value
                else:
                    inp.value = p.format(value)
        finally:
            self.syncing = False

    def _sync_limits(self) -> None:
        self.syncing = True
        try:
            for p in self.explorer.params:
                bound = p.bound(self.explorer.values)
                if bound is not None and "slider" in self.controls[p.name] and not p.log:
                    self.controls[p.name]["slider"].max = min(int(p.high), bound - 1)
        finally:
            self.syncing = False


@functools.lru_cache(maxsize=1)
def _explorer_box_class():
    import ipywidgets as w

    class ExplorerBox(w.VBox):
        """A VBox whose text form (what a notebook shows before its kernel runs) is a hint."""

        def __repr__(self) -> str:
            return f"Run this cell to explore {getattr(self, '_posenc_topic', 'this figure')} (needs a kernel)."

    return ExplorerBox


def _ExplorerBox(*args: Any, **kwargs: Any):
    return _explorer_box_class()(*args, **kwargs)
