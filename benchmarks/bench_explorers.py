"""Explorer redraw latency: median over each explorer's declared parameter sweep.

    python benchmarks/bench_explorers.py

Two numbers per explorer: ``update`` (validate, recompute, update the artists, draw the canvas)
and ``update + PNG`` (what the widget shows: the figure encoded for the Image widget).
Goal (issue 3): <= 50 ms at default sizes.
"""
from __future__ import annotations

import statistics
import time

import matplotlib

matplotlib.use("Agg")
from posenc.widgets import EXPLORERS  # noqa: E402


def main() -> None:
    print(f"{'explorer':<22}{'settings':>9}{'update ms':>11}{'update+PNG ms':>15}{'default ms':>12}")
    for name, cls in EXPLORERS.items():
        explorer = cls()
        explorer.render_png()  # warm-up
        draw, png = [], []
        for p in cls.params:
            for value in p.values():
                for render, out in ((False, draw), (True, png)):
                    explorer.update(**{p.name: p.default})
                    t0 = time.perf_counter()
                    ok = explorer.update(**{p.name: value})
                    if render:
                        explorer.render_png()  # draws the canvas and encodes it
                    else:
                        explorer.fig.canvas.draw()
                    if ok:
                        out.append(time.perf_counter() - t0)
        default = []
        for _ in range(7):  # at the default settings: nudge one value and back
            p = cls.params[-1]
            explorer.update(**{p.name: p.values()[0]})
            t0 = time.perf_counter()
            explorer.update(**{p.name: p.default})
            explorer.render_png()
            default.append(time.perf_counter() - t0)
        print(f"{name:<22}{len(draw):>9}{statistics.median(draw) * 1e3:11.1f}{statistics.median(png) * 1e3:15.1f}"
              f"{statistics.median(default) * 1e3:12.1f}")


if __name__ == "__main__":
    main()
