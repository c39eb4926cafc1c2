"""Fast redraws of a figure whose layout is frozen: the explorers' renderer (internal to
:mod:`posenc.explorers`; the explorer framework draws through it).

A control change in an explorer changes a few things on its figure: the plotted data, and sometimes
an axis (new limits, so new ticks) or a colour bar's scale. Drawing the whole figure again costs
10 to 30 times what changed, mostly in text: matplotlib 3.11 shapes every string with libraqm, about
0.5 ms per tick label and 5 ms per title line on the 2-core machine of ``benchmarks/
bench_explorers.py``, where a full draw of a heatmap explorer takes 50 ms.

:class:`LayeredCanvas` draws instead

1. a **background** (figure, axes patches, colour-bar gradients, labels that never change, lines
   such as a zero line) once per layout, and again when the view limits of an axes holding such a
   line change; everything else is marked animated;
2. the **data** (the plot kind's artists) on top, every time: a heatmap's image is painted by numpy
   (nearest-neighbour, as ``interpolation="nearest"`` draws it), other artists by matplotlib;
3. **overlays**, each rendered once per state on a transparent canvas and alpha-composited: every
   axis (ticks and tick labels, one layer per view interval), each axis label (one layer per text
   and position: the long labels are the costliest text), the spines, the legend and the title.
   An axis that does not move is not drawn again; overlays clear of the data are composited into
   a cached copy of the background, the others (spines, legend) over the data.

The result equals matplotlib's own drawing of the figure up to the rounding of alpha compositing
(at most 2 levels of 255 per channel) and, for images, pixels on a cell boundary that nearest
sampling may give to either neighbour (``tests/test_widgets.py`` checks both).

:meth:`LayeredCanvas.warm` renders the overlays of a state ahead of time, without drawing it: the
live explorers use it for the settings one control step away while the reader looks at the figure.

If a newly rendered overlay is cut off by the canvas edge (a longer tick label than the layout
made room for), the figure is laid out again with matplotlib's constrained layout, once; a state
that a new layout could not fit either is not laid out again.

:func:`png_rgba` encodes the canvas as a PNG 2 to 3 times faster than Pillow (no adaptive filter
search: the "Up" filter, which suits images that repeat rows, and zlib level 1).
"""

from __future__ import annotations

import functools
import itertools
import math
import struct
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "LayeredCanvas",
    "layered_drawing_supported",
    "TESTED_MATPLOTLIB",
    "paint_image",
    "image_index",
    "font_height_metrics",
    "png_rgba",
]

#: matplotlib releases whose private internals this module relies on were tested with (the
#: renderer's ``_get_font_height_metrics`` hook, ``fontManager._find_fonts_by_props``,
#: ``Axes._left_title``/``_right_title``): 3.10 in `make test`'s Colab-like stage, 3.11 in the
#: book's set-up. With any other release :class:`LayeredCanvas` draws the whole figure with
#: matplotlib's own drawing (slower, never wrong); ``POSENC_FAST_CANVAS=0`` forces that, ``=1``
#: forces the layered drawing.
TESTED_MATPLOTLIB = ((3, 10), (3, 11))


def layered_drawing_supported() -> bool:
    """Whether the installed matplotlib is a tested release (see :data:`TESTED_MATPLOTLIB`)."""
    import os

    forced = os.environ.get("POSENC_FAST_CANVAS")
    if forced in ("0", "1"):
        return forced == "1"
    import matplotlib

    try:
        version = tuple(int(part) for part in matplotlib.__version__.split(".")[:2])
    except ValueError:
        return False
    return version in TESTED_MATPLOTLIB


#: An overlay whose ink comes this close (device px) to the canvas edge is measured exactly, and
#: the figure laid out again if it is cut off.
EDGE_PX = 3
#: Overlay layers kept per artist (least recently used dropped first).
MAX_LAYERS = 24


