"""Interactive explorers: ipywidgets controls driving matplotlib figures.

Every explorer

- declares its parameters (:class:`Param`) with their allowed values, so tests, benchmarks and
  the static companion can sweep them;
- draws once (:meth:`Explorer.draw`) and afterwards only updates its artists' data
  (:meth:`Explorer.redraw`), never rebuilding the figure;
- has a headless :meth:`Explorer.update` that validates, redraws and records an error message
  instead of raising, so a widget shows "base must be > 1, got 1" rather than a traceback;
- has :meth:`Explorer.static_companion`: small multiples of the same plot at a few settings,
  which is what a reader of the static HTML book sees (there is no kernel to redraw there).

The figure is a plain :class:`matplotlib.figure.Figure` rendered with the Agg canvas into an
``ipywidgets.Image``, so the explorer behaves the same in Jupyter, Colab and a headless test.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Sequence

import matplotlib.pyplot as plt
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ._validate import check_choice, check_even, check_float, check_int
from .absolute import sinusoidal_encoding
from .alibi import alibi_bias
from .decay import rope_decay_bound
from .relative import shaw_relative_index
from .rope import ROPE_TYPES, apply_rope, rope_cos_sin, rope_inv_freq, rope_scaled_inv_freq

__all__ = ["Param", "Explorer", "SinusoidalHeatmapExplorer", "SinusoidalSimilarityExplorer", "ShawIndexExplorer",
           "RopeRotationExplorer", "RopeCosSinExplorer", "RopeScoreExplorer", "DecayBoundExplorer",
           "AlibiBiasExplorer", "RopeScalingExplorer", "EXPLORERS"]


@dataclass(frozen=True)
class Param:
    """One explorer parameter and its allowed values.

    Args:
        name: keyword the explorer takes.
        default: initial value.
        kind: ``"int"``, ``"even"`` (even int), ``"float"``, ``"log"`` (positive float on a log scale) or
            ``"choice"`` (one of ``options``).
        low, high: inclusive bounds (``"float"``/``"log"``: ``low`` is exclusive when ``open_low``).
        step: slider step for ints.
        label: text beside the control.
        sweep: representative valid values for tests, benchmarks and companions.
    """

    name: str
    default: Any
    kind: str
    low: float
    high: float
    step: int = 1
    label: str = ""
    open_low: bool = False
    sweep: tuple = field(default_factory=tuple)
    options: tuple = field(default_factory=tuple)

    def validate(self, value: Any) -> Any:
        """Return the value converted to its kind, or raise ``ValueError``/``TypeError`` naming it."""
        if self.kind == "int":
            return check_int(self.name, value, min_value=int(self.low), max_value=int(self.high))
        if self.kind == "even":
            return check_even(self.name, value, min_value=int(self.low), max_value=int(self.high))
        if self.kind == "choice":
            return check_choice(self.name, value, self.options)
        if self.open_low:
            value = check_float(self.name, value, gt=self.low, le=self.high)
        else:
            value = check_float(self.name, value, ge=self.low, le=self.high)
        return value

    def values(self) -> tuple:
        """Representative valid values: the declared sweep, or low/default/high."""
        if self.sweep:
            return self.sweep
        if self.kind == "choice":
            return self.options
        return tuple(dict.fromkeys((self.low if not self.open_low else self.default, self.default, self.high)))


class Explorer:
    """Base class. Subclasses set ``params``, ``companion`` and implement draw/redraw."""

    params: ClassVar[tuple[Param, ...]] = ()
    companion: ClassVar[tuple[dict, ...]] = ()
    figsize: ClassVar[tuple[float, float]] = (6.0, 4.0)
    margins: ClassVar[dict] = {"left": 0.12, "right": 0.97, "bottom": 0.13, "top": 0.88}

    def __init__(self, **values: Any) -> None:
        unknown = set(values) - {p.name for p in self.params}
        if unknown:
            raise TypeError(f"unknown parameter(s) {sorted(unknown)}; allowed: {[p.name for p in self.params]}")
        self.values = {p.name: p.default for p in self.params}
        self.values.update({k: self.param(k).validate(v) for k, v in values.items()})
        self.data = self.compute(**self.values)
        # a fixed layout: a layout engine would re-solve the whole figure on every redraw
        self.fig = Figure(figsize=self.figsize, dpi=80)
        FigureCanvasAgg(self.fig)
        self.fig.subplots_adjust(**self.margins)
        self.ax = self.fig.add_subplot()
        self.artists = self.draw(self.ax, self.data, **self.values)
        self.error: str | None = None
        self._image = None
        self._message = None
        self._controls: dict[str, Any] = {}

    # -- to implement -------------------------------------------------------------------------
    def compute(self, **values: Any) -> Any:
        """Numbers to plot for these values (raises ValueError/TypeError on bad input)."""
        raise NotImplementedError

    def draw(self, ax, data: Any, **values: Any) -> dict:
        """Create the artists on ``ax``; return them by name."""
        raise NotImplementedError

    def redraw(self, ax, artists: dict, data: Any, **values: Any) -> None:
        """Update the artists' data in place."""
        raise NotImplementedError

    # -- shared behaviour ---------------------------------------------------------------------
    @classmethod
    def param(cls, name: str) -> Param:
        """The declared parameter called ``name``."""
        for p in cls.params:
            if p.name == name:
                return p
        raise KeyError(f"{cls.__name__} has no parameter {name!r}; it has {[p.name for p in cls.params]}")

    def update(self, **changes: Any) -> bool:
        """Validate ``changes``, recompute and redraw in place.

        Returns True on success. On bad input nothing changes, ``error`` holds the message and
        False is returned; the widget shows the message.
        """
        try:
            unknown = set(changes) - set(self.values)
            if unknown:
                raise TypeError(f"unknown parameter(s) {sorted(unknown)}")
            new = dict(self.values)
            new.update({k: self.param(k).validate(v) for k, v in changes.items()})
            data = self.compute(**new)
        except (ValueError, TypeError) as exc:
            self.error = str(exc)
            self._show_message()
            return False
        self.values, self.data, self.error = new, data, None
        self.redraw(self.ax, self.artists, data, **new)
        self._show_message()
        if self._image is not None:
            self._image.value = self.render_png()
        return True

    def render_png(self) -> bytes:
        """The current figure as PNG bytes (what the widget displays)."""
        buf = io.BytesIO()
        # light compression: encoding dominates the redraw time at the default level
        self.fig.savefig(buf, format="png", pil_kwargs={"compress_level": 1})
        return buf.getvalue()

    def _show_message(self) -> None:
        if self._message is not None:
            import html

            self._message.value = (
                "" if self.error is None else f"<span style='color:#b00020'>&#9888; {html.escape(self.error)}</span>"
            )

    def _control(self, p: Param):
        import ipywidgets as w

        style = {"description_width": "initial"}
        label = p.label or p.name
        if p.kind in ("int", "even"):
            return w.IntSlider(value=self.values[p.name], min=int(p.low), max=int(p.high),
                               step=2 if p.kind == "even" else p.step, description=label,
                               continuous_update=False, style=style)
        if p.kind == "choice":
            return w.Dropdown(options=list(p.options), value=self.values[p.name], description=label, style=style)
        # floats are typed, so a reader can try a bad value and see the message
        return w.FloatText(value=self.values[p.name], description=label, style=style)

    def widget(self):
        """An ``ipywidgets.VBox``: the controls, a message line and the figure."""
        import ipywidgets as w

        self._controls = {p.name: self._control(p) for p in self.params}
        self._message = w.HTML(value="")
        self._image = w.Image(value=self.render_png(), format="png")

        def on_change(change: dict) -> None:
            name = change["owner"]._posenc_name
            self.update(**{name: change["new"]})

        for name, control in self._controls.items():
            control._posenc_name = name
            control.observe(on_change, names="value")
        return w.VBox([w.HBox(list(self._controls.values())), self._message, self._image])

    @classmethod
    def static_companion(cls, settings: Sequence[dict] | None = None, *, ncols: int | None = None):
        """Small multiples of the plot at a few settings (default ``companion``).

        Returns a pyplot figure, so ``plt.show()`` displays it in a notebook.
        """
        settings = list(settings or cls.companion)
        if not settings:
            raise ValueError("settings must name at least one parameter setting")
        ncols = ncols or min(len(settings), 3)
        nrows = math.ceil(len(settings) / ncols)
        w, h = cls.figsize
        fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols * 0.75, h * nrows * 0.8), squeeze=False,
                                 layout="constrained")
        for ax, setting in zip(axes.flat, settings):
            values = {p.name: p.default for p in cls.params}
            values.update({k: cls.param(k).validate(v) for k, v in setting.items()})
            explorer = cls.__new__(cls)
            cls.draw(explorer, ax, cls.compute(explorer, **values), **values)
        for ax in list(axes.flat)[len(settings):]:
            ax.set_visible(False)
        return fig


