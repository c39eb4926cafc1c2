"""Explorer redraw latency on the server side, split into its parts.

    python benchmarks/bench_explorers.py [--out DIR]

For each explorer as its live widget draws it (the title is HTML above the image), over its
parameters' declared sweep values (one change at a time, from the defaults), the median time of

- ``compute``: validate and recompute the numbers;
- ``artists``: update the plot's artists in place;
- ``draw``: draw the canvas (``posenc.explorers.canvas``: cached background, the data, cached overlays; an
  axis whose limits moved is drawn again);
- ``png``: encode the PNG the widget shows (at ``LIVE_SCALE`` device px per CSS px);
- ``total``: what one control change costs in the kernel before the comm message leaves;
- ``wall``: the same change in elapsed time.

Two passes over the same changes: ``cold``, the first visit of each value (new tick labels are
drawn), and ``warm``, the second (every overlay comes from the cache, as when a reader drags a
slider back). Then the rendering ahead that the live widget does while the reader looks
(``Explorer.prefetch`` of the settings one control step away): its CPU cost, and the cost of the
step afterwards.

The parts and ``total`` are CPU time of this process (the explorers are single-threaded), which on
an idle core equals the elapsed time and stays meaningful when other jobs share the machine.

The comm message and the browser's decode and paint are measured end to end by the JupyterLab
browser test. Also printed: the kernel-less HTML frames (count, size, render time per frame).
Results are saved with the machine to DIR/bench_explorers.json (--out; default ./results; ``make bench``:
posenc/results, the shipped copy).
"""

from __future__ import annotations

import argparse
import statistics
import time

import matplotlib
import torch

matplotlib.use("Agg")
from posenc.explorers import EXPLORERS, HTML_SCALE, LIVE_SCALE  # noqa: E402
from posenc.measure import save_results  # noqa: E402

PARTS = ("compute", "artists", "draw", "png", "total", "wall")


def _one_change(explorer, changes: dict) -> dict | None:
    """Time the parts of one control change in CPU seconds (None if the change is invalid), and
    the whole change in wall seconds."""
    w0, t0 = time.perf_counter(), time.process_time()
    try:
        values = explorer.check(changes, explorer.values)
        data = explorer.compute(**values)
    except (ValueError, TypeError):
        return None
    t1 = time.process_time()
    explorer.values, explorer.data = values, data
    explorer.plot.redraw(explorer.ax, explorer.artists, data)
    t2 = time.process_time()
    explorer.draw()
    t3 = time.process_time()
    explorer.encode_png()
    t4, w4 = time.process_time(), time.perf_counter()
    return {"compute": t1 - t0, "artists": t2 - t1, "draw": t3 - t2, "png": t4 - t3, "total": t4 - t0, "wall": w4 - w0}


def measure(cls) -> dict:
    """``{"cold": parts, "warm": parts}``: medians in ms over the sweep's changes (see the module)."""
    explorer = cls(scale=LIVE_SCALE)
    explorer.title_outside()  # as the live widget shows it
    explorer.render_png()
    out = {}
    for regime in ("cold", "warm"):
        samples: dict[str, list[float]] = {part: [] for part in PARTS}
        for p in cls.params:
            for value in p.values():
                _one_change(explorer, cls.defaults())
                timing = _one_change(explorer, {p.name: value})
                for part in PARTS if timing else ():
                    samples[part].append(timing[part])
        out[regime] = {part: statistics.median(values) * 1e3 for part, values in samples.items()} | {
            "changes": len(samples["total"])
        }
    explorer.close()
    return out