class LayeredCanvas:
    """Draw ``fig`` (Agg canvas, layout engine off) as background + ``data`` artists + overlays.

    Args:
        fig: the figure; its canvas must be a ``FigureCanvasAgg``.
        data: the artists that change with every update, drawn in this order (set animated here).
        pad: ``(w_pad, h_pad)`` of the constrained layout used when the figure is laid out again.
    """

    def __init__(self, fig, data, *, pad: tuple[float, float]) -> None:
        self.fig = fig
        self.data = list(data)
        self.pad = pad
        #: Whether drawing is layered (:func:`layered_drawing_supported`); with an untested matplotlib
        #: every draw is matplotlib's own
        self.layered = layered_drawing_supported()
        for artist in self.data:
            artist.set_animated(self.layered)
        self._base: np.ndarray | None = None
        self._geometry = None
        self._limits: tuple = ()
        self._overlays: list = []
        self._layers: dict[int, OrderedDict] = {}
        self._composite: np.ndarray | None = None
        self._composite_key: tuple | None = None
        self._unfit: set = set()  # overlays (id, key) that a new layout could not fit either
        #: The numbers of full (background) draws, overlay renders and layouts so far, for tests and benchmarks
        self.counts = {"background": 0, "overlay": 0, "layout": 0}

    # -- layout ---------------------------------------------------------------------------------
    def layout(self) -> None:
        """Lay the figure out (constrained: nothing cut off) and freeze it; forget every cache.

        Constrained layout can leave a text a few pixels beyond the canvas edge (measured: the
        y label of an equal-aspect heatmap with a colour bar, by 4 px); then every axes box is
        mapped into the canvas less that overflow (``_fit``), at most twice."""
        w_pad, h_pad = self.pad
        self.fig.set_layout_engine("constrained", w_pad=w_pad, h_pad=h_pad)
        self.fig.draw_without_rendering()
        self.fig.set_layout_engine("none")
        for _ in range(2):
            if not self._fit():
                break
        self._base = None
        self.counts["layout"] += 1

    def _overflow(self) -> tuple | None:
        """How far (px) the figure's ink (its tight box, texts included) reaches beyond the canvas:
        ``(left, bottom, right, top)``, or None when it lies inside (half a pixel allowed)."""
        renderer = self._renderer()
        self._apply_aspects()
        tight = self.fig.get_tightbbox(renderer)
        if tight is None:
            return None
        box = tight.transformed(self.fig.dpi_scale_trans)  # inches to display pixels
        width, height = self.fig.bbox.width, self.fig.bbox.height
        margins = (max(0.0, -box.x0), max(0.0, -box.y0), max(0.0, box.x1 - width), max(0.0, box.y1 - height))
        return margins if max(margins) > 0.5 else None

    def _fit(self) -> bool:
        """Move the frozen axes boxes so that the figure's ink (its tight box, texts included) lies
        inside the canvas with a pixel to spare; False when it already does."""
        overflow = self._overflow()
        if overflow is None:
            return False
        left, bottom, right, top = overflow
        width, height = self.fig.bbox.width, self.fig.bbox.height
        left, bottom, right, top = (m + 1.0 if m > 0.5 else 0.0 for m in (left, bottom, right, top))
        # one scale for both directions (in pixels), so that an equal-aspect box keeps its shape
        scale = min((width - left - right) / width, (height - bottom - top) / height)
        for ax in self.fig.axes:  # the drawn boxes, scaled towards the free corner
            x0, y0, w, h = ax.get_position(original=False).bounds
            ax.set_position(
                (x0 * scale + left / width, y0 * scale + bottom / height, w * scale, h * scale), which="both"
            )
        return True

    def _overlay_artists(self) -> list:
        """Every axes' x and y axis, each followed by its label (a layer of its own: a long label
        is the costliest text and rarely changes), the main axes' spines, legends and titles."""
        out = []
        for ax in self.fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                out += [axis, axis.label]
        main = self.data[0].axes if self.data else None
        if main is not None:
            out += list(main.spines.values())
        for ax in self.fig.axes:
            if ax.get_legend() is not None:
                out.append(ax.get_legend())
            titles = (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None))
            out += [t for t in titles if t is not None and t.get_text()]
        return [a for a in out if a.get_visible()]

    @staticmethod
    def _key(artist) -> tuple:
        """What an overlay's pixels depend on, besides the layout."""
        from matplotlib.axis import Axis
        from matplotlib.spines import Spine
        from matplotlib.text import Text

        if isinstance(artist, Axis):
            return (tuple(float(v) for v in artist.get_view_interval()), artist.get_scale())
        if isinstance(artist, Spine):  # its ends are placed through the view limits (matplotlib 3.10
            # snaps them a pixel differently for other limits)
            return (*artist.axes.get_xlim(), *artist.axes.get_ylim())
        if isinstance(artist, Text):
            return (artist.get_text(), artist.get_fontsize(), tuple(np.round(artist.get_position(), 3)))
        return ()

    def _renderer(self):
        """The canvas's renderer, which lays text out with the cached :func:`font_height_metrics`
        (a new renderer comes with a new size or dpi; the background draw uses the same one)."""
        renderer = self.fig.canvas.get_renderer()
        if self.layered and "_get_font_height_metrics" not in vars(renderer):
            renderer._get_font_height_metrics = functools.partial(font_height_metrics, dpi=renderer.dpi)
        return renderer

    def _apply_aspects(self) -> tuple:
        """Fix each axes' drawn box as ``Figure.draw`` would (equal aspect shrinks it); return the boxes."""
        renderer = self._renderer()
        boxes = []
        for ax in self.fig.axes:
            locator = ax.get_axes_locator()
            ax.apply_aspect(locator(ax, renderer) if locator else None)
            boxes.append(tuple(np.round(ax.get_position(original=False).bounds, 6)))
        return tuple(boxes) + (self.fig.bbox.bounds,)

    def _background_limits(self) -> tuple:
        """The view limits of each axes that holds a background artist in data coordinates (a zero
        line, a reference curve): when they change (a y range that follows the data), that artist
        moves on the canvas, so the background is drawn again (the overlays' caches stay valid)."""
        return tuple(
            (*ax.get_xlim(), *ax.get_ylim())
            for ax in self.fig.axes
            if any(
                not a.get_animated() and a.get_visible()
                for group in (ax.lines, ax.collections, ax.patches, ax.images, ax.texts)
                for a in group
            )
        )

    def _draw_background(self, geometry, *, keep_overlays: bool = False) -> None:
        if not keep_overlays:
            self._overlays = self._overlay_artists()
        for artist in self._overlays:
            artist.set_animated(True)
        self.fig.canvas.draw()  # everything not animated
        self._base = np.asarray(self.fig.canvas.buffer_rgba()).copy()
        self._geometry = geometry
        self._limits = self._background_limits()
        if not keep_overlays:
            self._layers = {id(a): OrderedDict() for a in self._overlays}
        self._composite_key = None
        self.counts["background"] += 1

    def _render_overlay(self, artist, buf: np.ndarray) -> _Layer:
        """``artist`` alone on a transparent canvas, cropped to its ink."""
        from matplotlib.axis import Axis

        buf[...] = 0
        renderer = self._renderer()
        if isinstance(artist, Axis):  # its label is a layer of its own
            artist.label.set_visible(False)
            artist.draw(renderer)
            artist.label.set_visible(True)
            label_position = artist.label.get_position()  # where the axis put it, beside the tick labels
        else:
            artist.draw(renderer)
            label_position = None
        self.counts["overlay"] += 1
        alpha = buf[..., 3]
        rows = np.flatnonzero(alpha.any(axis=1))
        if rows.size == 0:
            return _Layer(None, None, None, None, label_position)
        cols = np.flatnonzero(alpha.any(axis=0))
        r, c = slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1)
        a = buf[r, c, 3:4].astype(np.float32) / 255.0
        return _Layer(r, c, buf[r, c, :3].astype(np.float32) * a, 1.0 - a, label_position)

    # -- drawing ----------------------------------------------------------------------------------
    def _overlay(self, artist, buf: np.ndarray) -> tuple:
        """``(key, layer, cut_off)``: the overlay of ``artist`` in its current state, from the cache
        (an axis then puts its label where drawing it would have) or rendered and cached (the least
        recently used dropped beyond ``MAX_LAYERS``), and whether it was rendered just now and is
        cut off by the canvas edge."""
        from matplotlib.axis import Axis

        cache, key = self._layers[id(artist)], self._key(artist)
        layer, cut_off = cache.get(key), False
        if layer is None:
            layer = cache[key] = self._render_overlay(artist, buf)
            cut_off = self._overflows(artist, layer, buf.shape)
            while len(cache) > MAX_LAYERS:
                cache.popitem(last=False)
        elif isinstance(artist, Axis):
            artist.label.set_position(layer.label_position)
        cache.move_to_end(key)
        return key, layer, cut_off

    def draw(self) -> None:
        """Draw the figure into its canvas buffer (see the module docstring)."""
        if not self.layered:  # an untested matplotlib: its own drawing of the whole figure
            self.fig.canvas.draw()
            self.counts["background"] += 1
            if self._overflow() is not None:  # a longer tick label than the layout made room for
                self.layout()
                self.fig.canvas.draw()
            return
        for attempt in (0, 1):
            geometry = self._apply_aspects()
            if self._base is None or geometry != self._geometry:
                self._draw_background(geometry)
            elif self._background_limits() != self._limits:  # same boxes: the overlays' caches stay
                self._draw_background(geometry, keep_overlays=True)
            buf = np.asarray(self.fig.canvas.buffer_rgba())
            layers, cut = [], []
            for artist in self._overlays:
                key, layer, cut_off = self._overlay(artist, buf)
                if cut_off:
                    cut.append((id(artist), key))
                layers.append(layer)
            if attempt == 0 and any(c not in self._unfit for c in cut):
                self.layout()  # a longer tick label or title than the layout made room for: lay out again
                continue
            self._unfit.update(cut)  # still cut after a new layout: another one would not help
            break
        # Overlays clear of the data's axes (tick labels, axis labels, colour bars) are composited
        # into a cached copy of the background; those over it (spines, legend) after the data.
        inside = self._data_box(buf.shape)
        under = [layer for layer in layers if layer.rows is not None and not layer.overlaps(inside)]
        over = [layer for layer in layers if layer.rows is not None and layer.overlaps(inside)]
        key = tuple(layer.serial for layer in under)
        if key != self._composite_key:
            assert self._base is not None  # drawn by _draw_background in the loop above
            self._composite = self._base.copy()
            for layer in under:
                layer.paint(self._composite)
            self._composite_key = key
        buf[...] = self._composite
        renderer = self._renderer()
        for artist in self.data:
            if artist.get_visible() and not paint_image(buf, artist):
                artist.draw(renderer)
        for layer in over:
            layer.paint(buf)

    def warm(self) -> int:
        """Render the overlays that the figure's current state needs and the cache lacks, without
        drawing the figure: an explorer prepares, while the reader looks, the axes of the settings
        one step away (``Explorer.prefetch``). Returns how many overlays it rendered.

        The canvas buffer is scratch afterwards (:meth:`draw` paints all of it). Nothing is done
        when the state would move an axes box (the next draw starts a new background and cache
        anyway); an overlay cut off by the canvas edge is not kept (the draw lays the figure out
        again for it), unless a new layout could not fit it either."""
        if not self.layered or self._base is None or self._apply_aspects() != self._geometry:
            return 0
        buf = np.asarray(self.fig.canvas.buffer_rgba())
        rendered = self.counts["overlay"]
        for artist in self._overlays:
            key, _, cut_off = self._overlay(artist, buf)
            if cut_off and (id(artist), key) not in self._unfit:
                del self._layers[id(artist)][key]  # not kept: the draw lays the figure out again for it
        return self.counts["overlay"] - rendered

    def _data_box(self, shape) -> tuple[int, int, int, int]:
        """Buffer rows and columns ``(r0, c0, r1, c1)`` the data artists can draw into (their
        axes' boxes, which clip them), one pixel wider for anti-aliasing."""
        height = shape[0]
        boxes = [a.axes.bbox for a in self.data if a.axes is not None] or [self.fig.bbox]
        x0, x1 = min(b.x0 for b in boxes), max(b.x1 for b in boxes)
        y0, y1 = min(b.y0 for b in boxes), max(b.y1 for b in boxes)
        return (
            max(int(height - y1) - 1, 0),
            max(int(x0) - 1, 0),
            int(math.ceil(height - y0)) + 1,
            int(math.ceil(x1)) + 1,
        )

    def _overflows(self, artist, layer: _Layer, shape) -> bool:
        """Whether a freshly rendered overlay is cut off by the canvas edge (by more than 1 px).
        Only an overlay whose ink reaches within EDGE_PX of the edge is measured exactly (the ink
        of a cut-off text ends at the edge, so ink alone cannot tell how far it goes)."""
        from matplotlib.axis import Axis
        from matplotlib.text import Text

        if layer.rows is None or layer.cols is None:
            return False
        height, width = shape[:2]
        if (
            layer.rows.start >= EDGE_PX
            and layer.cols.start >= EDGE_PX
            and layer.rows.stop <= height - EDGE_PX
            and layer.cols.stop <= width - EDGE_PX
        ):
            return False
        renderer = self._renderer()
        if isinstance(artist, Axis):
            box = artist.get_tightbbox(renderer)
        elif isinstance(artist, Text):
            box = artist.get_window_extent(renderer)
        else:
            return True
        return box is not None and (box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1)

    def rgba(self) -> np.ndarray:
        """The canvas as a ``[height, width, 4]`` uint8 array (a view; after :meth:`draw`)."""
        return np.asarray(self.fig.canvas.buffer_rgba())

    def rgb(self) -> np.ndarray:
        """The canvas's colour as a ``[height, width, 3]`` uint8 view (after :meth:`draw`)."""
        return self.rgba()[..., :3]