class SinusoidalHeatmapExplorer(Explorer):
    """Heatmap of :func:`posenc.absolute.sinusoidal_encoding` over dimension, base and length."""

    params = (
        Param("d_model", 128, "even", 4, 512, label="d_model", sweep=(16, 64, 128, 512)),
        Param("base", 10000.0, "log", 1.0, 1e7, label="base", open_low=True, sweep=(10.0, 100.0, 10000.0, 1e6)),
        Param("length", 100, "int", 2, 1024, label="max length", sweep=(20, 100, 500)),
    )
    companion = (
        {"d_model": 32, "base": 10000.0},
        {"d_model": 128, "base": 10000.0},
        {"d_model": 128, "base": 100.0},
    )
    figsize = (6.0, 4.2)
    margins = {"left": 0.12, "right": 1.0, "bottom": 0.12, "top": 0.92}

    def compute(self, *, d_model: int, base: float, length: int) -> torch.Tensor:
        return sinusoidal_encoding(length, d_model, base)  # [length, d_model]

    def draw(self, ax, data: torch.Tensor, **values: Any) -> dict:
        image = ax.imshow(data.numpy(), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest",
                          origin="upper")
        ax.set_xlabel("encoding dimension")
        ax.set_ylabel("position p")
        ax.figure.colorbar(image, ax=ax, shrink=0.8)
        artists = {"image": image}
        self._set_text(ax, data, **values)
        return artists

    @staticmethod
    def _set_text(ax, data: torch.Tensor, *, d_model: int, base: float, length: int) -> None:
        ax.set_title(f"d_model={d_model}, base={base:g}: fast columns left", fontsize=10)

    def redraw(self, ax, artists: dict, data: torch.Tensor, **values: Any) -> None:
        _set_image(artists["image"], data.numpy())
        self._set_text(ax, data, **values)


