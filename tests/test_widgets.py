"""The explorers (posenc.explorers): every declared value draws, nothing is cut off, bad values
give a message and keep the last good value, dependent ranges follow, the kernel-less frame
widget reaches every frame, and the page-weight budget holds."""

import itertools
import json
import math
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from posenc.explorers import (  # noqa: E402
    BASE,
    EXPLORERS,
    HEAD_DIM,
    HTML_SCALE,
    LIVE_SCALE,
    MIN_SLIDER_PX,
    PX_PER_INCH,
    AlibiBiasExplorer,
    DecayBoundExplorer,
    Param,
    RopeRotationExplorer,
    RopeScalingExplorer,
    RopeScoreExplorer,
    SinusoidalHeatmapExplorer,
    SinusoidalSimilarityExplorer,
)

ROOT = Path(__file__).resolve().parents[1]
#: Budget of the kernel-less explorers' embedded state on one page (issue 14), bytes.
PAGE_BUDGET = 3_000_000


def _texts_inside(explorer) -> None:
    """Every drawn text (titles, labels, tick labels, colour-bar label, legend) lies inside the canvas."""
    fig = explorer.fig
    explorer.draw()
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    tight = fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans)  # display pixels
    assert tight.x0 >= -1 and tight.y0 >= -1 and tight.x1 <= width + 1 and tight.y1 <= height + 1, (
        explorer.values,
        tight,
        (width, height),
    )
    texts = [explorer.ax.title, explorer.ax.xaxis.label, explorer.ax.yaxis.label]
    texts += [ax.yaxis.label for ax in fig.axes if ax is not explorer.ax]  # colour bars
    legend = explorer.ax.get_legend()
    texts += legend.get_texts() if legend else []
    for text in texts:
        if text.get_visible() and text.get_text().strip():
            box = text.get_window_extent(renderer)
            assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1, (
                text.get_text(),
                explorer.values,
                box,
            )


def _drawn_state(explorer) -> tuple:
    """What the boxes ``_texts_inside`` measures follow from: the values (the data, every text), the
    figure's size and each axes' drawn box, view limits and scales (after a draw: a new layout moves
    the boxes). Two draws with the same state have the same text boxes, so one is measured."""
    fig = explorer.fig
    axes = tuple(
        (
            tuple(ax.get_position(original=False).bounds),
            ax.get_xlim(),
            ax.get_ylim(),
            ax.get_xscale(),
            ax.get_yscale(),
            ax.get_visible(),
        )
        for ax in fig.axes
    )
    return (tuple(explorer.values.items()), tuple(fig.bbox.bounds), fig.dpi, axes)


def _ipywidgets_major() -> int:
    try:
        import ipywidgets
    except ImportError:
        return 0
    return int(ipywidgets.__version__.split(".")[0])


#: Tests of mechanisms that exist in ipywidgets 8 only; the `widgets` extra also allows 7.7
#: (Colab), where the explorers work without them (`make test`'s Colab-like stage).
needs_ipywidgets_8 = pytest.mark.skipif(_ipywidgets_major() < 8, reason="needs ipywidgets 8 (installed: 7)")


def _layered():
    from posenc.explorers.canvas import layered_drawing_supported

    return layered_drawing_supported()


#: Tests of the layered drawing itself; with an untested matplotlib it is off (matplotlib draws).
needs_layered_canvas = pytest.mark.skipif(not _layered(), reason="untested matplotlib: layered drawing is off")


def _range_ends(p, values: dict) -> tuple:
    """The two ends of the control of ``p`` (the live widget's slider, menu or toggle) when the
    other parameters hold ``values``: a dependent maximum (``head < n_heads``) included."""
    if p.kind == "choice":
        return (p.options[0], p.options[-1])
    if p.kind == "bool":
        return (False, True)
    if p.kind == "log":  # an open lower bound: the slider starts at 2 * low (explorers.live._LiveUI._cell)
        return (p.low * 10**0.3 if p.open_low else p.low, p.high)
    low, high = p.low, p.high
    if p.kind in ("int", "even"):
        low, high = int(max(low, 1) if p.log else low), int(high)
        low += low % 2 if p.kind == "even" else 0
        bound = p.bound(values)
        high = min(high, bound - 1) if bound is not None else high
    return (low, high)


def _one_at_a_time(cls):
    """(parameter, value) pairs: every sweep and frame value of every parameter, and both ends of
    each control's range (the other parameters at their defaults)."""
    for p in cls.params:
        for value in dict.fromkeys((*p.values(), *p.frames, *_range_ends(p, cls.defaults()))):
            yield p, value


