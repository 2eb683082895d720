"""The results charts as SVG: grid lines under the bars."""

from __future__ import annotations

import re

from results.presenting.charts import HUMAN_COLOUR, MODEL_COLOURS, bar_chart

GRID_COLOUR = "#eceef2"  # the grid lines' colour

CATEGORIES = ["Generalised", "Particularised", "World knowledge", "Idiom", "Rhetorical question", "Other"]
SERIES = [
    ("Humans", [0.86, 0.83, 0.9, 0.88, 0.8, 0.87]),
    ("smollm2 (template 2, k=0)", [0.6, 0.55, None, 0.5, 0.6, 0.58]),
]


def _positions(svg: str, style: str) -> list[int]:
    return [match.start() for match in re.finditer(re.escape(style), svg)]


def test_grid_lines_are_drawn_before_the_bars():
    svg = bar_chart("Accuracy per type", CATEGORIES, SERIES, salt="categories")
    grid = _positions(svg, f"stroke: {GRID_COLOUR}")
    bars = _positions(svg, f"fill: {HUMAN_COLOUR}; opacity: 0.85") + _positions(
        svg, f"fill: {MODEL_COLOURS[0]}; opacity: 0.85"
    )
    assert len(grid) >= 5 and len(bars) >= 11
    assert max(grid) < min(bars), "a grid line is drawn over a bar"
