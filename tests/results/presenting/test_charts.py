"""The results charts as SVG: grid lines under the bars."""

from __future__ import annotations

import re

from results.computing.tree import Irt, RunPlacement
from results.presenting.charts import HUMAN_COLOUR, MODEL_COLOURS, bar_chart, placement_chart

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


def test_a_model_far_out_with_a_wide_interval_adds_no_empty_bars_to_the_placement():
    # the bins are as wide as the people's spread needs; a run whose CI spans hundreds of logits once
    # made thousands of empty bars (half a minute to draw one results page)
    people = [-1.5 + 0.15 * n for n in range(21)]
    run = RunPlacement(
        run=1,
        label="smollm2",
        ability=40.0,
        ci=[-300.0, 380.0],
        se=170.0,
        se_answers=150.0,
        percentile=100.0,
        population_percentile=100.0,
        population_percentile_ci=[0.0, 100.0],
        n_items=20,
    )
    irt = Irt(
        model="rasch",
        people=len(people),
        items_used=20,
        items_dropped_all_right=0,
        items_dropped_all_wrong=0,
        person_reliability=0.7,
        item_reliability=0.8,
        converged=True,
        confidence=0.95,
        calibrated=True,
        calibration_note="",
        scale_logits=1.0,
        models=[run],
        people_abilities=people,
        items=[],
        n_items_tested=0,
        n_divergent=0,
        divergent_items=[],
    )
    bars = _positions(placement_chart(irt), f"fill: {HUMAN_COLOUR}; opacity: 0.55")
    # about one bin per two people across their spread, and a few either side: not one per width to ±300
    assert 4 <= len(bars) <= 30