def _with_dependents(cls, values: dict, name: str, value) -> dict:
    """The change of ``name`` to ``value`` as the live widget makes it: a parameter whose maximum
    follows ``name`` (``pair < head_dim // 2``) moves down to its new limit."""
    changes = {name: value}
    for q in cls.params:
        if q.limit is not None and q.limit[0] == name:
            changes[q.name] = min(values[q.name], q.limit[1](value) - 1)
    return changes


@pytest.mark.parametrize("live", [False, True], ids=["title-in-figure", "title-outside"])
@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_every_declared_value_draws_inside_the_canvas(name, live):
    """At the scale each face is drawn at (the live widget: LIVE_SCALE, title above the image; the
    HTML book's frames: HTML_SCALE, title in the figure): the layout is in figure fractions and
    points, but the tick labels that fit, and so the layout, change with the scale."""
    cls = EXPLORERS[name]
    explorer = cls(scale=LIVE_SCALE if live else HTML_SCALE)
    if live:  # as the live widget draws it: the title is HTML above the image
        explorer.title_outside()
        assert explorer.ax.get_title() == ""
    artists_before = [id(a) for a in explorer.canvas.data]
    _texts_inside(explorer)
    checked = {_drawn_state(explorer)}
    for p, value in _one_at_a_time(cls):
        explorer.update(**cls.defaults())
        bound = p.bound(explorer.values)
        ok = explorer.update(**_with_dependents(cls, explorer.values, p.name, value))
        assert ok == (bound is None or value < bound), explorer.error
        if ok:
            assert explorer.values[p.name] == value
            explorer.draw()  # always drawn: a draw may lay the figure out again
            state = _drawn_state(explorer)
            if state not in checked:  # the same figure measured before gives the same boxes
                _texts_inside(explorer)
                checked.add(state)
    assert explorer.render_png().startswith(b"\x89PNG")
    if not explorer.canvas.layered:  # an untested matplotlib: matplotlib draws, nothing more to check
        return explorer.close()
    # redraw updated the same artists; it did not rebuild the figure
    assert [id(a) for a in explorer.canvas.data] == artists_before
    # the figure was laid out again only when a new tick label or title needed the room: at most
    # once per swept value (a loop of layouts would show here), and never on the way back
    assert explorer.canvas.counts["layout"] <= 2 + sum(1 for _ in _one_at_a_time(cls))
    explorer.close()


def _matplotlib_draw(explorer) -> np.ndarray:
    """The figure as matplotlib draws it on its own (nothing animated, no layers)."""
    animated = [a for a in explorer.fig.findobj() if a.get_animated()]
    for a in animated:
        a.set_animated(False)
    explorer.fig.canvas.draw()
    # int16: channel differences of uint8 (-255..255) exactly, in a quarter of int64's memory traffic
    full = np.asarray(explorer.fig.canvas.buffer_rgba())[..., :3].astype(np.int16)
    for a in animated:
        a.set_animated(True)
    return full


def _cell_edges(explorer, shape) -> np.ndarray:
    """Pixels where nearest sampling may give either neighbouring cell: next to a change of cell
    in the painted image, and its outermost ring (under the spines' anti-aliasing)."""
    from posenc.explorers.canvas import image_index

    edges = np.zeros(shape[:2], bool)
    image = explorer.artists.get("image")
    index = image_index(image, shape) if image is not None else None
    if index is None:
        return edges
    rows, cols, row, col = index
    e = np.zeros((row.size, col.size), bool)
    step_r, step_c = row[1:] != row[:-1], col[1:] != col[:-1]
    e[1:] |= step_r[:, None]
    e[:-1] |= step_r[:, None]
    e[:, 1:] |= step_c[None, :]
    e[:, :-1] |= step_c[None, :]
    e[[0, -1], :] = True
    e[:, [0, -1]] = True
    edges[rows, cols] = e
    return edges


@needs_layered_canvas
@pytest.mark.parametrize("live", [False, True], ids=["title-in-figure", "title-outside"])
@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_layered_canvas_equals_matplotlibs_drawing(name, live):
    """Background + data + cached overlays give matplotlib's own picture: every channel within 2
    levels of 255 (alpha compositing rounds), except image pixels on a cell boundary."""
    cls = EXPLORERS[name]
    explorer = cls(scale=1.0)
    if live:
        explorer.title_outside()
    checked = 0
    for p in cls.params:
        for value in p.values()[:3]:
            if not explorer.update(**{p.name: value}):
                continue
            explorer.draw()
            layered = explorer.canvas.rgb().astype(np.int16)
            full = _matplotlib_draw(explorer)
            off = np.abs(layered - full).max(axis=2) > 2
            off &= ~_cell_edges(explorer, layered.shape)
            assert not off.any(), (p.name, value, int(off.sum()), np.argwhere(off)[:5].tolist())
            checked += 1
    assert checked >= 3
    explorer.close()


