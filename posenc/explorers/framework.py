"""The explorer framework: an explorer is data (parameters, a plot kind, ``compute``, a title),
and :class:`Explorer` turns it into three faces of the same drawing code.

An explorer (see :mod:`posenc.explorers.catalog`) is a small class that gives only

- ``params``: its :class:`~posenc.explorers.params.Param` s (allowed range, label and unit, the
  values tests sweep, the values pre-rendered for the HTML book, and a bound that follows another
  parameter);
- ``plot``: a plot kind (:mod:`posenc.explorers.plots`: ``Heatmap``, ``Curves``, ``Rotation``)
  that draws the figure once and afterwards only updates its artists' data;
- ``compute(**values)``: the numbers to plot, a dict the plot kind understands;
- ``title(data, **values)``: what the figure says.

The three faces:

- ``SomeExplorer().widget()``: live controls in Jupyter (a kernel recomputes and redraws; the
  figure is one HTML widget, its title as text above the image, so that a redraw is one message;
  :mod:`posenc.explorers.live`);
- ``SomeExplorer.frames_widget()``: kernel-less controls for the HTML book, the figure
  pre-rendered over a grid of parameter values and shown in nested ``Stack`` s whose selection is
  ``jslink`` ed to the controls (the book's Sphinx extension embeds it, see ``book/_ext``);
- ``SomeExplorer.static_companion()``: small multiples at a few settings, for print and for
  readers without JavaScript.

``SomeExplorer(**values).update(**changes)`` is the headless path under all three: it validates,
recomputes and redraws in place, or records a message (``error``) instead of raising.

Drawing: the figure is laid out once and frozen; every redraw goes through
:mod:`posenc.explorers.canvas` (a cached background, the data, cached overlays), which is what keeps
a control change to a few milliseconds of kernel time.
"""

from __future__ import annotations

import html
import io
import itertools
import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .._core.validate import check_float, check_int
from .canvas import LayeredCanvas, png_rgba
from .controls import close_tree, frame_control, grid_layout
from .live import _LiveUI
from .params import FRAME_FORMAT, HTML_SCALE, LIVE_SCALE, MIN_SLIDER_PX, PX_PER_INCH, TITLE_SIZE, Param
from .plots import Plot

__all__ = ["Explorer"]


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
    # A subclass names its parameters as keyword-only arguments. ``*args: Any, **values: Any`` is the
    # signature a type checker accepts any such override of (``Callable[..., Any]``); the framework
    # passes the values by keyword only.
    @staticmethod
    def compute(*args: Any, **values: Any) -> Any:
        """Numbers to plot for these (valid) values, in the form the plot kind draws (a dict, or
        the matrix itself for a heatmap); raises ValueError/TypeError on bad input."""
        raise NotImplementedError

    @staticmethod
    def title(data: Any, *args: Any, **values: Any) -> str:
        """The figure's title for ``compute``'s ``data`` at these values."""
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
        # layered canvas: background, data, cached overlays (see posenc.explorers.canvas).
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
        """Draw the figure into its canvas: cached background, the data, cached overlays
        (:mod:`posenc.explorers.canvas`)."""
        self.canvas.draw()

    def render_png(self) -> bytes:
        """The current figure as PNG bytes at ``scale`` device px per CSS px (the live widget's)."""
        self.draw()
        return self.encode_png()

    def encode_png(self) -> bytes:
        """The canvas as drawn by :meth:`draw`, as a PNG: fast, light compression
        (:func:`posenc.explorers.canvas.png_rgba`)."""
        return png_rgba(self.canvas.rgba())

    def render_frame(self) -> bytes:
        """The current figure as one pre-rendered frame of the HTML book: quantized to the plot
        kind's ``frame_colors`` and stored as lossless WebP (``FRAME_FORMAT``), a third smaller
        than the same palette as PNG."""
        from PIL import Image

        self.draw()
        palette = Image.fromarray(np.ascontiguousarray(self.canvas.rgb())).quantize(
            self.plot.frame_colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
        buf = io.BytesIO()
        palette.save(buf, format=FRAME_FORMAT, lossless=True, quality=100, method=2)
        return buf.getvalue()

    # -- static companion ---------------------------------------------------------------------
    @classmethod
    def static_companion(cls, settings: Sequence[dict] | None = None, *, ncols: int | None = None):
        """Small multiples of the plot at a few settings (default ``companion``), drawn by the same
        plot kind as the live figure. Returns a pyplot figure (``plt.show()`` displays it).

        Args:
            settings: a sequence of dicts (parameter name -> value), one panel each; default ``companion``.
            ncols (int, optional): panels per row, ``1 <= ncols <= len(settings)``; default
                ``min(len(settings), 3)``.
        """
        import matplotlib.pyplot as plt

        if settings is not None and (isinstance(settings, (str, bytes, dict)) or not isinstance(settings, Sequence)):
            raise TypeError(f"settings must be a sequence of dicts (one per panel), got {type(settings).__name__}")
        settings = list(cls.companion if settings is None else settings)
        if not settings:
            raise ValueError("settings must name at least one parameter setting")
        for i, setting in enumerate(settings):
            if not isinstance(setting, dict):
                raise TypeError(f"settings[{i}] must be a dict of parameter values, got {type(setting).__name__}")
        checked = [cls.check(setting) for setting in settings]  # every setting refused before a figure exists
        ncols = (
            min(len(settings), 3) if ncols is None else check_int("ncols", ncols, min_value=1, max_value=len(settings))
        )
        nrows = math.ceil(len(settings) / ncols)
        w, h = cls.figsize
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(w * ncols * 0.72, h * nrows * 0.8), squeeze=False, layout="constrained"
        )
        for ax, values in zip(axes.flat, checked):
            data = cls.compute(**values)
            cls.plot.draw(ax, data)
            ax.set_title(cls.title(data, **values), fontsize=TITLE_SIZE - 1)
        for ax in list(axes.flat)[len(settings) :]:
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
            control = frame_control(p, defaults[level])
            stacks = [root]
            for _ in range(level):
                stacks = [child for s in stacks for child in s.children]
            links += [w.jslink((control, "index"), (s, "selected_index")) for s in stacks]
            label = w.HTML(f"<b style='white-space:nowrap'>{html.escape(p.text)}</b>")
            cell = w.VBox([label, control], layout=w.Layout(min_width=f"{MIN_SLIDER_PX + 190}px"))
            cell.add_class("posenc-control")
            cell.add_class(f"posenc-param-{p.name}")
            cells.append(cell)
        controls = w.GridBox(cells, layout=grid_layout())
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
        close_tree(roots)
        return {"state": data["manager_state"], "view": data["view_specs"][0]}

    def close(self) -> None:
        """Release the figure (and the live widget's controls)."""
        import matplotlib.pyplot as plt

        plt.close(self.fig)
        if self._ui is not None:
            self._ui._cancel_prefetch()
            self._ui.box.close()


def _flat(items) -> list:
    """The items of nested lists and tuples, in order, in one list (a plot kind's artists)."""
    out = []
    for item in items:
        out.extend(_flat(item) if isinstance(item, (list, tuple)) else [item])
    return out