def measure_ahead(cls) -> dict:
    """Rendering ahead (``Explorer.prefetch``, what the live widget does while the reader looks):
    from the defaults, the settings one control step away (``steps``), the overlays rendered for
    them, the CPU time of all and of the longest step (what an input arriving meanwhile can wait),
    and then the median cost of taking one of those steps (``next_ms``, ``total`` as above)."""
    from posenc.explorers.live import _LiveUI

    explorer = cls(scale=LIVE_SCALE)
    ui = _LiveUI(explorer)  # the live widget's controls (no event loop here: nothing is scheduled)
    steps = ui.steps()
    before = explorer.canvas.counts["overlay"]
    spent = []
    for changes in steps:
        t0 = time.process_time()
        explorer.prefetch(**changes)
        spent.append(time.process_time() - t0)
    overlays = explorer.canvas.counts["overlay"] - before
    after = []
    for changes in steps:
        after.append(_one_change(explorer, changes)["total"])
        _one_change(explorer, cls.defaults())
    explorer.close()
    return {
        "steps": len(steps),
        "overlays": overlays,
        "ahead_ms": sum(spent) * 1e3,
        "longest_ms": max(spent) * 1e3,
        "next_ms": statistics.median(after) * 1e3,
    }


def measure_frames(cls) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    frames = cls.render_frames(scale=HTML_SCALE)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "frames": len(frames),
        "kbytes": sum(map(len, frames)) / 1e3,
        "ms_per_frame_wall": wall / len(frames) * 1e3,
        "ms_per_frame_cpu": cpu / len(frames) * 1e3,
    }


def _table(title: str, key: str, fn, columns: list[tuple], results: dict) -> None:
    """Print ``fn(cls)`` for every explorer, one row each (``columns``: header, field, width,
    format), and keep it in ``results[name][key]``."""
    print(title)
    print(f"{'explorer':<22}" + "".join(f"{header:>{width}}" for header, _, width, _ in columns))
    for name, cls in EXPLORERS.items():
        row = results[name][key] = fn(cls)
        print(f"{name:<22}" + "".join(f"{row[field]:{width}{fmt}}" for _, field, width, fmt in columns))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="folder of bench_explorers.json (default ./results)")
    args = ap.parse_args()
    torch.set_num_threads(1)  # as a chapter's kernel runs (book_setup)
    results = {}
    print(
        f"live widget, {LIVE_SCALE:g} device px per CSS px; median ms per control change "
        "(parts and total: CPU time of this process; wall: elapsed, inflated when other jobs share the cores)"
    )
    print(f"{'explorer':<22}{'pass':>6}{'changes':>8}" + "".join(f"{part:>9}" for part in PARTS))
    for name, cls in EXPLORERS.items():
        live = measure(cls)
        results[name] = {"live_ms": live}
        for regime, row in live.items():
            print(
                f"{name if regime == 'cold' else '':<22}{regime:>6}{row['changes']:>8}"
                + "".join(f"{row[part]:9.1f}" for part in PARTS)
            )
    _table(
        "\nrendering ahead from the defaults (CPU ms): the steps one control step away, overlays rendered, "
        "all steps, the longest step; then the median change to one of them",
        "ahead",
        measure_ahead,
        [
            ("steps", "steps", 6, "d"),
            ("overlays", "overlays", 9, "d"),
            ("ahead", "ahead_ms", 8, ".1f"),
            ("longest", "longest_ms", 9, ".1f"),
            ("next", "next_ms", 7, ".1f"),
        ],
        results,
    )
    _table(
        f"\nHTML frames, {HTML_SCALE:g} device px per CSS px",
        "frames",
        measure_frames,
        [
            ("frames", "frames", 8, "d"),
            ("KB", "kbytes", 9, ".0f"),
            ("ms/frame", "ms_per_frame_wall", 10, ".1f"),
            ("cpu ms", "ms_per_frame_cpu", 9, ".1f"),
        ],
        results,
    )
    for regime in ("cold", "warm"):
        totals = [r["live_ms"][regime]["total"] for r in results.values()]
        print(f"median over explorers of the median change, {regime}: {statistics.median(totals):.1f} ms CPU")
    path = save_results(
        "explorers", results, settings={"live_scale": LIVE_SCALE, "html_scale": HTML_SCALE}, out_dir=args.out
    )
    print(f"saved {path}")


if __name__ == "__main__":
    main()