@needs_layered_canvas
def test_an_axis_that_does_not_move_is_not_drawn_again():
    """A change of base keeps both axes of RoPE's cos table: no overlay is rendered again; a
    longer table moves the y axis and the spines (their ends follow the view limits) only."""
    from posenc.explorers import RopeCosSinExplorer

    explorer = RopeCosSinExplorer()
    explorer.title_outside()
    explorer.render_png()
    before = dict(explorer.canvas.counts)
    for base in (500.0, 2000.0, 50000.0):
        assert explorer.update(base=base)
        explorer.render_png()
    assert explorer.canvas.counts == before
    assert explorer.update(length=129)
    explorer.render_png()
    assert explorer.canvas.counts["background"] == before["background"]
    spines = sum(s.get_visible() for s in explorer.canvas.data[0].axes.spines.values())
    # the y axis (and its label, if it moved), and the spines
    assert explorer.canvas.counts["overlay"] - before["overlay"] - spines in (1, 2)
    explorer.close()


@needs_layered_canvas
@pytest.mark.parametrize("family", ["DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono"])
@pytest.mark.parametrize("size", [6, 9.5, 14, 22])
@pytest.mark.parametrize("dpi", [72, 96, 150])
def test_cached_font_height_metrics_lay_text_out_as_matplotlib_does(family, size, dpi):
    """``font_height_metrics`` (handed to the renderer, which matplotlib then asks) gives every
    text, one line or several, rotated or not, exactly the layout matplotlib computes itself."""
    import functools

    import matplotlib.pyplot as plt

    from posenc.explorers.canvas import font_height_metrics

    fig = plt.figure(figsize=(3, 2), dpi=dpi)
    texts = [
        fig.text(0.1, 0.5, s, family=family, fontsize=size, rotation=r)
        for s in ("0", "relative distance m - n", "two\nlines gj", "")
        for r in (0, 90)
    ]
    renderer = fig.canvas.get_renderer()
    assert "_get_font_height_metrics" not in vars(renderer)
    before = [(repr(t._get_layout(renderer)), t.get_window_extent(renderer).bounds) for t in texts]
    renderer._get_font_height_metrics = functools.partial(font_height_metrics, dpi=renderer.dpi)
    after = [(repr(t._get_layout(renderer)), t.get_window_extent(renderer).bounds) for t in texts]
    assert after == before
    plt.close(fig)


class _StubComm:
    """Records what a widget sends (a comm to a kernel that is not there)."""

    kernel = True
    comm_id = "stub"

    def __init__(self, who: str, sent: list) -> None:
        self.who, self.sent = who, sent

    def send(self, data=None, buffers=None, **kwargs):
        self.sent.append((self.who, data.get("method"), sorted(data.get("state", {}))))

    def on_msg(self, callback):
        pass

    def close(self, *args, **kwargs):
        pass


@needs_ipywidgets_8
@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_a_reader_s_change_sends_the_figure_first_and_no_echo(name):
    """When the browser sends a control's new value, the kernel's first message is the new figure:
    no echo of the value (ipywidgets 8 sends one ahead of everything else by default, which the
    stock slider below still does), then the box showing the value."""
    import ipywidgets as w

    from posenc.explorers.live import _LiveUI

    ui = _LiveUI(EXPLORERS[name]())
    sent: list = []
    ui.figure.comm = _StubComm("figure", sent)
    p = ui.explorer.params[0]  # a slider (its box then shows the value) or a menu
    for kind, widget in ui.controls[p.name].items():
        widget.comm = _StubComm(kind, sent)
    control = ui.controls[p.name].get("slider", ui.controls[p.name]["input"])
    new = next(v for v in (p.options or p.values()) if v != ui.explorer.values[p.name])
    if isinstance(control, w.Dropdown):  # a menu syncs its index
        control.set_state({"index": list(control.options).index(new)})
    else:
        control.set_state({"value": math.log10(new) if isinstance(control, w.FloatLogSlider) else new})
    assert sent and sent[0] == ("figure", "update", ["value"]), sent
    assert not [m for m in sent if m[1] == "echo_update"], sent
    if "slider" in ui.controls[p.name]:
        assert ("input", "update", ["value"]) in sent, sent
    stock, stock_sent = w.IntSlider(), []
    stock.comm = _StubComm("stock", stock_sent)
    stock.set_state({"value": 3})
    assert stock_sent == [("stock", "echo_update", ["value"])]
    ui.explorer.close()


def _pixels(explorer) -> bytes:
    """The figure drawn (:meth:`Explorer.draw`), as its RGBA bytes: equal exactly when the PNGs of
    ``render_png`` are (a lossless, deterministic encoding of the same buffer), without encoding."""
    explorer.draw()
    return explorer.canvas.rgba().tobytes()