#: A new serial number for every rendered layer (the composite's cache key).
_SERIALS: Iterator[int] = itertools.count()


@dataclass
class _Layer:
    """An overlay cropped to its ink: ``premultiplied`` colour and ``keep`` (1 - alpha) over
    ``rows`` x ``cols`` of the canvas (None: no ink), and for an axis where it put its label."""

    rows: slice | None
    cols: slice | None
    premultiplied: np.ndarray | None
    keep: np.ndarray | None
    label_position: tuple | None
    serial: int = field(default_factory=lambda: next(_SERIALS))

    def overlaps(self, box: tuple[int, int, int, int]) -> bool:
        """Whether the layer's ink meets the ``(row0, col0, row1, col1)`` box (no ink: never)."""
        if self.rows is None or self.cols is None:
            return False
        r0, c0, r1, c1 = box
        return self.rows.start < r1 and self.rows.stop > r0 and self.cols.start < c1 and self.cols.stop > c0

    def paint(self, buf: np.ndarray) -> None:
        """Alpha-composite this layer over ``buf`` (RGBA; its colour channels change)."""
        region = buf[self.rows, self.cols, :3]
        region[...] = (self.premultiplied + region * self.keep + 0.5).astype(np.uint8)


def font_height_metrics(prop, *, dpi: float) -> tuple:
    """``(min_ascent, min_descent, line_gap)`` in px of the font ``prop`` selects: what
    ``Text._get_layout`` (matplotlib 3.11) computes from the font's OS/2 or hhea table for every
    text it lays out, looking the font up each time (about a fifth of an axis's redraw). The same
    numbers, by the same arithmetic, once per font, size and dpi; matplotlib asks a renderer that
    has ``_get_font_height_metrics`` for them (``tests/test_widgets.py`` checks the equality)."""
    return _font_height_metrics(prop.copy(), dpi)


