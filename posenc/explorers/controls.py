"""The ipywidgets pieces both faces of an explorer share: the grid its controls sit in, the
kernel-less frames' selection controls, and closing a tree of widgets.

ipywidgets is imported inside each function, when a widget is built, never on import.
"""

from __future__ import annotations

from collections.abc import Sequence

from .params import MIN_SLIDER_PX, TRACK_MARGIN_PX, Param

__all__ = ["grid_layout", "frame_control", "close_tree"]


def close_tree(roots: Sequence) -> None:
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


def grid_layout():
    """The layout of the grid the controls sit in: as many columns as fit, each wide enough for a
    slider's track, its label and its text box."""
    import ipywidgets as w

    return w.Layout(
        grid_template_columns=f"repeat(auto-fill, minmax({MIN_SLIDER_PX + 190}px, 1fr))",
        grid_gap="0px 18px",
        width="100%",
    )


def frame_control(p: Param, index: int):
    """A selection control whose ``index`` picks a frame: slider, toggle buttons or dropdown."""
    import ipywidgets as w

    labels = [p.format(v) for v in p.frames]
    if p.kind == "bool":
        control = w.ToggleButtons(options=labels, index=index)
    elif p.kind == "choice":
        control = w.Dropdown(options=labels, index=index, layout=w.Layout(width="auto"))
    else:
        # no description beside it (the label sits above), so the track gets the width but the readout's
        width = MIN_SLIDER_PX + TRACK_MARGIN_PX + 8 * max(len(t) for t in labels) + 24
        control = w.SelectionSlider(
            options=labels, index=index, continuous_update=True, layout=w.Layout(min_width=f"{width}px", width="95%")
        )
    control.add_class("posenc-input")
    return control
