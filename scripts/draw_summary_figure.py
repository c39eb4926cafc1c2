"""Draw the summary's figure, book/figures/summary_loss_by_length.svg: chapter 8's loss against the test length,
one line per encoding of the summary's grid table through the means of the five seeds of the loss past L at 128 to
512 tokens, with a band from the lowest to the highest seed, and the trigram model as a dashed reference drawn on top,
after every band and line. Only the loss past L is drawn: the loss over whole inputs at L is another measure.

    python scripts/draw_summary_figure.py     # rewrites the file

The numbers come from posenc/results/extrapolation.json (standard library only). tests/test_summary.py reads the
drawn points back against that file and checks that this script draws the file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURE = ROOT / "book" / "figures" / "summary_loss_by_length.svg"
RESULTS = ROOT / "posenc" / "results" / "extrapolation.json"
TITLE = "Only ALiBi and KERPLE stay below the fine line out to 512 tokens"
# the grid table's rows, in its order: (key in the results, label, colour, dash); Okabe-Ito colours
METHODS = (
    ("kerple", "KERPLE", "#009E73", ""),
    ("alibi", "ALiBi", "#0072B2", ""),
    ("fire", "FIRE", "#56B4E9", ""),
    ("cope", "CoPE", "#CC79A7", ""),
    ("t5", "T5", "#E69F00", ""),
    ("none", "NoPE", "#000000", ""),
    ("rope", "RoPE", "#D55E00", ""),
    ("sinusoidal", "sinusoidal", "#8C6D00", ""),
    ("trigram", "trigram model", "#222222", "5 3"),
)
MARKERS = ("circle", "square", "diamond", "triangle", "circle", "square", "diamond", "triangle", "")
LEVELS = (("fine", 0.82), ("breaks", 3.33))  # the grid's grades: a tenth above the trigram's 0.72, and ln 28
SIZE = (720, 460)
PLOT = (70.0, 70.0, 540.0, 390.0)  # left, top, right, bottom, in page pixels
Y_MAX = 5.0


def losses() -> tuple[list[int], dict[str, list[list[float]]]]:
    """The test lengths past L and, per method, each seed's loss past L at each of them."""
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    lengths = results["config"]["eval_lengths"]
    L = results["config"]["train_length"]
    lengths = [n for n in lengths if n > L]
    out = {}
    for key, *_ in METHODS:
        out[key] = [[run["loss_beyond"][str(n)] for n in lengths] for run in results["metrics"][key].values()]
    return lengths, out


def x_of(n: int, lengths: list[int]) -> float:
    left, _, right, _ = PLOT
    lo, hi = math.log2(lengths[0]), math.log2(lengths[-1])
    return left + 30 + (right - left - 60) * (math.log2(n) - lo) / (hi - lo)


def y_of(loss: float) -> float:
    _, top, _, bottom = PLOT
    return bottom - (bottom - top) * loss / Y_MAX


def marker(shape: str, x: float, y: float, colour: str) -> str:
    if shape == "circle":
        return f'<circle cx="{x:.2f}" cy="{y:.2f}" r="3.5" fill="{colour}"/>'
    if shape == "square":
        return f'<rect x="{x - 3.5:.2f}" y="{y - 3.5:.2f}" width="7" height="7" fill="{colour}"/>'
    if shape == "diamond":
        corners = f"M {x:.2f} {y - 4.5:.2f} L {x + 4.5:.2f} {y:.2f} L {x:.2f} {y + 4.5:.2f} L {x - 4.5:.2f} {y:.2f} z"
        return f'<path d="{corners}" fill="{colour}"/>'
    if shape == "triangle":
        corners = f"M {x:.2f} {y - 4.5:.2f} L {x + 4.5:.2f} {y + 3.5:.2f} L {x - 4.5:.2f} {y + 3.5:.2f} z"
        return f'<path d="{corners}" fill="{colour}"/>'
    raise ValueError(f"shape must be circle, square, diamond or triangle, got {shape!r}")