@functools.lru_cache(maxsize=64)
def _font_height_metrics(prop, dpi: float) -> tuple:
    from matplotlib.font_manager import fontManager, get_font

    font = get_font(fontManager._find_fonts_by_props(prop))
    head = font.get_sfnt_table("head")
    if head is None:
        return None, None, None  # matplotlib then measures "lp" itself
    scale = 1 / head["unitsPerEm"] * prop.get_size_in_points() * dpi / 72
    os2 = font.get_sfnt_table("OS/2")  # the typographic metrics first, as matplotlib reads them
    if os2 is not None:
        return os2["sTypoAscender"] * scale, -os2["sTypoDescender"] * scale, os2["sTypoLineGap"] * scale
    hhea = font.get_sfnt_table("hhea")
    if hhea is not None:
        return hhea["ascent"] * scale, -hhea["descent"] * scale, hhea["lineGap"] * scale
    return None, None, None


def image_index(image, shape) -> tuple | None:
    """Where nearest sampling puts ``image`` 's cells on a canvas of ``shape``: ``(rows, cols,
    row_of_cell, col_of_cell)`` (buffer rows top-down, the cell index of each pixel centre), or
    None when the image is not a plain nearest-neighbour image on linear axes (matplotlib draws it)."""
    from matplotlib.image import AxesImage

    ax = image.axes
    if (
        type(image) is not AxesImage
        or image.get_interpolation() != "nearest"
        or image.origin != "upper"
        or ax.get_xscale() != "linear"
        or ax.get_yscale() != "linear"
        or image.get_transform() != ax.transData
        or image.get_clip_path() is not None
    ):  # imshow clips to the axes box (a clip box, no path)
        return None
    cells = image.get_array()
    if cells is None:  # no data set yet
        return None
    n_rows, n_cols = cells.shape[:2]
    left, right, bottom, top = image.get_extent()
    (x_left, y_bottom), (x_right, y_top) = ax.transData.transform([(left, bottom), (right, top)])
    clip_box = image.get_clip_box()
    clip = clip_box if image.get_clip_on() and clip_box is not None else ax.figure.bbox
    x_lo, x_hi = max(min(x_left, x_right), clip.x0), min(max(x_left, x_right), clip.x1)
    y_lo, y_hi = max(min(y_bottom, y_top), clip.y0), min(max(y_bottom, y_top), clip.y1)
    if x_hi <= x_lo or y_hi <= y_lo:
        return None
    height = shape[0]
    # pixel i covers [i, i + 1) in display units; it is painted when its centre lies in the image
    c0, c1 = math.ceil(x_lo - 0.5), math.ceil(x_hi - 0.5)
    j0, j1 = math.ceil(y_lo - 0.5), math.ceil(y_hi - 0.5)  # display rows, counted upwards
    centres_x = np.arange(c0, c1) + 0.5
    centres_y = (height - 1 - np.arange(height - j1, height - j0)) + 0.5  # buffer rows top-down
    col = np.floor((centres_x - x_left) / (x_right - x_left) * n_cols).astype(np.intp).clip(0, n_cols - 1)
    row = np.floor((centres_y - y_top) / (y_bottom - y_top) * n_rows).astype(np.intp).clip(0, n_rows - 1)
    return slice(height - j1, height - j0), slice(c0, c1), row, col