class SinusoidalSimilarityExplorer(Explorer):
    """``PE(p) . PE(p + delta) / (d/2)`` against the distance ``delta``: falls, but not monotonically."""

    params = (
        Param("d_model", 128, "even", 2, 1024, label="d_model", sweep=(2, 16, 128, 512)),
        Param("base", 10000.0, "log", 1.0, 1e7, label="base", open_low=True, sweep=(100.0, 10000.0, 1e6)),
        Param("max_distance", 200, "int", 10, 5000, label="max distance", sweep=(50, 200, 2000)),
    )
    companion = (
        {"d_model": 16},
        {"d_model": 128},
        {"d_model": 128, "base": 100.0},
    )
    figsize = (6.0, 3.6)
    margins = {"left": 0.12, "right": 0.97, "bottom": 0.15, "top": 0.88}

    def compute(self, *, d_model: int, base: float, max_distance: int) -> dict:
        pe = sinusoidal_encoding(max_distance + 1, d_model, base, dtype=torch.float64)  # [D+1, d]
        sim = (pe @ pe[0]) / (d_model // 2)  # PE(0).PE(delta) = sum_i cos(omega_i delta), normalised
        return {"delta": torch.arange(max_distance + 1).numpy(), "sim": sim.numpy()}

    def draw(self, ax, data: dict, **values: Any) -> dict:
        line, = ax.plot(data["delta"], data["sim"], lw=1.2)
        ax.axhline(0, color="0.6", lw=0.8)
        ax.set_ylim(-0.3, 1.05)
        ax.set_xlabel("distance Δ = |p - q|")
        ax.set_ylabel("PE(p)·PE(q) / (d/2)")
        self._set_text(ax, data, **values)
        return {"line": line}

    @staticmethod
    def _set_text(ax, data: dict, *, d_model: int, base: float, max_distance: int) -> None:
        ax.set_title(f"d_model={d_model}, base={base:g}: falls with ripples", fontsize=10)

    def redraw(self, ax, artists: dict, data: dict, **values: Any) -> None:
        artists["line"].set_data(data["delta"], data["sim"])
        ax.set_xlim(0, values["max_distance"])
        self._set_text(ax, data, **values)


class ShawIndexExplorer(Explorer):
    """Shaw et al.'s relative label ``clip(j - i, -k, k) + k`` for every query ``i`` and key ``j``."""

    params = (
        Param("seq_len", 16, "int", 2, 128, label="sequence length", sweep=(2, 16, 64)),
        Param("max_distance", 4, "int", 0, 64, label="clip distance k", sweep=(0, 2, 4, 20)),
    )
    companion = (
        {"seq_len": 12, "max_distance": 1},
        {"seq_len": 12, "max_distance": 3},
        {"seq_len": 12, "max_distance": 11},
    )
    figsize = (5.0, 4.2)
    margins = {"left": 0.14, "right": 1.0, "bottom": 0.12, "top": 0.9}

    def compute(self, *, seq_len: int, max_distance: int) -> torch.Tensor:
        return shaw_relative_index(seq_len, max_distance)  # [L, L]

    def draw(self, ax, data: torch.Tensor, **values: Any) -> dict:
        k = values["max_distance"]
        image = ax.imshow(data.numpy() - k, cmap="coolwarm", vmin=-max(k, 1), vmax=max(k, 1),
                          interpolation="nearest")
        ax.set_xlabel("key position j")
        ax.set_ylabel("query position i")
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label="clip(j - i, -k, k)")
        self._set_text(ax, data, **values)
        return {"image": image}

    @staticmethod
    def _set_text(ax, data: torch.Tensor, *, seq_len: int, max_distance: int) -> None:
        ax.set_title(f"L={seq_len}, k={max_distance}: {2 * max_distance + 1} labels", fontsize=10)

    def redraw(self, ax, artists: dict, data: torch.Tensor, **values: Any) -> None:
        k = values["max_distance"]
        _set_image(artists["image"], data.numpy() - k)
        artists["image"].set_clim(-max(k, 1), max(k, 1))
        self._set_text(ax, data, **values)