@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_live_widget_image_then_rendering_ahead_changes_no_pixel(name):
    """The live widget's image is rendered at its display size times the pixel ratio, and every
    slider track keeps its minimum width. Then (layered drawing only) ``Explorer.prefetch`` of the
    settings one step away leaves the figure as it was, and after any of those steps the figure is
    the same as in a twin explorer that never rendered ahead (same history), with fewer overlays
    rendered by the step itself (none, unless it lays the figure out again). One test: the first
    explorer's widget is both the one measured and the twin that never renders ahead."""
    pytest.importorskip("ipywidgets")
    from PIL import Image

    from posenc.explorers.live import _LiveUI

    plain = EXPLORERS[name]()
    plain.widget()  # builds its _LiveUI
    img = _figure_img(plain._ui.figure.value)
    width, height = Image.open(__import__("io").BytesIO(img["png"])).size
    css_w, css_h = img["width"], img["height"]
    assert img["png"] == plain._ui.png  # the image shown is the figure just drawn
    assert (css_w, css_h) == (round(plain.figsize[0] * PX_PER_INCH), round(plain.figsize[1] * PX_PER_INCH))
    assert abs(width - css_w * LIVE_SCALE) <= 1 and abs(height - css_h * LIVE_SCALE) <= 1
    assert css_h <= 480  # a tall figure leaves room for its controls on one screen
    # every slider track keeps its minimum width
    sliders = [parts["slider"] for parts in plain._ui.controls.values() if "slider" in parts]
    assert all(int(s.layout.min_width.removesuffix("px")) >= MIN_SLIDER_PX for s in sliders)
    if not plain.canvas.layered:
        plain.close()
        pytest.skip("untested matplotlib: layered drawing is off (rendering ahead not checked)")

    ahead = EXPLORERS[name]()
    ui = _LiveUI(ahead)  # no running event loop here: nothing is rendered ahead by itself
    shown = _pixels(ahead)
    assert _pixels(plain) == shown
    steps = ui.steps()
    assert steps, name
    cold = warm = 0
    for changes in steps:
        before = ahead.canvas.counts["overlay"]
        assert sum(ahead.prefetch(**each) for each in steps) == ahead.canvas.counts["overlay"] - before
        assert _pixels(ahead) == shown, (name, "rendering ahead changed the figure")
        counted = plain.canvas.counts["overlay"], ahead.canvas.counts["overlay"]
        assert plain.update(**changes) and ahead.update(**changes)
        assert _pixels(ahead) == _pixels(plain), (name, changes)
        cold += plain.canvas.counts["overlay"] - counted[0]
        warm += ahead.canvas.counts["overlay"] - counted[1]
        assert plain.update(**plain.defaults()) and ahead.update(**ahead.defaults())
        shown = _pixels(ahead)
        assert _pixels(plain) == shown
    assert warm <= cold and (cold == 0 or warm < cold), (name, cold, warm)
    plain.close(), ahead.close()