def paint_image(buf: np.ndarray, image) -> bool:
    """Paint a nearest-neighbour ``AxesImage`` into the RGBA ``buf`` with numpy; False if it is
    not one (see :func:`image_index`) and matplotlib must draw it. Cells whose colour has alpha 0
    (NaN: the colour map's "bad" colour) leave the background showing."""
    index = image_index(image, buf.shape)
    if index is None:
        return False
    rows, cols, row, col = index
    z = np.ma.asarray(image.get_array())
    if z.ndim != 2:
        return False
    if row.size * col.size < z.size:  # fewer pixels than cells: sample first, then colour
        z = z[row[:, None], col[None, :]]
        row, col = np.arange(row.size), np.arange(col.size)
    rgba = np.ascontiguousarray(image.to_rgba(z, bytes=True))  # [rows, cols, 4] cells
    alpha = rgba[..., 3]
    # one uint32 per pixel: two 1-D gathers instead of a 2-D fancy index over bytes
    pixels = rgba.view(np.uint32)[..., 0].take(row, axis=0).take(col, axis=1)
    canvas = buf.view(np.uint32)[..., 0]
    if (alpha == 255).all():
        canvas[rows, cols] = pixels
    elif ((alpha == 0) | (alpha == 255)).all():  # NaN cells: the background shows through
        shown = alpha.take(row, axis=0).take(col, axis=1) == 255
        region = canvas[rows, cols]
        canvas[rows, cols] = np.where(shown, pixels, region)
    else:
        region = buf[rows, cols]
        colours = pixels[..., None].view(np.uint8)
        a = colours[..., 3:4].astype(np.float32) / 255.0
        region[..., :3] = (colours[..., :3] * a + region[..., :3] * (1.0 - a) + 0.5).astype(np.uint8)
    return True


def png_rgba(rgba: np.ndarray) -> bytes:
    """A contiguous ``[height, width, 4]`` uint8 array as PNG bytes (8-bit RGBA, "Up" filter, zlib
    level 1). RGBA rather than RGB: dropping the alpha bytes costs more time (a strided copy) than
    compressing them (after the Up filter an opaque alpha channel is zeros)."""
    height, width = rgba.shape[:2]
    flat = rgba.reshape(height, width * 4)
    raw = np.empty((height, width * 4 + 1), np.uint8)
    raw[:, 0] = 2  # filter type "Up": each byte minus the byte above it (mod 256)
    raw[0, 1:] = flat[0]
    np.subtract(flat[1:], flat[:-1], out=raw[1:, 1:])

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits, RGBA, deflate, no interlace
    # numpy's stubs declare ndarray's buffer protocol (__buffer__) for Python >= 3.12 only
    body = zlib.compress(raw, 1)  # type: ignore[arg-type]  # a C-contiguous array is a buffer, no copy
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
