"""The explorers' plot kinds: each draws its artists once and afterwards only updates their data.

An explorer names one plot kind (:class:`Heatmap`, :class:`Curves`, :class:`Rotation`); its
``compute`` returns the data that kind understands. ``draw`` builds the figure's artists once,
``redraw`` moves them to new data without new artists or a new layout, which is what lets the
layered canvas (:mod:`posenc.explorers.canvas`) redraw only what changed. The static companion
draws its small multiples with the same ``draw``.
"""

from __future__ import annotations

import math
import numbers
import sys
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._core.validate import check_choice
from .params import nice_ceil

__all__ = ["Plot", "Heatmap", "Curves", "Rotation"]

#: ``aspect`` words of :class:`Heatmap` (``imshow``'s; a positive number is accepted too).
_ASPECTS = ("auto", "equal")
#: ``yscale`` values :class:`Curves` draws: ``"log"`` gets whole decades, the others follow the data.
_YSCALES = ("linear", "log", "symlog", "asinh")
#: ``legend_loc`` values of :class:`Curves` (matplotlib's legend location strings).
_LEGEND_LOCS = (
    "best",
    "upper right",
    "upper left",
    "lower left",
    "lower right",
    "right",
    "center left",
    "center right",
    "lower center",
    "upper center",
    "center",
)


# ---------------------------------------------------------------------------------------------
# checks of the plot kinds' fields: at construction, without importing matplotlib (importing
# posenc.explorers must not). Names are checked against matplotlib only where it is already imported.
def _check_str(name: str, value: Any, *, empty: bool = True) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} ({value!r})")
    if not empty and not value:
        raise ValueError(f"{name} must be a non-empty str, got ''")


def _check_strs(name: str, value: Any) -> None:
    if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be a tuple of str, got {type(value).__name__} ({value!r})")


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _check_range(name: str, value: Any, allowed: str, *, positive: bool = False) -> None:
    """``value`` is a ``(low, high)`` tuple of finite numbers, ``low < high`` (``0 < low`` if ``positive``)."""
    if not isinstance(value, tuple) or len(value) != 2 or not all(_is_real(v) for v in value):
        raise TypeError(f"{name} must be {allowed}, got {type(value).__name__} ({value!r})")
    low, high = float(value[0]), float(value[1])
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    if positive and not low > 0:
        raise ValueError(f"{name} must have low > 0 on a log scale, got {value!r}")


def _check_colors(name: str, value: Any) -> None:
    allowed = "a tuple of matplotlib colours (str, e.g. 'tab:blue' or '0.6')"
    if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be {allowed}, got {type(value).__name__} ({value!r})")
    is_color_like = getattr(sys.modules.get("matplotlib.colors"), "is_color_like", None)
    bad = [v for v in value if not v or (is_color_like is not None and not is_color_like(v))]
    if bad:
        raise ValueError(f"{name} must be {allowed}, got {bad[0]!r}")


def _check_cmap(value: Any) -> None:
    allowed = "a matplotlib colormap name (e.g. 'RdBu_r', 'viridis')"
    if not isinstance(value, str):
        raise TypeError(f"cmap must be {allowed}, got {type(value).__name__} ({value!r})")
    registry = getattr(sys.modules.get("matplotlib"), "colormaps", None)
    if not value or (registry is not None and value not in registry):
        raise ValueError(f"cmap must be {allowed}, got {value!r}")


def _check_marker(value: Any) -> None:
    allowed = "'' (no marker) or a matplotlib marker (e.g. 'o', 's', '.')"
    if not isinstance(value, str):
        raise TypeError(f"marker must be {allowed}, got {type(value).__name__} ({value!r})")
    style = getattr(sys.modules.get("matplotlib.markers"), "MarkerStyle", None)
    mathtext = len(value) >= 2 and value[0] == value[-1] == "$"
    if value and style is not None and value not in style.markers and not mathtext:
        raise ValueError(f"marker must be {allowed}, got {value!r}")


def _check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} ({value!r})")


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
    aspect: str | float = "auto"
    frame_colors: ClassVar[int] = 256

    def __post_init__(self) -> None:
        for name in ("xlabel", "ylabel", "colorbar"):
            _check_str(name, getattr(self, name))
        _check_cmap(self.cmap)
        limits = "None, 'symmetric' (±max|z|) or a (low, high) tuple of finite numbers with low < high"
        if isinstance(self.limits, str):
            if self.limits != "symmetric":
                raise ValueError(f"limits must be {limits}, got {self.limits!r}")
        elif self.limits is not None:
            _check_range("limits", self.limits, limits)
        aspect = "'auto', 'equal' or a finite number > 0 (height / width of a cell)"
        if isinstance(self.aspect, str):
            if self.aspect not in _ASPECTS:
                raise ValueError(f"aspect must be {aspect}, got {self.aspect!r}")
        elif not _is_real(self.aspect):
            raise TypeError(f"aspect must be {aspect}, got {type(self.aspect).__name__} ({self.aspect!r})")
        elif not (math.isfinite(self.aspect) and self.aspect > 0):
            raise ValueError(f"aspect must be {aspect}, got {self.aspect!r}")

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

    def __post_init__(self) -> None:
        for name in ("xlabel", "ylabel"):
            _check_str(name, getattr(self, name))
        for name in ("labels", "guide_labels"):
            _check_strs(name, getattr(self, name))
        _check_marker(self.marker)
        _check_bool("zero_line", self.zero_line)
        check_choice("yscale", self.yscale, _YSCALES)
        if self.ylim is not None:
            _check_range(
                "ylim",
                self.ylim,
                "None (follow the data) or a (low, high) tuple of finite numbers with low < high",
                positive=self.yscale == "log",
            )
        for name in ("colors", "guide_colors"):
            _check_colors(name, getattr(self, name))
        check_choice("legend_loc", self.legend_loc, _LEGEND_LOCS)

    def draw(self, ax, data: dict) -> dict:
        ax.set_yscale(self.yscale)
        lines = [
            ax.plot(
                data["x"],
                y,
                marker=self.marker or None,
                ms=3,
                lw=1.5,
                color=self.colors[i] if i < len(self.colors) else None,
                label=self.labels[i] if i < len(self.labels) else None,
            )[0]
            for i, y in enumerate(data["ys"])
        ]
        guides = [
            ax.axhline(
                y, color=self.guide_colors[i] if i < len(self.guide_colors) else "0.5", ls="--", lw=0.9, label=label
            )
            for i, (y, label) in enumerate(zip(data.get("guides", ()), self.guide_labels))
        ]
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
            ys = np.concatenate(
                [np.asarray(y, dtype=float).ravel() for y in data["ys"]]
                + [np.asarray(data.get("guides", ()), dtype=float)]
            )
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

    def __post_init__(self) -> None:
        for name in ("xlabel", "ylabel", "trail_label", "arrow_label"):
            _check_str(name, getattr(self, name))

    def draw(self, ax, data: dict) -> dict:
        t = np.linspace(0, 2 * math.pi, 200)
        ax.plot(np.cos(t), np.sin(t), color="0.85", lw=1)
        (trail,) = ax.plot(
            data["x"], data["y"], "o-", color="tab:blue", ms=3, lw=0.8, alpha=0.6, label=self.trail_label
        )
        (arrow,) = ax.plot([0, data["x"][-1]], [0, data["y"][-1]], color="tab:red", lw=2.5, label=self.arrow_label)
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