def test_steps_are_what_the_controls_give():
    """One arrow key on each slider (either way, within its current maximum), the neighbouring
    menu items, a toggle's click; the parameter changed last first; a dependent value is moved to
    its new limit as a real change would move it."""
    from posenc.explorers import RopeCosSinExplorer
    from posenc.explorers.live import _LiveUI

    ui = _LiveUI(RopeRotationExplorer())
    values = ui.explorer.values
    steps = ui.steps()
    head_dim = [s["head_dim"] for s in steps if "head_dim" in s]
    assert sorted(head_dim) == [values["head_dim"] - 2, values["head_dim"] + 2]
    pair = [s["pair"] for s in steps if list(s) == ["pair"]]
    assert sorted(pair) == [v for v in (values["pair"] - 1, values["pair"] + 1) if 0 <= v < values["head_dim"] // 2]
    base = sorted(s["base"] for s in steps if "base" in s)
    assert base == pytest.approx([values["base"] * 10**-0.01, values["base"] * 10**0.01])
    ui.set("pair", values["head_dim"] // 2 - 1)  # at its maximum: a smaller head_dim moves it down
    smaller = next(s for s in ui.steps() if s.get("head_dim", 10**9) < values["head_dim"])
    assert smaller["pair"] == smaller["head_dim"] // 2 - 1
    ui._last = "base"
    assert list(ui.steps()[0]) == ["base"]
    alibi = _LiveUI(AlibiBiasExplorer())
    causal = [s for s in alibi.steps() if "causal" in s]
    assert causal == [{"causal": not alibi.explorer.values["causal"]}]
    cos_sin = _LiveUI(RopeCosSinExplorer())
    assert all(len(s) == 1 for s in cos_sin.steps())
    for explorer in (ui.explorer, alibi.explorer, cos_sin.explorer):
        explorer.close()


@needs_layered_canvas
def test_rendering_ahead_waits_for_the_reader_and_an_input_cancels_it():
    """With the kernel's event loop running, building the widget schedules the rendering ahead
    ``PREFETCH_DELAY_S`` later; an input cancels what is pending and schedules it again; it runs
    one step per turn of the loop and then stops. Without a running loop nothing is scheduled."""
    import asyncio

    from posenc.explorers import RopeCosSinExplorer
    from posenc.explorers.live import PREFETCH_DELAY_S, _LiveUI

    assert _LiveUI(RopeCosSinExplorer())._prefetch is None

    async def scenario():
        explorer = RopeCosSinExplorer()
        ui = _LiveUI(explorer)
        first = ui._prefetch
        assert isinstance(first, asyncio.TimerHandle)
        assert first.when() - asyncio.get_running_loop().time() == pytest.approx(PREFETCH_DELAY_S, abs=0.05)
        rendered = explorer.canvas.counts["overlay"]
        ui.controls["length"]["slider"].value = explorer.values["length"] + 1  # what a reader's input does
        assert first.cancelled() and ui._prefetch is not first and not ui._prefetch.cancelled()
        assert explorer.canvas.counts["overlay"] > rendered  # the change itself drew the moved axis
        rendered = explorer.canvas.counts["overlay"]
        # the steps take what the machine gives them (a fixed 0.5 s was too short on a loaded 2-core
        # machine): wait until they are done, and fail if they never stop
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PREFETCH_DELAY_S + 120
        await asyncio.sleep(PREFETCH_DELAY_S)
        while ui._prefetch is not None and loop.time() < deadline:
            await asyncio.sleep(0.05)
        assert ui._prefetch is None  # every step done
        assert explorer.canvas.counts["overlay"] > rendered  # the lengths one step away: their y axes
        rendered = explorer.canvas.counts["overlay"]
        ui.controls["length"]["slider"].value = explorer.values["length"] + 1
        assert explorer.canvas.counts["overlay"] == rendered  # rendered ahead: no axis drawn now
        explorer.close()
        assert ui._prefetch is None

    asyncio.run(scenario())


@pytest.mark.parametrize("shape", [(1, 1, 4), (3, 5, 4), (420, 640, 4)])
def test_png_rgba_round_trips(shape):
    import io

    from PIL import Image

    from posenc.explorers.canvas import png_rgba

    rgba = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    decoded = np.asarray(Image.open(io.BytesIO(png_rgba(rgba))))
    assert decoded.shape == shape and (decoded == rgba).all()


def test_shared_params_are_declared_once():
    for cls in EXPLORERS.values():
        for p in cls.params:
            if p.name == "base":
                assert (p.kind, p.low, p.high, p.open_low) == (BASE.kind, BASE.low, BASE.high, BASE.open_low)
            if p.name == "head_dim":
                assert p.kind == HEAD_DIM.kind == "even"
    assert BASE.kind == "log"


def test_sinusoidal_update_changes_image_data():
    e = SinusoidalHeatmapExplorer()
    assert e.update(d_model=32, length=50)
    assert e.artists["image"].get_array().shape == (50, 32)
    assert "d_model=32" in e.ax.get_title()


@pytest.mark.parametrize(
    "changes,fragment",
    [
        ({"base": 1.0}, "base must be > 1"),
        ({"base": -5.0}, "base must be > 1"),
        ({"base": float("inf")}, "base must be finite"),
        ({"base": 2e7}, "base must be <= 1e+07"),
        ({"d_model": 7}, "d_model must be even"),
        ({"length": 0}, "length must be >= 2"),
        ({"length": 5000}, "length must be <= 1024"),
        ({"colour": 3}, "unknown parameter"),
    ],
)
def test_bad_values_give_a_message_not_a_traceback(changes, fragment):
    e = SinusoidalHeatmapExplorer()
    before = dict(e.values)
    assert e.update(**changes) is False
    assert fragment in e.error
    assert e.values == before  # nothing changed
    assert e.update(base=500.0) and e.error is None


def test_rope_pair_out_of_range_message():
    e = RopeRotationExplorer(head_dim=8)
    assert not e.update(pair=4)
    assert "pair must be < head_dim // 2 = 4" in e.error and e.error_param == "pair"


def test_rope_rotation_point_is_on_the_circle_at_m_theta():
    e = RopeRotationExplorer(head_dim=8, pair=1, base=10000.0, position=30)
    x, y = e.artists["arrow"].get_data()
    theta = 10000.0 ** (-2 / 8)
    assert x[-1] == pytest.approx(math.cos(30 * theta)) and y[-1] == pytest.approx(math.sin(30 * theta))


def _ui_classes(widget, found=None):
    found = found if found is not None else []
    found.append((widget, set(getattr(widget, "_dom_classes", ()))))
    for child in getattr(widget, "children", ()):
        _ui_classes(child, found)
    return found


def _figure_img(figure_html: str) -> dict:
    """The live figure's <img>: its CSS width and height and the PNG bytes of its data URL."""
    import base64

    m = re.search(
        r"<img class='posenc-image'[^>]* width='(\d+)' height='(\d+)'[^>]* "
        r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'>",
        figure_html,
    )
    assert m, figure_html[:300]
    return {"width": int(m.group(1)), "height": int(m.group(2)), "png": base64.b64decode(m.group(3))}


def test_widget_marks_controls_message_and_image():
    pytest.importorskip("ipywidgets")
    e = RopeScoreExplorer()
    box = e.widget()
    classes = _ui_classes(box)
    assert "posenc-explorer" in classes[0][1]
    cells = [w for w, c in classes if "posenc-control" in c]
    assert len(cells) == len(e.params)
    assert {f"posenc-param-{p.name}" for p in e.params} <= set().union(*(c for _, c in classes))
    assert sum("posenc-message" in c for _, c in classes) == len(e.params)
    figures = [w for w, c in classes if "posenc-figure" in c]
    assert len(figures) == 1
    html = figures[0].value  # the title line above the image, which the browser test finds by class
    assert "class='posenc-title'" in html and "class='posenc-image'" in html
    assert e.title_text.split("\n")[0].replace("·", "·") in __import__("html").unescape(html)
    assert repr(box).startswith("Run this cell to explore")


def test_widget_bad_value_shows_message_and_box_returns_to_last_good_value():
    pytest.importorskip("ipywidgets")
    e = SinusoidalHeatmapExplorer()
    e.widget()
    ui = e._ui
    box, message = ui.controls["base"]["input"], ui.controls["base"]["message"]
    png = ui.png
    for typed, fragment in (
        ("0.5", "base must be &gt; 1"),
        ("", "type a number"),
        ("1e400", "finite"),
        ("ten", "must be a number"),
    ):
        box.value = typed  # what a reader typing into the box does
        assert fragment in message.value and "&#9888;" in message.value
        assert box.value == "10000" and e.values["base"] == 10000.0  # back to the last good value
        assert ui.png == png  # the figure did not change
    box.value = "100"
    assert message.value == "" and e.values["base"] == 100.0 and ui.png != png
    assert ui.controls["base"]["slider"].value == pytest.approx(100.0)


def test_widget_refuses_a_value_beyond_the_slider_range():
    pytest.importorskip("ipywidgets")
    e = RopeRotationExplorer()
    e.widget()
    position = e._ui.controls["position"]
    position["input"].value = "5000"
    assert "position must be &lt;= 4096, got 5000" in position["message"].value
    assert e.values["position"] == 12 and position["input"].value == "12" and position["slider"].value == 12
    position["input"].value = "40.5"
    assert "whole number" in position["message"].value


def test_inputs_from_another_thread_are_applied_on_the_widgets_own_loop():
    """JupyterLab sends widget messages to a kernel subshell, another thread, and ipykernel 7 hands one
    widget's messages to either thread: each input must still be applied, once, in order, on the loop that
    built the widget, none dropped while that loop syncs the controls for another (stop 61's CI)."""
    pytest.importorskip("ipywidgets")
    import asyncio
    import threading

    async def main():
        e = RopeScoreExplorer()
        e.widget()
        ui, home = e._ui, threading.get_ident()
        applied = []
        real_set = ui.set
        ui.set = lambda name, value: applied.append((threading.get_ident(), name, value)) or real_set(name, value)
        slider, box = ui.controls["seed"]["slider"], ui.controls["seed"]["input"]

        def reader():  # a subshell's thread: a slider message, then one for the box
            slider.set_state({"value": 3})
            box.set_state({"value": "5"})

        other = threading.Thread(target=reader)
        ui.syncing = True  # the home loop is busy syncing the controls for an earlier input
        other.start()
        other.join()
        assert applied == [] and e.values["seed"] == 0  # passed on, not applied on the other thread
        ui.syncing = False
        await asyncio.sleep(0.05)  # the home loop runs the inputs it was passed
        assert applied == [(home, "seed", 3), (home, "seed", 5)]
        assert e.values["seed"] == 5 and slider.value == 5 and box.value == "5"
        slider.set_state({"value": 7})  # on the home thread itself: applied at once
        assert e.values["seed"] == 7 and applied[-1] == (home, "seed", 7)
        e.close()

    asyncio.run(main())


def test_dependent_slider_ranges_follow_their_setting():
    pytest.importorskip("ipywidgets")
    e = RopeRotationExplorer(head_dim=64, pair=20)
    e.widget()
    pair = e._ui.controls["pair"]
    assert pair["slider"].max == 31
    e._ui.controls["head_dim"]["slider"].value = 8  # pair 20 is no longer valid: it moves to 3
    assert e.values["head_dim"] == 8 and e.values["pair"] == 3
    assert pair["slider"].max == 3 and pair["slider"].value == 3 and pair["input"].value == "3"
    pair["input"].value = "4"
    assert "pair must be &lt; head_dim // 2 = 4" in pair["message"].value and e.values["pair"] == 3

    a = AlibiBiasExplorer(n_heads=8, head=5)
    a.widget()
    assert a._ui.controls["head"]["slider"].max == 7
    a._ui.controls["n_heads"]["input"].value = "4"
    assert a.values == {**a.values, "n_heads": 4, "head": 3} and a._ui.controls["head"]["slider"].max == 3


def test_booleans_are_toggles_and_base_a_log_slider():
    ipywidgets = pytest.importorskip("ipywidgets")
    e = RopeScoreExplorer()
    e.widget()
    toggle = e._ui.controls["rope"]["input"]
    assert isinstance(toggle, ipywidgets.ToggleButton) and toggle.value is True
    toggle.value = False
    assert e.values["rope"] is False and "no RoPE" in e.title_text and "no RoPE" in e._ui.figure.value
    assert isinstance(e._ui.controls["base"]["slider"], ipywidgets.FloatLogSlider)
    a = AlibiBiasExplorer()
    a.widget()
    assert isinstance(a._ui.controls["causal"]["input"], ipywidgets.ToggleButton)


@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_static_companion_has_one_panel_per_setting(name):
    import matplotlib.pyplot as plt

    cls = EXPLORERS[name]
    fig = cls.static_companion()
    visible = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    assert len(visible) == len(cls.companion)
    assert all(ax.get_title() for ax in visible)
    plt.close(fig)


def test_rotation_companion_varies_the_base():
    bases = {s.get("base", RopeRotationExplorer.param("base").default) for s in RopeRotationExplorer.companion}
    assert len(bases) >= 2


def test_similarity_y_range_follows_the_data():
    for d_model in (2, 16, 128):
        e = SinusoidalSimilarityExplorer(d_model=d_model)
        low, high = e.ax.get_ylim()
        sim = e.data["ys"][0]
        assert low < sim.min() and high > sim.max()
    e = SinusoidalSimilarityExplorer(d_model=2)
    assert e.data["ys"][0].min() < -0.9  # cos(delta) reaches -1: the old fixed floor -0.3 cut it


def test_rope_score_explorer_is_toeplitz_with_rope_and_constant_without():
    import torch

    with_rope = RopeScoreExplorer(head_dim=16, length=20).data
    for offset in (-5, 0, 7):
        diag = torch.diagonal(with_rope, offset)
        assert torch.allclose(diag, diag[0].expand_as(diag))
    assert not torch.allclose(with_rope, with_rope[0, 0].expand_as(with_rope))
    without = RopeScoreExplorer(head_dim=16, length=20, rope=False).data
    assert torch.allclose(without, without[0, 0].expand_as(without))


def test_decay_explorer_starts_at_the_maximum():
    e = DecayBoundExplorer(head_dim=64)
    assert e.data["ys"][0][0] == pytest.approx((32 + 1) / 2)


def test_alibi_explorer_head_out_of_range_and_bool_param():
    e = AlibiBiasExplorer(n_heads=4)
    assert not e.update(head=4) and "head must be < n_heads = 4" in e.error
    assert not e.update(causal="both") and "causal must be True or False" in e.error
    assert e.update(causal=False) and e.values["causal"] is False
    assert not np.isnan(e.artists["image"].get_array()).any()  # bidirectional: no masked entries


def test_scaling_explorer_linear_is_flat_at_one_over_factor_and_uses_the_base():
    e = RopeScalingExplorer(rope_type="linear", factor=4.0)
    assert np.allclose(e.data["ys"][0], 0.25)
    a, b = RopeScalingExplorer(rope_type="llama3"), RopeScalingExplorer(rope_type="llama3", base=500000.0)
    assert not np.allclose(a.data["ys"][0], b.data["ys"][0])


def test_param_kinds_validate_and_parse():
    p = Param("n", 4, "int", 1, 10)
    assert p.parse(" 7 ") == 7 and p.parse("7.0") == 7
    for text in ("", "seven", "7.5", "inf", "nan"):
        with pytest.raises(ValueError):
            p.parse(text)
    with pytest.raises(ValueError, match="kind must be one of"):
        Param("n", 4, "integer", 1, 10)
    flag = Param("f", True, "bool")
    assert flag.validate(1) is True and flag.validate(False) is False
    with pytest.raises(TypeError):
        flag.validate(2)


# ------------------------------------------------------------------------------------------------
# The kernel-less HTML explorer: nested Stacks jslinked to the controls
# ------------------------------------------------------------------------------------------------
def _walk_frames(box, cls, indices):
    """The image the frame widget shows when its controls select ``indices``."""
    node = box.children[1]
    for i in indices:
        node = node.children[i]
    return node


@needs_ipywidgets_8
@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_frames_widget_reaches_every_frame_through_jslinked_controls(name):
    pytest.importorskip("ipywidgets")
    cls = EXPLORERS[name]
    grid = cls.frame_params()
    assert grid, f"{name} has no parameter varied in the HTML book"
    assert any(
        p.name in ("head_dim", "d_model", "base", "seq_len", "n_heads", "rope_type", "scaling", "method") for p in grid
    )
    sizes = [len(p.frames) for p in grid]
    fake = [f"frame {i}".encode() for i in range(math.prod(sizes))]
    box = cls.frames_widget(fake)
    seen = []
    for combo in itertools.product(*(range(n) for n in sizes)):
        seen.append(_walk_frames(box, cls, combo).value)
    assert seen == fake  # every frame reachable, in the order render_frames draws them
    controls = [cell.children[-1] for cell in box.children[0].children]  # [label, control]
    assert [c.index for c in controls] == [p.frames.index(p.default) for p in grid]  # starts at the defaults
    links = box._posenc_links
    from ipywidgets.widgets.widget_link import Link

    assert links and all(isinstance(link, Link) for link in links)
    for level, control in enumerate(controls):
        stacks = [box.children[1]]
        for _ in range(level):
            stacks = [child for s in stacks for child in s.children]
        linked = [link.target[0] for link in links if link.source == (control, "index")]
        assert {id(s) for s in linked} == {id(s) for s in stacks}
        assert all(s.selected_index == control.index for s in stacks)
    # every combination of frame values is valid (no dependent limit broken)
    for combo in itertools.product(*(p.frames for p in grid)):
        cls.check(dict(zip((p.name for p in grid), combo)))


@needs_ipywidgets_8
def test_frames_embed_is_self_contained_widget_state():
    pytest.importorskip("ipywidgets")
    from posenc.explorers import ShawIndexExplorer

    embed = ShawIndexExplorer.frames_embed()
    state = embed["state"]["state"]
    assert embed["view"]["model_id"] in state
    models = {m["model_name"] for m in state.values()}
    assert {"StackModel", "ImageModel", "LinkModel", "SelectionSliderModel"} <= models
    # a selection control's index is stated even when it is 0 (the browser's default would be '')
    controls = [
        m for m in state.values() if m["model_name"] in ("SelectionSliderModel", "ToggleButtonsModel", "DropdownModel")
    ]
    assert controls and all(isinstance(m["state"]["index"], int) for m in controls)
    images = [m for m in state.values() if m["model_name"] == "ImageModel"]
    assert len(images) == math.prod(len(p.frames) for p in ShawIndexExplorer.frame_params())
    assert all(m["buffers"] if "buffers" in m else True for m in images)


def _page_explorers():
    """{notebook: [explorer class names]} from the explorer cells of the chapters."""
    pages = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        names = [
            m[1]
            for c in cells
            if c["cell_type"] == "code"
            for m in [re.match(r"^\s*([A-Z]\w*Explorer)\(\)\.widget\(\)\s*$", "".join(c["source"]))]
            if m
        ]
        if names:
            pages[path.name] = names
    return pages


@needs_ipywidgets_8  # the HTML book's frames: built with the book extra
def test_each_page_stays_within_the_frame_budget():
    """Estimated from one frame per explorer (the median frame of a grid is close to its default),
    with a 1.5x margin; the book build prints the exact sizes."""
    import posenc.explorers as explorers

    pages = _page_explorers()  # the chapters read once (they hold their figures: megabytes of JSON)
    estimate = {}
    for name in {n for names in pages.values() for n in names}:
        cls = getattr(explorers, name)
        explorer = cls(scale=HTML_SCALE)
        one = len(explorer.render_frame())
        explorer.close()
        estimate[name] = one * math.prod(len(p.frames) for p in cls.frame_params()) * 4 / 3  # base64
    for page, names in pages.items():
        total = 1.5 * sum(estimate[n] for n in names)
        assert total <= PAGE_BUDGET, (page, {n: round(estimate[n]) for n in names})
