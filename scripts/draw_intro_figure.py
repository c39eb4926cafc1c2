"""Draw the intro's figure, book/figures/intro_same_offset.svg: pair 0 of RoPE's rotated query and key at two
pairs of positions one offset apart, with the same angle between them and so the same score. The added encoding's
scores are the page's table, not drawn here.

    python scripts/draw_intro_figure.py     # rewrites the file

tests/test_intro_page.py reads the file back against the rotations and checks that this script draws it.
"""

from __future__ import annotations

import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURE = ROOT / "book" / "figures" / "intro_same_offset.svg"
TITLE = "Same offset, same angle between them, same score"
CASES = ((5, 3), (12, 10))  # (query m, key n), both at offset -2
SIZE, RADIUS, CENTRES = (720, 376), 100.0, ((205.0, 200.0), (515.0, 200.0))
SPIRAL = {"query": 24.0, "key": 14.0}  # each turn's spiral starts this far from the centre ...
GROWTH = 4.5  # ... and moves out this many pixels a radian, so a turn past a full circle does not overlap itself


def spiral(cx: float, cy: float, angle: float, start: float, step: float = 0.05) -> list[tuple[float, float]]:
    """Points of a spiral from the positive x-axis, counter-clockwise through ``angle`` radians, in page pixels."""
    count = max(2, math.ceil(angle / step) + 1)
    points = []
    for j in range(count):
        phi = angle * j / (count - 1)
        r = start + GROWTH * phi
        points.append((cx + r * math.cos(phi), cy - r * math.sin(phi)))  # y grows downwards in SVG
    return points


def same_offset_svg() -> str:
    """The intro's figure, as book/figures/intro_same_offset.svg holds it: pair 0 of the rotated query and key,
    x = (1, 0, 0, 0) and theta_0 = 1, at (5, 3) and (12, 10). A faint spiral shows each arrow's own turn from the
    x-axis, its position in radians; the dark arc, the angle from the query to the key. Rewrite the file with
    ``python scripts/draw_intro_figure.py``."""

    def point(cx, cy, angle, r=RADIUS):
        return cx + r * math.cos(angle), cy - r * math.sin(angle)  # y grows downwards in SVG

    def label(cx, cy, angle, text, r, colour, ident, below=0.0, size=""):
        x, y = point(cx, cy, angle, r)
        anchor = "start" if math.cos(angle) > 0.35 else "end" if math.cos(angle) < -0.35 else "middle"
        y += 5 - 6 * math.sin(angle) + below  # above the tip when it points up, below when down
        font = f' font-size="{size}"' if size else ""
        return f'<text id="{ident}" x="{x:.2f}" y="{y:.2f}" text-anchor="{anchor}" fill="{colour}"{font}>{text}</text>'

    width, height = SIZE
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        ' font-family="DejaVu Sans, Arial, sans-serif" font-size="14">',
        f"<title>{TITLE}</title>",
        "<defs>",
        '<marker id="head-query" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8"'
        ' orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#1f5fa8"/></marker>',
        '<marker id="head-key" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8"'
        ' orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#c2410c"/></marker>',
        "</defs>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.0f}" y="28" text-anchor="middle" font-size="18" font-weight="bold">{TITLE}</text>',
        f'<text x="{width / 2:.0f}" y="50" text-anchor="middle" fill="#555">pair 0 of the rotated query and key,'
        " x = (1, 0, 0, 0), θ₀ = 1 radian per position</text>",
        f'<text id="legend" x="{width / 2:.0f}" y="70" text-anchor="middle" fill="#555" font-size="13">faint spiral:'
        " each arrow's rotation from the x-axis, its position in radians; dark arc: the angle between them</text>",
    ]
    for (m, n), (cx, cy) in zip(CASES, CENTRES, strict=True):
        out.append(f'<g id="panel-{m}-{n}">')
        out.append(
            f'<circle id="circle-{m}-{n}" cx="{cx:.2f}" cy="{cy:.2f}" r="{RADIUS:.2f}" fill="none" stroke="#bbb"/>'
        )
        out.append(
            f'<line x1="{cx - RADIUS - 8:.2f}" y1="{cy:.2f}" x2="{cx + RADIUS + 8:.2f}" y2="{cy:.2f}" stroke="#ddd"/>'
        )
        out.append(
            f'<line x1="{cx:.2f}" y1="{cy - RADIUS - 8:.2f}" x2="{cx:.2f}" y2="{cy + RADIUS + 8:.2f}" stroke="#ddd"/>'
        )
        # each arrow's own turn: a faint spiral from the positive x-axis, counter-clockwise through p radians
        for who, p, colour in (("query", m, "#1f5fa8"), ("key", n, "#c2410c")):
            path = " ".join(
                f"{'M' if j == 0 else 'L'} {x:.2f} {y:.2f}" for j, (x, y) in enumerate(spiral(cx, cy, p, SPIRAL[who]))
            )
            out.append(
                f'<path id="turn-{who}-{p}" d="{path}" fill="none" stroke="{colour}" stroke-opacity="0.5"'
                ' stroke-width="1.6"/>'
            )
        # the angle from the query to the key: n - m = -2 radians, clockwise
        arc = 90.0
        x0, y0 = point(cx, cy, m, arc)
        x1, y1 = point(cx, cy, n, arc)
        large = int(abs(n - m) % (2 * math.pi) > math.pi)
        sweep = int(n < m)  # clockwise on the page
        out.append(
            f'<path id="arc-{m}-{n}" d="M {x0:.2f} {y0:.2f} A {arc:.2f} {arc:.2f} 0 {large} {sweep} {x1:.2f} {y1:.2f}"'
            ' fill="none" stroke="#444" stroke-width="1.5"/>'
        )
        mid = (m + n) / 2
        xm, ym = point(cx, cy, mid, arc + 20)
        out.append(f'<text x="{xm:.2f}" y="{ym + 5:.2f}" text-anchor="middle" fill="#444">{abs(n - m)} rad</text>')
        for who, p, colour in (("query", m, "#1f5fa8"), ("key", n, "#c2410c")):
            x, y = point(cx, cy, p)
            out.append(
                f'<line id="{who}-{p}" x1="{cx:.2f}" y1="{cy:.2f}" x2="{x:.2f}" y2="{y:.2f}" stroke="{colour}"'
                f' stroke-width="2.5" marker-end="url(#head-{who})"/>'
            )
            out.append(label(cx, cy, p, f"{who} at {p}", RADIUS + 12, colour, f"label-{who}-{p}"))
            out.append(label(cx, cy, p, f"rotated {p} rad", RADIUS + 12, colour, f"angle-{who}-{p}", 15.0, "12"))
        score = math.cos(n - m)
        out.append(
            f'<text id="score-{m}-{n}" x="{cx:.2f}" y="{cy + RADIUS + 62:.2f}" text-anchor="middle">RoPE\'s score'
            f" cos {abs(n - m)} ≈ {score:.2f}</text>".replace("≈ -", "≈ −")
        )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    FIGURE.write_text(same_offset_svg(), encoding="utf-8", newline="\n")  # the same bytes on Windows