class RopeRotationExplorer(Explorer):
    """One RoPE pair rotating as the position grows: the point ``(cos m theta_i, sin m theta_i)``."""

    params = (
        Param("head_dim", 64, "even", 2, 256, label="head_dim", sweep=(8, 64, 128)),
        Param("pair", 0, "int", 0, 127, label="pair i", sweep=(0, 4, 16)),
        Param("base", 10000.0, "log", 1.0, 1e7, label="base", open_low=True, sweep=(100.0, 10000.0, 500000.0)),
        Param("position", 12, "int", 0, 4096, label="position m", sweep=(0, 12, 200)),
    )
    companion = (
        {"pair": 0, "position": 12},
        {"pair": 4, "position": 12},
        {"pair": 16, "position": 200},
    )
    figsize = (4.4, 4.4)
    margins = {"left": 0.17, "right": 0.97, "bottom": 0.12, "top": 0.87}

    def compute(self, *, head_dim: int, pair: int, base: float, position: int) -> dict:
        if pair >= head_dim // 2:
            raise ValueError(f"pair must be < head_dim // 2 = {head_dim // 2}, got {pair}")
        theta = float(rope_inv_freq(head_dim, base).double()[pair])
        m = torch.arange(position + 1, dtype=torch.float64)
        angles = m * theta  # [position + 1]
        return {"theta": theta, "x": angles.cos().numpy(), "y": angles.sin().numpy()}

    def draw(self, ax, data: dict, **values: Any) -> dict:
        t = torch.linspace(0, 2 * math.pi, 200)
        ax.plot(t.cos(), t.sin(), color="0.85", lw=1)
        trail, = ax.plot(data["x"], data["y"], "o-", color="tab:blue", ms=3, lw=0.8, alpha=0.6, label="positions 0..m")
        arrow, = ax.plot([0, data["x"][-1]], [0, data["y"][-1]], color="tab:red", lw=2.5, label="position m")
        ax.set_xlim(-1.2, 1.2)
        ax.set_ylim(-1.2, 1.2)
        ax.set_aspect("equal")
        ax.set_xlabel("first coordinate of the pair")
        ax.set_ylabel("second coordinate of the pair")
        ax.legend(loc="lower left", fontsize=8)
        artists = {"trail": trail, "arrow": arrow}
        self._set_text(ax, data, **values)
        return artists

    @staticmethod
    def _set_text(ax, data: dict, *, head_dim: int, pair: int, base: float, position: int) -> None:
        turns = position * data["theta"] / (2 * math.pi)
        ax.set_title(f"pair {pair} of d={head_dim}, base {base:g}: θ={data['theta']:.3g} rad/step\n"
                     f"position {position} → {turns:.2f} turns", fontsize=9)

    def redraw(self, ax, artists: dict, data: dict, **values: Any) -> None:
        artists["trail"].set_data(data["x"], data["y"])
        artists["arrow"].set_data([0, data["x"][-1]], [0, data["y"][-1]])
        self._set_text(ax, data, **values)


