"""The placement plot (people's abilities as a strip, each model a point with its CI) as inline SVG
for HTML and as a plain TikZ picture for LaTeX (the `tikz` package only, so the .tex compiles alone)."""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from results.presenting.report.sections import Placement

WIDTH, MARGIN, ROW = 640, 24, 26
#: the TikZ picture's scale and its labels' column, in centimetres (within a 16 cm text block);
#: the space between rows, in points
TIKZ_WIDTH_CM, LABEL_WIDTH_CM, ROW_GAP_PT = 10.0, 4.4, 6


#: an axis shows at most this many ticks, however wide the abilities spread
MOST_TICKS = 10


def _ticks(low: float, high: float) -> list[float]:
    """The axis's ticks: every whole SD on a usual scale; on a wide one (people right on every item
    have abilities far out on the scale) every 2, 5, 10, 20, ... SDs, so a plot never runs to
    thousands of ticks (pdflatex did not finish a picture of some 15,000)."""
    step = 1.0
    while (high - low) / step > MOST_TICKS:
        for factor in (2, 2.5, 2):  # 1, 2, 5, 10, 20, 50, ...
            step *= factor
            if (high - low) / step <= MOST_TICKS:
                break
    return [step * n for n in range(math.ceil(low / step), math.floor(high / step) + 1)]


def _tick(value: float) -> str:
    return f"{value:g}"


def _jitter(index: int) -> float:
    """A fixed vertical offset per person (the same picture on every render)."""
    return ((index * 37) % 13 - 6) / 6


def svg(plot: Placement) -> str:
    low, high = plot.span

    def x(value: float) -> float:
        return MARGIN + (value - low) / (high - low) * (WIDTH - 2 * MARGIN)

    people_y, axis_y = 24, 48 + ROW * len(plot.models)
    height = axis_y + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="placement" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" font-family="system-ui, sans-serif" role="img" '
        'aria-label="People and models on one ability scale">',
        f'<text x="{MARGIN}" y="12" font-size="11">People ({len(plot.people)})</text>',
    ]
    out += [
        f'<circle cx="{x(v):.1f}" cy="{people_y + 6 * _jitter(i):.1f}" r="3" fill="#7a8ca5" fill-opacity="0.6"/>'
        for i, v in enumerate(plot.people)
    ]
    for index, marker in enumerate(plot.models):
        y = 48 + ROW * index
        if marker.low is not None and marker.high is not None:
            out.append(
                f'<line x1="{x(marker.low):.1f}" y1="{y}" x2="{x(marker.high):.1f}" y2="{y}" '
                'stroke="#b3261e" stroke-width="2"/>'
            )
        out.append(f'<circle cx="{x(marker.ability):.1f}" cy="{y}" r="5" fill="#b3261e"/>')
        anchor, dx = ("end", -8) if x(marker.ability) > WIDTH / 2 else ("start", 8)
        out.append(
            f'<text x="{x(marker.ability) + dx:.1f}" y="{y - 7}" font-size="11" text-anchor="{anchor}">'
            f"{escape(marker.label)} ({marker.percentile:.1f}th percentile)</text>"
        )
    out.append(f'<line x1="{MARGIN}" y1="{axis_y}" x2="{WIDTH - MARGIN}" y2="{axis_y}" stroke="#333"/>')
    for tick in _ticks(low, high):
        out.append(f'<line x1="{x(tick):.1f}" y1="{axis_y}" x2="{x(tick):.1f}" y2="{axis_y + 4}" stroke="#333"/>')
        out.append(
            f'<text x="{x(tick):.1f}" y="{axis_y + 16}" font-size="10" text-anchor="middle">{_tick(tick)}</text>'
        )
    out.append(
        f'<text x="{WIDTH - MARGIN}" y="{axis_y + 28}" font-size="10" text-anchor="end">ability (people SDs)</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


def tikz(plot: Placement, escape_text: Callable[[str], str]) -> str:
    """The plot as a forest plot: each row's label (the people, then each model with its percentile)
    in a column of its own left of the scale, set below the one above it (a long label wraps and
    pushes the next row down), so no label is drawn over a dot or a CI."""
    low, high = plot.span

    def x(value: float) -> str:
        return f"{(value - low) / (high - low) * TIKZ_WIDTH_CM:.3f}"

    label = f"anchor=north east,align=right,text width={LABEL_WIDTH_CM}cm,font=\\small"
    out = [
        r"\begin{tikzpicture}",
        f"\\node[{label}] (row0) at (-0.3,0) {{People ({len(plot.people)})}};",
        r"\coordinate (people) at (0,0 |- row0.center);",
    ]
    out += [
        f"\\fill[gray!80!black,opacity=0.6] ([xshift={x(v)}cm,yshift={4 * _jitter(i):.2f}pt]people) circle (1.8pt);"
        for i, v in enumerate(plot.people)
    ]
    for index, marker in enumerate(plot.models, start=1):
        out += [
            f"\\node[{label}] (row{index}) at ([yshift=-{ROW_GAP_PT}pt]row{index - 1}.south east) "
            f"{{{escape_text(marker.label)}\\\\{marker.percentile:.1f}th percentile}};",
            f"\\coordinate (model{index}) at (0,0 |- row{index}.center);",
        ]
        if marker.low is not None and marker.high is not None:
            out.append(
                f"\\draw[red!70!black,thick] ([xshift={x(marker.low)}cm]model{index}) -- "
                f"([xshift={x(marker.high)}cm]model{index});"
            )
        out.append(f"\\fill[red!70!black] ([xshift={x(marker.ability)}cm]model{index}) circle (2.2pt);")
    out += [
        f"\\coordinate (bottom) at (0,0 |- row{len(plot.models)}.south);",
        f"\\coordinate (axis) at ([yshift=-{ROW_GAP_PT}pt]bottom);",
        f"\\draw (axis) -- ++({TIKZ_WIDTH_CM:.3f},0);",
    ]
    for tick in _ticks(low, high):
        out.append(
            f"\\draw ([xshift={x(tick)}cm]axis) -- ++(0,-0.1) "
            f"node[below,font=\\footnotesize] {{\\ensuremath{{{_tick(tick)}}}}};"
        )
    out.append(
        f"\\node[anchor=north east,font=\\footnotesize,yshift=-0.5cm] at ([xshift={TIKZ_WIDTH_CM:.3f}cm]axis) "
        "{ability (people SDs)};"
    )
    out.append(r"\end{tikzpicture}")
    return "\n".join(out)
