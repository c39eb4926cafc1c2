"""Draw Reading model code's figure, book/figures/reading_code_bf16_error.svg: how far a score's angle can be off in
Llama 3.1's head (d = 128, base 5e5, `llama3` with factor 8 from L = 8192), on three paths, up to 16L. Left: a key one
token back from its query; right: the key at position 0, so its distance back is the query's position. Each line is
the largest error, wrapped to at most half a turn, over the 64 pairs and over every query up to that position.

    python scripts/draw_reading_code_figure.py     # rewrites the file

The paths, as transformers' Llama rotary module runs them: its float32 frequencies (posenc's, the same
float32 ops) rounded to bfloat16 by ``model.to(torch.bfloat16)``, then float32 angles; positions, frequencies and
angles all in bfloat16 (your own code); float32 frequencies and angles (``from_pretrained(..., dtype=...)``). The
exact angle is p theta_i in float64 with Meta's blend for the ramped pairs. tests/test_reading_code_page.py checks
the curves against the page and that this script draws the file, to within a hundredth of a pixel's rounding.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch

import posenc

ROOT = Path(__file__).resolve().parents[1]
FIGURE = ROOT / "book" / "figures" / "reading_code_bf16_error.svg"
TITLE = "Where bfloat16 rounds decides what the error grows with"
SUBTITLE = (  # two short lines, one lesson each
    "after model.to, the error grows with the key's distance back",
    "with angles formed in bfloat16, it grows with the position itself",
)
HEAD, BASE, TRAINED, FACTOR = 128, 500000.0, 8192, 8.0  # Llama 3.1's head and `llama3` fields (bounds 1 and 4)
LAST = 16 * TRAINED  # the page's 16L
PATHS = (  # (key, label, colour, dash); Okabe-Ito colours
    ("model_to", "model.to(torch.bfloat16): frequencies rounded, float32 angles", "#D55E00", ""),
    ("bf16_angles", "your own code: angles formed in bfloat16", "#0072B2", "7 4"),
    ("float32", "float32 frequencies and angles, as transformers keeps them after from_pretrained", "#009E73", "3 3"),
)
WIDTH = {"model_to": 4.0, "bf16_angles": 2.2, "float32": 2.0}  # the thick orange line shows under the green one
PANELS = (  # (key, caption, x-axis label)
    ("one_back", "a key one token back", "query position (log scale)"),
    ("from_zero", "the key at position 0", "query position = the key's distance back (log scale)"),
)
SIZE = (720, 440)
PLOTS = ((70.0, 112.0, 345.0, 320.0), (420.0, 112.0, 695.0, 320.0))  # left, top, right, bottom of each panel
X_TICKS = (1, 8, 64, 512, 4096, LAST)  # powers of 8, so the page's "past query position 512" can be read off
SAMPLES = 160  # points per line, evenly spaced on the log axis


def frequencies() -> tuple[torch.Tensor, torch.Tensor]:
    """Llama 3.1's frequencies under `llama3`: float32, from posenc's registry (the same float32 ops as
    transformers' ``ROPE_INIT_FUNCTIONS["llama3"]``, which the test compares), and exact, in float64, with Meta's
    blend for the ramped pairs."""
    scaling = {"factor": FACTOR, "original_max_position_embeddings": TRAINED, "low_freq_factor": 1.0}
    theta32, _ = posenc.rope_scaled_inv_freq(HEAD, BASE, rope_type="llama3", high_freq_factor=4.0, **scaling)
    theta = BASE ** (-torch.arange(0, HEAD, 2, dtype=torch.float64) / HEAD)
    turns = TRAINED * theta / (2 * math.pi)  # turns in L: kept above 4, divided by the factor below 1, blended between
    blend = ((turns - 1.0) / 3.0).clamp(0, 1)
    return theta32, blend * theta + (1 - blend) * theta / FACTOR


def errors() -> dict[str, dict[str, torch.Tensor]]:
    """For each path and panel, the running largest error of a score's angle, in radians, at positions 0 to 16L - 1.
    ``one_back`` at index p is the query at p and its key at p - 1 (0 at p = 0)."""
    theta32, exact_theta = frequencies()
    p = torch.arange(0, LAST, dtype=torch.float64)
    exact = p[:, None] * exact_theta[None]
    angles = {
        "model_to": p.float()[:, None] * theta32.bfloat16().float()[None],
        "bf16_angles": p.bfloat16()[:, None] * theta32.bfloat16()[None],
        "float32": p.float()[:, None] * theta32[None],
    }
    out = {}
    for key, angle in angles.items():
        err = angle.double() - exact  # each angle's error; a score's is the key's minus the query's
        wrap = lambda x: (torch.remainder(x + math.pi, 2 * math.pi) - math.pi).abs()  # noqa: E731
        one_back = torch.cat([torch.zeros(1, dtype=torch.float64), wrap(err[1:] - err[:-1]).amax(1)])
        from_zero = wrap(err).amax(1)  # the key at 0 has angle 0 on every path
        out[key] = {"one_back": torch.cummax(one_back, 0).values, "from_zero": torch.cummax(from_zero, 0).values}
    return out


def sample_positions() -> list[int]:
    """Positions 1 to 16L - 1, evenly spaced on the log axis, each once."""
    top = math.log(LAST - 1)
    return sorted({round(math.exp(top * j / (SAMPLES - 1))) for j in range(SAMPLES)})


def x_of(position: float, plot: tuple[float, float, float, float]) -> float:
    left, _, right, _ = plot
    return left + (right - left) * math.log(position) / math.log(LAST)


def y_of(radians: float, plot: tuple[float, float, float, float]) -> float:
    _, top, _, bottom = plot
    return bottom - (bottom - top) * radians / math.pi


def bf16_error_svg() -> str:
    """The figure, as book/figures/reading_code_bf16_error.svg holds it."""
    curves = errors()
    positions = sample_positions()
    width, height = SIZE
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        ' font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        f"<title>{TITLE}</title>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text id="title" x="{width / 2:.0f}" y="24" text-anchor="middle" font-size="15" font-weight="bold">'
        f"{TITLE}</text>",
        f'<text id="subtitle" x="{width / 2:.0f}" y="43" text-anchor="middle" font-size="13">{SUBTITLE[0]}'
        f'<tspan x="{width / 2:.0f}" dy="16">{SUBTITLE[1]}</tspan></text>',
        f'<text x="{width / 2:.0f}" y="80" text-anchor="middle" fill="#555">Llama 3.1\'s head, up to 16L = 131 072;'
        " each line: the largest error so far, over the 64 pairs</text>",
    ]
    for (panel, caption, x_label), plot in zip(PANELS, PLOTS, strict=True):
        left, top, right, bottom = plot
        out.append(f'<g id="panel-{panel}">')
        out.append(f'<text x="{(left + right) / 2:.2f}" y="{top - 12:.2f}" text-anchor="middle">{caption}</text>')
        out.append(
            f'<rect x="{left:.2f}" y="{top:.2f}" width="{right - left:.2f}" height="{bottom - top:.2f}" fill="none"'
            ' stroke="#999"/>'
        )
        for value, label in ((0.0, "0"), (1.0, "1"), (2.0, "2"), (3.0, "3")):
            y = y_of(value, plot)
            out.append(f'<line x1="{left - 5:.2f}" y1="{y:.2f}" x2="{left:.2f}" y2="{y:.2f}" stroke="#999"/>')
            out.append(f'<text x="{left - 8:.2f}" y="{y + 4:.2f}" text-anchor="end">{label}</text>')
        half = y_of(math.pi, plot)
        out.append(
            f'<line id="half-turn-{panel}" x1="{left:.2f}" y1="{half:.2f}" x2="{right:.2f}" y2="{half:.2f}"'
            ' stroke="#444" stroke-dasharray="2 3"/>'
        )
        out.append(
            f'<text x="{left + 6:.2f}" y="{half + 14:.2f}" fill="#444" font-size="11">half a turn, &#960;</text>'
        )
        for tick in X_TICKS:
            x = x_of(tick, plot)
            out.append(f'<line x1="{x:.2f}" y1="{bottom:.2f}" x2="{x:.2f}" y2="{bottom + 5:.2f}" stroke="#999"/>')
            label = f"{tick:,}".replace(",", " ")  # 131 072, as the page writes numbers
            out.append(f'<text x="{x:.2f}" y="{bottom + 19:.2f}" text-anchor="middle">{label}</text>')
        out.append(f'<text x="{(left + right) / 2:.2f}" y="{bottom + 40:.2f}" text-anchor="middle">{x_label}</text>')
        for key, _, colour, dash in PATHS:
            values = curves[key][panel]
            points = " ".join(f"{x_of(p, plot):.2f},{y_of(float(values[p]), plot):.2f}" for p in positions)
            dashing = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(
                f'<polyline id="line-{key}-{panel}" points="{points}" fill="none" stroke="{colour}"'
                f' stroke-width="{WIDTH[key]}"{dashing}/>'
            )
        if panel == "one_back":  # the two lines near 0 overlap at this scale
            out.append(
                f'<text id="near-zero-note" x="{left + 6:.2f}" y="{top + 44:.2f}" fill="#444"'
                f' font-size="11">orange and green lines:<tspan x="{left + 6:.2f}" dy="14">under 0.01 radian,'
                " at 0 here</tspan></text>"
            )
        out.append("</g>")
    out.append(
        f'<text x="18" y="{(PLOTS[0][1] + PLOTS[0][3]) / 2:.2f}" text-anchor="middle" transform="rotate(-90 18'
        f" {(PLOTS[0][1] + PLOTS[0][3]) / 2:.2f})\">error of a score's angle, radians</text>"
    )
    for row, (key, label, colour, dash) in enumerate(PATHS):
        y = 386 + 16 * row
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        width_ = WIDTH[key]
        out.append(
            f'<line x1="150" y1="{y - 4}" x2="184" y2="{y - 4}" stroke="{colour}" stroke-width="{width_}"{dashing}/>'
        )
        out.append(f'<text id="legend-{key}" x="192" y="{y}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    FIGURE.write_text(bf16_error_svg(), encoding="utf-8")
    print(f"wrote {FIGURE.relative_to(ROOT)}")