def _set_image(image, data) -> None:
    """Replace an ``imshow`` image's data, adjusting the extent when the shape changes."""
    rows, cols = data.shape
    image.set_data(data)
    image.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))


class RopeCosSinExplorer(Explorer):
    """The ``cos(m theta_i)`` table of RoPE (half layout) over positions and pairs."""

    params = (
        Param("head_dim", 64, "even", 2, 256, label="head_dim", sweep=(8, 64, 128)),
        Param("base", 10000.0, "log", 1.0, 1e7, label="base", open_low=True, sweep=(100.0, 10000.0, 500000.0)),
        Param("length", 128, "int", 2, 2048, label="positions", sweep=(16, 128, 1024)),
    )
    companion = ({"head_dim": 64, "base": 100.0}, {"head_dim": 64}, {"head_dim": 64, "base": 500000.0})
    figsize = (6.0, 4.2)
    margins = {"left": 0.12, "right": 1.0, "bottom": 0.12, "top": 0.92}

    def compute(self, *, head_dim: int, base: float, length: int) -> torch.Tensor:
        cos, _ = rope_cos_sin(length, head_dim, base, layout="half")  # [L, d]
        return cos[:, : head_dim // 2]  # [L, d/2]: one column per pair

    def draw(self, ax, data: torch.Tensor, **values: Any) -> dict:
        image = ax.imshow(data.numpy(), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
        ax.set_xlabel("pair i (frequency θ_i falls to the right)")
        ax.set_ylabel("position m")
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label="cos(m θ_i)")
        self._set_text(ax, data, **values)
        return {"image": image}

    @staticmethod
    def _set_text(ax, data: torch.Tensor, *, head_dim: int, base: float, length: int) -> None:
        ax.set_title(f"cos(m θ_i), head_dim={head_dim}, base={base:g}", fontsize=10)

    def redraw(self, ax, artists: dict, data: torch.Tensor, **values: Any) -> None:
        _set_image(artists["image"], data.numpy())
        self._set_text(ax, data, **values)


class RopeScoreExplorer(Explorer):
    """Scores ``q_m . k_n`` for one query vector and one key vector placed at every position.

    Without RoPE every entry is the same number; with RoPE the matrix is constant along diagonals
    (a function of ``n - m`` only), and the pattern depends on ``head_dim`` and ``base``.
    """

    params = (
        Param("head_dim", 64, "even", 2, 256, label="head_dim", sweep=(8, 64, 128)),
        Param("base", 10000.0, "log", 1.0, 1e7, label="base", open_low=True, sweep=(100.0, 10000.0, 500000.0)),
        Param("length", 48, "int", 2, 256, label="positions", sweep=(8, 48, 200)),
        Param("seed", 0, "int", 0, 1000, label="random q, k seed", sweep=(0, 1, 7)),
        Param("rope", 1, "int", 0, 1, label="RoPE on (1) / off (0)", sweep=(0, 1)),
    )
    companion = ({"rope": 0}, {"rope": 1}, {"rope": 1, "head_dim": 8})
    figsize = (5.2, 4.4)
    margins = {"left": 0.14, "right": 1.0, "bottom": 0.12, "top": 0.9}

    def compute(self, *, head_dim: int, base: float, length: int, seed: int, rope: int) -> torch.Tensor:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(2, head_dim, generator=g, dtype=torch.float64)
        qs, ks = q.expand(length, head_dim), k.expand(length, head_dim)  # same content everywhere
        if rope:
            cos, sin = rope_cos_sin(length, head_dim, base, dtype=torch.float64)
            qs, ks = apply_rope(qs, cos, sin), apply_rope(ks, cos, sin)
        return (qs @ ks.T) / head_dim**0.5  # [L, L]

    def draw(self, ax, data: torch.Tensor, **values: Any) -> dict:
        limit = float(data.abs().max()) or 1.0
        image = ax.imshow(data.numpy(), cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
        ax.set_xlabel("key position n")
        ax.set_ylabel("query position m")
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label="q_m · k_n / √d")
        self._set_text(ax, data, **values)
        return {"image": image}

    @staticmethod
    def _set_text(ax, data: torch.Tensor, *, head_dim: int, base: float, length: int, seed: int, rope: int) -> None:
        what = f"RoPE, d={head_dim}, base={base:g}: constant along diagonals" if rope else "no RoPE: one value"
        ax.set_title(what, fontsize=10)

    def redraw(self, ax, artists: dict, data: torch.Tensor, **values: Any) -> None:
        limit = float(data.abs().max()) or 1.0
        _set_image(artists["image"], data.numpy())
        artists["image"].set_clim(-limit, limit)
        self._set_text(ax, data, **values)


class DecayBoundExplorer(Explorer):
    """RoFormer's relative upper bound ``(1/(d/2)) sum_j |S_j|`` against the distance."""

    params = (
        Param("head_dim", 128, "even", 2, 512, label="head_dim", sweep=(16, 64, 128)),
        Param("base", 10000.0, "log", 1.0, 1e7, label="base", open_low=True, sweep=(100.0, 10000.0, 500000.0)),
        Param("max_distance", 1000, "int", 10, 20000, label="max distance", sweep=(100, 1000, 10000)),
    )
    companion = ({"head_dim": 128}, {"head_dim": 128, "base": 500000.0}, {"head_dim": 32})
    figsize = (6.0, 3.8)
    margins = {"left": 0.12, "right": 0.97, "bottom": 0.14, "top": 0.88}

    def compute(self, *, head_dim: int, base: float, max_distance: int) -> dict:
        r = torch.linspace(0, max_distance, 800, dtype=torch.float64)
        return {"r": r.numpy(), "bound": rope_decay_bound(head_dim, r, base).numpy()}

    def draw(self, ax, data: dict, **values: Any) -> dict:
        line, = ax.plot(data["r"], data["bound"], lw=1.2)
        ax.set_xlabel("relative distance r")
        ax.set_ylabel("relative upper bound")
        self._set_text(ax, data, **values)
        return {"line": line}

    @staticmethod
    def _set_text(ax, data: dict, *, head_dim: int, base: float, max_distance: int) -> None:
        ax.set_title(f"head_dim={head_dim}, base={base:g}", fontsize=10)

    def redraw(self, ax, artists: dict, data: dict, **values: Any) -> None:
        artists["line"].set_data(data["r"], data["bound"])
        ax.set_xlim(0, values["max_distance"])
        ax.set_ylim(0, float(data["bound"].max()) * 1.05)
        self._set_text(ax, data, **values)


class AlibiBiasExplorer(Explorer):
    """One head's ALiBi bias ``-m_h |j - i|`` (with the causal mask) for a chosen head count."""

    params = (
        Param("n_heads", 8, "int", 1, 64, label="heads", sweep=(1, 8, 12, 16)),
        Param("head", 0, "int", 0, 63, label="head h", sweep=(0, 3, 7)),
        Param("seq_len", 32, "int", 2, 256, label="sequence length", sweep=(8, 32, 128)),
        Param("causal", "causal", "choice", 0, 0, label="mask", options=("causal", "bidirectional")),
    )
    companion = ({"head": 0}, {"head": 3}, {"head": 7})
    figsize = (5.2, 4.4)
    margins = {"left": 0.14, "right": 1.0, "bottom": 0.12, "top": 0.9}

    def compute(self, *, n_heads: int, head: int, seq_len: int, causal: str) -> torch.Tensor:
        if head >= n_heads:
            raise ValueError(f"head must be < n_heads = {n_heads}, got {head}")
        bias = alibi_bias(n_heads, seq_len, causal=causal == "causal")[head]  # [L, L]
        return bias.masked_fill(torch.isinf(bias), float("nan"))  # masked entries drawn blank

    def draw(self, ax, data: torch.Tensor, **values: Any) -> dict:
        image = ax.imshow(data.numpy(), cmap="viridis", interpolation="nearest")
        ax.set_xlabel("key position j")
        ax.set_ylabel("query position i")
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label="bias added to the logit")
        self._set_text(ax, data, **values)
        self._scale(image, data)
        return {"image": image}

    @staticmethod
    def _scale(image, data: torch.Tensor) -> None:
        low = float(torch.nan_to_num(data, nan=0.0).min())
        image.set_clim(min(low, -1e-3), 0.0)

    @staticmethod
    def _set_text(ax, data: torch.Tensor, *, n_heads: int, head: int, seq_len: int, causal: str) -> None:
        slope = float(alibi_bias(n_heads, 2, causal=False)[head, 0, 1].neg())
        ax.set_title(f"head {head} of {n_heads}: slope m = {slope:.4g} ({causal})", fontsize=10)

    def redraw(self, ax, artists: dict, data: torch.Tensor, **values: Any) -> None:
        _set_image(artists["image"], data.numpy())
        self._scale(artists["image"], data)
        self._set_text(ax, data, **values)


