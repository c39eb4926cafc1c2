"""The live face of an explorer: ipywidgets controls over a kernel that recomputes and redraws.

``SomeExplorer().widget()`` builds a ``_LiveUI``: a slider (numbers) or selector and a text box
per parameter, a reserved ⚠ line under each, and the figure as one HTML widget, its title as text
above the image, so that a redraw is one message. While the reader looks at the figure, the kernel
renders ahead the overlays of the settings one control step away (:meth:`Explorer.prefetch
<posenc.explorers.Explorer.prefetch>`, :data:`PREFETCH_DELAY_S` after the last change), so that
the next step redraws no axis.

Every input is applied on the thread and event loop that built the widget (the kernel's main
thread). JupyterLab (4.6, by its default ``commsOverSubshells`` setting) sends widget messages to a
kernel subshell, another thread; with ipykernel 7.4 one explorer's observers ran on the main thread
and on the subshell's, in turn (measured in ``make browser-lab``). An input handled on a second
thread beside the first races it: it is dropped while the other thread syncs the controls, or two
redraws share one figure. So a control's observer on another thread only passes the input to the
widget's own loop (``call_soon_threadsafe``).

ipywidgets is imported when a live widget is built, never on import of this module.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import html
import math
import threading
from typing import TYPE_CHECKING, Any

from .controls import grid_layout
from .params import MIN_SLIDER_PX, TITLE_SIZE, TRACK_MARGIN_PX, Param

if TYPE_CHECKING:
    from .framework import Explorer

__all__ = ["PREFETCH_DELAY_S"]

#: Seconds the live widget's kernel waits, after a redraw or after building the widget, before it
#: renders ahead the axes of the settings one control step away (``Explorer.prefetch``): the
#: browser has shown the new figure by then, and a reader is still looking at it.
PREFETCH_DELAY_S = 0.25


class _LiveUI:
    """The live widget's controls: a slider (numbers) or selector and a text box per parameter,
    a reserved ⚠ line under each, and the image. Text boxes are parsed here, so an empty box, a
    word or ``1e400`` gets a message and the box returns to the last good value."""

    def __init__(self, explorer: Explorer) -> None:
        import ipywidgets as w

        self.explorer = explorer
        explorer._ui = self  # Explorer.close closes it
        self.syncing = False
        # the thread and loop that apply every input (None without a running loop: a script)
        self._thread = threading.get_ident()
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
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
        self.grid = w.GridBox(cells, layout=grid_layout())
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
        label = w.HTML(
            f"<b style='white-space:nowrap'>{html.escape(p.text)}</b>",
            layout=w.Layout(width="auto", min_width="90px", flex="0 0 auto"),
        )
        slider_layout = w.Layout(min_width=f"{MIN_SLIDER_PX + TRACK_MARGIN_PX}px", flex="1 1 auto")
        if p.kind == "int" and p.log:
            parts["slider"] = w.FloatLogSlider(
                value=value,
                base=10,
                min=math.log10(max(p.low, 1)),
                max=math.log10(p.high),
                step=0.01,
                readout=False,
                continuous_update=False,
                layout=slider_layout,
            )
        elif p.kind in ("int", "even"):
            parts["slider"] = w.IntSlider(
                value=value,
                min=int(p.low),
                max=int(p.high),
                step=2 if p.kind == "even" else p.step,
                readout=False,
                continuous_update=False,
                layout=slider_layout,
            )
        elif p.kind == "log":
            low = math.log10(p.low) + (0.3 if p.open_low else 0.0)  # an open bound: start at 2 * low
            parts["slider"] = w.FloatLogSlider(
                value=value,
                base=10,
                min=low,
                max=math.log10(p.high),
                step=0.01,
                readout=False,
                continuous_update=False,
                layout=slider_layout,
            )
        elif p.kind == "float":
            parts["slider"] = w.FloatSlider(
                value=value,
                min=p.low,
                max=p.high,
                step=(p.high - p.low) / 200,
                readout=False,
                continuous_update=False,
                layout=slider_layout,
            )
        if p.kind == "choice":
            parts["input"] = w.Dropdown(options=list(p.options), value=value, layout=w.Layout(width="auto"))
        elif p.kind == "bool":
            parts["input"] = w.ToggleButton(
                value=value,
                description="on" if value else "off",
                icon="check" if value else "",
                layout=w.Layout(width="90px"),
            )
        else:
            parts["input"] = w.Text(value=p.format(value), continuous_update=False, layout=w.Layout(width="90px"))
        parts["message"] = w.HTML("", layout=w.Layout(height="1.6em", overflow="hidden"))
        parts["message"].add_class("posenc-message")
        row = [label] + ([parts["slider"]] if "slider" in parts else []) + [parts["input"]]
        cell = w.VBox(
            [w.HBox(row, layout=w.Layout(align_items="center")), parts["message"]],
            layout=w.Layout(min_width=f"{MIN_SLIDER_PX + TRACK_MARGIN_PX + 90 + 7 * len(p.text) + 16}px"),
        )
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
                parts[kind].observe(
                    lambda change, p=p, kind=kind: self._on_change(p, kind, change["new"]), names="value"
                )
        self.controls[p.name] = parts
        return cell

    # -- events ---------------------------------------------------------------------------------
    def _on_change(self, p: Param, kind: str, new: Any) -> None:
        if self._loop is not None and threading.get_ident() != self._thread:
            # a widget message handled on another thread (a kernel subshell): apply it on ours
            self._loop.call_soon_threadsafe(self._on_change, p, kind, new)
            return
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
                if bound is not None and explorer.values[q.name] >= bound:
                    changes[q.name] = max(bound - 1, int(q.low))
        return changes

    def set(self, name: str, value: Any) -> bool:
        """Apply one reader's change (what a control does); a dependent value beyond its new
        limit moves to the limit, as its slider's maximum does."""
        explorer = self.explorer
        if not explorer.update(**self._changes(name, value)):
            assert explorer.error is not None  # update records its message when it refuses
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
                near = [
                    slider.base**e
                    for e in (exponent + slider.step, exponent - slider.step)
                    if slider.min <= e <= slider.max
                ]
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
        return (
            f"<div class='posenc-title' style='text-align:center;font-size:{TITLE_SIZE * 4 / 3:.0f}px;"
            f'line-height:1.25;font-family:"DejaVu Sans",sans-serif\'>{lines}</div>'
            f"<img class='posenc-image' decoding='sync' width='{width}' height='{height}' "
            f"alt='figure: {html.escape(lines)}' "
            f"src='data:image/png;base64,{png}'>"
        )

    def _fail(self, name: str, message: str) -> None:
        self._sync_values()  # the box returns to the last good value, before the message shows
        self.controls[name][
            "message"
        ].value = f"<span style='color:#b00020;font-size:12px;white-space:nowrap'>&#9888; {html.escape(message)}</span>"

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
