"""The explorers' plot kinds: each draws its artists once and afterwards only updates their data.

An explorer names one plot kind (:class:`Heatmap`, :class:`Curves`, :class:`Rotation`); its
``compute`` returns the data that kind understands. ``draw`` builds the figure's artists once,
``redraw`` moves them to new data without new artists or a new layout, which is what lets the
layered canvas (:mod:`posenc.explorers.canvas`) redraw only what changed. The static companion
draws its small multiples with the same ``draw``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .params import nice_ceil

__all__ = ["Plot", "Heatmap", "Curves", "Rotation"]


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

