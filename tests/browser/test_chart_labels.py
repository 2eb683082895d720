"""The results charts in a browser: no text of a chart lands on another (tick labels, legend, titles),
however many categories and however long their names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from parity.benchmarks.ambibench.positions import PositionCurve, PositionPoint
from parity.benchmarks.ambibench.sections import ByPosition, Curves, FeatureCurves, ModelCurves
from results.computing.monitor import TimePoint
from results.presenting.charts import arrivals_chart, bar_chart, position_chart

pytestmark = [pytest.mark.browser]

TYPES = ["Generalised", "Particularised", "World knowledge", "Idiom", "Rhetorical question", "Other"]
GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon"
LONG = [f"{word} category with a long descriptive name" for word in GREEK.split()]
MODELS = ["smollm2 (template 2, k=0)", "smollm2 (template 3, k=0)"]


def _series(categories: list[str], names: list[str]) -> list[tuple[str, list[float | None]]]:
    return [(name, [0.4 + 0.5 * ((i + n) % 5) / 5 for i in range(len(categories))]) for n, name in enumerate(names)]


def _curve(shift: float, group: dict[str, str | None] | None = None) -> PositionCurve:
    points = [
        PositionPoint(position=p, n_episodes=1, accuracy=min(1.0, 0.5 + shift + p / 50), ci_low=0.4, ci_high=0.9)
        for p in range(1, 21)
    ]
    return PositionCurve(group=group or {}, confidence=0.95, points=points)


def _positions_section() -> ByPosition:
    features = ["subject", "location", "religious"]
    by_feature = [_curve(0.05 * n, {"salient_feature": f}) for n, f in enumerate(features)]
    return ByPosition(
        humans=Curves(overall=_curve(0.1), by_feature=by_feature, by_feature_format=[]),
        models=[
            ModelCurves(
                run=1, label=MODELS[0], curves=Curves(overall=_curve(0.0), by_feature=by_feature, by_feature_format=[])
            )
        ],
        oracle=FeatureCurves(overall=_curve(0.2), by_feature=by_feature),
    )


CHARTS = {
    "types": lambda: bar_chart("Accuracy per type", TYPES, _series(TYPES, ["Humans", *MODELS]), salt="types"),
    "many long categories": lambda: bar_chart(
        "Accuracy per category", LONG, _series(LONG, ["Humans", *MODELS]), salt="long"
    ),
    "templates": lambda: bar_chart(
        "Model accuracy per prompt template",
        [f"T{n}" for n in range(1, 7)],
        _series(list(range(6)), ["/tmp/models/a-local-model-with-a-long-path (cpu) (the items' own prompts)", *MODELS]),
        reference=("Humans", 0.86),
        salt="templates",
    ),
    "positions": lambda: position_chart(_positions_section()),
    "arrivals": lambda: arrivals_chart(
        [
            TimePoint(at=datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=3 * n), arrivals=n + 1, completions=n)
            for n in range(12)
        ]
    ),
}


def _overlaps(a: dict, b: dict, tolerance: float = 0.5) -> bool:
    return (
        a["x"] + a["width"] - tolerance > b["x"]
        and b["x"] + b["width"] - tolerance > a["x"]
        and a["y"] + a["height"] - tolerance > b["y"]
        and b["y"] + b["height"] - tolerance > a["y"]
    )


@pytest.mark.parametrize("name", list(CHARTS))
def test_no_text_of_a_chart_overlaps_another(page, artifacts, name):
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.set_content(
        f"<!doctype html><html><body style='margin:0'><figure id='chart'>{CHARTS[name]()}</figure></body></html>"
    )
    texts = page.locator("#chart svg text")
    boxes = []
    for index in range(texts.count()):
        text = texts.nth(index)
        box = text.bounding_box()
        if box and box["width"] > 0:
            boxes.append((text.text_content(), box))
    assert len(boxes) >= 8, "the chart's text is text in the SVG"
    overlapping = [
        (first, second) for i, (first, a) in enumerate(boxes) for second, b in boxes[i + 1 :] if _overlaps(a, b)
    ]
    if overlapping:
        page.screenshot(path=str(artifacts / f"chart-{name.replace(' ', '-')}-overlap.png"), full_page=True)
    assert overlapping == []