class RopeScalingExplorer(Explorer):
    """How each context-extension method rescales RoPE's frequencies, pair by pair."""

    params = (
        Param("rope_type", "yarn", "choice", 0, 0, label="scaling", options=ROPE_TYPES[1:]),
        Param("factor", 4.0, "float", 1.0, 64.0, label="factor s", sweep=(1.0, 2.0, 4.0, 16.0)),
        Param("head_dim", 128, "even", 4, 256, label="head_dim", sweep=(16, 64, 128)),
        Param("original_length", 4096, "int", 16, 131072, label="trained length", sweep=(64, 2048, 8192)),
    )
    companion = ({"rope_type": "linear"}, {"rope_type": "yarn"}, {"rope_type": "llama3"})
    figsize = (6.0, 3.8)
    margins = {"left": 0.13, "right": 0.97, "bottom": 0.14, "top": 0.88}

    def compute(self, *, rope_type: str, factor: float, head_dim: int, original_length: int) -> dict:
        default = rope_inv_freq(head_dim).double()
        base = 500000.0 if rope_type == "llama3" else 10000.0
        if rope_type == "llama3":
            default = rope_inv_freq(head_dim, base).double()
        scaled, _ = rope_scaled_inv_freq(head_dim, base, rope_type=rope_type, factor=factor,
                                         original_max_position_embeddings=original_length,
                                         seq_len=int(factor * original_length))
        return {"pair": torch.arange(head_dim // 2).numpy(), "ratio": (scaled.double() / default).numpy(),
                "base": base}

    def draw(self, ax, data: dict, **values: Any) -> dict:
        line, = ax.plot(data["pair"], data["ratio"], "o-", ms=3)
        guide = ax.axhline(1 / values["factor"], color="0.6", ls="--", lw=0.8, label="1 / s (interpolate)")
        ax.axhline(1.0, color="0.6", lw=0.8)
        ax.set_ylim(0, 1.08)
        ax.set_xlabel("pair i (low frequency to the right)")
        ax.set_ylabel("scaled θ_i / original θ_i")
        ax.legend(loc="lower left", fontsize=8)
        self._set_text(ax, data, **values)
        return {"line": line, "guide": guide}

    @staticmethod
    def _set_text(ax, data: dict, *, rope_type: str, factor: float, head_dim: int, original_length: int) -> None:
        ax.set_title(f"{rope_type}, s = {factor:g}, d = {head_dim}, trained length {original_length}, "
                     f"base {data['base']:g}", fontsize=9)

    def redraw(self, ax, artists: dict, data: dict, **values: Any) -> None:
        artists["line"].set_data(data["pair"], data["ratio"])
        artists["guide"].set_ydata([1 / values["factor"]] * 2)
        ax.set_xlim(-1, len(data["pair"]))
        self._set_text(ax, data, **values)


EXPLORERS: dict[str, Callable[..., Explorer]] = {
    "sinusoidal_heatmap": SinusoidalHeatmapExplorer,
    "sinusoidal_similarity": SinusoidalSimilarityExplorer,
    "shaw_index": ShawIndexExplorer,
    "rope_rotation": RopeRotationExplorer,
    "rope_cos_sin": RopeCosSinExplorer,
    "rope_scores": RopeScoreExplorer,
    "decay_bound": DecayBoundExplorer,
    "alibi_bias": AlibiBiasExplorer,
    "rope_scaling": RopeScalingExplorer,
}