def loss_by_length_svg() -> str:
    """The summary's figure, as book/figures/summary_loss_by_length.svg holds it. Each line's ``points`` are the
    means of the seeds; each band's ``points`` run along the highest seed, then back along the lowest."""
    lengths, runs = losses()
    width, height = SIZE
    left, top, right, bottom = PLOT
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        ' font-family="DejaVu Sans, Arial, sans-serif" font-size="13">',
        f"<title>{TITLE}</title>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text id="title" x="{width / 2:.0f}" y="26" text-anchor="middle" font-size="17" font-weight="bold">'
        f"{TITLE}</text>",
        f'<text x="{width / 2:.0f}" y="48" text-anchor="middle" fill="#555">chapter 8, trained at L = 64 tokens;'
        " lines: loss past L, mean of five seeds; bands: lowest to highest seed</text>",
        f'<rect x="{left:.2f}" y="{top:.2f}" width="{right - left:.2f}" height="{bottom - top:.2f}" fill="none"'
        ' stroke="#999"/>',
    ]
    for k in range(int(Y_MAX) + 1):  # y-axis: ticks every nat
        y = y_of(k)
        out.append(f'<line x1="{left - 5:.2f}" y1="{y:.2f}" x2="{left:.2f}" y2="{y:.2f}" stroke="#999"/>')
        out.append(f'<text x="{left - 8:.2f}" y="{y + 4:.2f}" text-anchor="end">{k}</text>')
    for n in lengths:  # x-axis: the test lengths, on a log-2 scale
        x = x_of(n, lengths)
        out.append(f'<line x1="{x:.2f}" y1="{bottom:.2f}" x2="{x:.2f}" y2="{bottom + 5:.2f}" stroke="#999"/>')
        out.append(f'<text id="tick-{n}" x="{x:.2f}" y="{bottom + 20:.2f}" text-anchor="middle">{n}</text>')
    out.append(
        f'<text x="{(left + right) / 2:.2f}" y="{bottom + 44:.2f}" text-anchor="middle">test length in tokens'
        " (log scale; L = 64, so 512 = 8L)</text>"
    )
    out.append(
        f'<text x="18" y="{(top + bottom) / 2:.2f}" text-anchor="middle" transform="rotate(-90 18'
        f' {(top + bottom) / 2:.2f})">loss past L, in nats</text>'
    )
    for name, level in LEVELS:
        y = y_of(level)
        out.append(
            f'<line id="level-{name}" x1="{left:.2f}" y1="{y:.2f}" x2="{right:.2f}" y2="{y:.2f}" stroke="#444"'
            ' stroke-width="1" stroke-dasharray="2 3"/>'
        )
        # "breaks" above its line at the left, where every line is still low; "fine" right of the plot, below the legend
        x, anchor = (left + 6, y - 5) if name == "breaks" else (right + 6, y + 4)
        out.append(
            f'<text id="label-{name}" x="{x:.2f}" y="{anchor:.2f}" fill="#444" font-size="12">'
            f"{name}: {level:.2f}</text>"
        )
    xs = [x_of(n, lengths) for n in lengths]
    for (key, _, colour, dash), shape in zip(METHODS, MARKERS, strict=True):  # the trigram last: its line on top
        seeds = runs[key]
        means = [sum(col) / len(col) for col in zip(*seeds)]
        highs = [max(col) for col in zip(*seeds)]
        lows = [min(col) for col in zip(*seeds)]
        band = [(x, y_of(v)) for x, v in zip(xs, highs)] + [(x, y_of(v)) for x, v in reversed(list(zip(xs, lows)))]
        out.append(f'<g id="method-{key}">')
        out.append(
            f'<polygon id="band-{key}" points="{" ".join(f"{x:.2f},{y:.2f}" for x, y in band)}" fill="{colour}"'
            ' fill-opacity="0.15" stroke="none"/>'
        )
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<polyline id="line-{key}" points="{" ".join(f"{x:.2f},{y_of(v):.2f}" for x, v in zip(xs, means))}"'
            f' fill="none" stroke="{colour}" stroke-width="{2.4 if dash else 2.2}"{dashing}/>'
        )
        out.extend(marker(shape, x, y_of(v), colour) for x, v in zip(xs, means) if shape)  # the trigram: none
        out.append("</g>")
    # KERPLE's and ALiBi's lines lie under the trigram's: say so where they run, below them
    out.append(
        f'<text id="overlap-note" x="{(xs[0] + xs[-1]) / 2:.2f}" y="{y_of(0.72) + 22:.2f}" text-anchor="middle"'
        ' fill="#222" font-size="12">KERPLE, ALiBi and the trigram model overlap here</text>'
    )
    # the legend, in the grid table's order, right of the plot
    for i, ((key, label, colour, dash), shape) in enumerate(zip(METHODS, MARKERS, strict=True)):
        y = top + 14 + 24 * i
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<line x1="{right + 16:.2f}" y1="{y:.2f}" x2="{right + 46:.2f}" y2="{y:.2f}" stroke="{colour}"'
            f' stroke-width="2.2"{dashing}/>'
        )
        if shape:
            out.append(marker(shape, right + 31, y, colour))
        out.append(f'<text id="legend-{key}" x="{right + 54:.2f}" y="{y + 4:.2f}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    FIGURE.write_text(loss_by_length_svg(), encoding="utf-8", newline="\n")  # the same bytes on Windows
