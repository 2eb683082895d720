"""Charts of a study's results, drawn on the server with matplotlib (Agg) as inline SVG.

`matplotlib.figure.Figure` is used directly, never pyplot: no global state, safe in threads. Text
stays text in the SVG (`svg.fonttype: none`) and ids are salted per chart so several charts can sit
in one page; the output is deterministic for the same results.

Grid lines are drawn behind the data (`set_axisbelow`), and the layout is matplotlib's constrained
layout with legends outside the axes, so that no text lands on other text: tick labels that would
touch their neighbours are wrapped, then turned upright.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    from results.computing.monitor import TimePoint

from results.computing.tree import (
    Irt,  # noqa: E402
    StudyResults,  # noqa: E402
)
from results.presenting.own_sections import (  # noqa: E402
    ByPosition,
    FeatureCurves,
    PositionCurve,
    by_position,
    by_template,
)

HUMAN_COLOUR = "#1d2330"
ORACLE_COLOUR = "#8a8f99"
MODEL_COLOURS = ("#2f5fd0", "#d0652f", "#2f9d5f", "#a03fb5", "#b5a13f", "#3fa9b5", "#b53f64", "#6b4f2f")
GRID_COLOUR = "#eceef2"
#: a tick label is wrapped at this many characters, and cut after this many lines
LABEL_WIDTH, LABEL_LINES = 14, 3
#: an upright tick label is cut at this many characters
UPRIGHT_LABEL_CHARACTERS = 32
#: the legend's entries go in one column when a label is longer than this
LEGEND_LABEL_CHARACTERS = 40


def _figure(width: float, height: float) -> Figure:
    """A new figure. matplotlib is imported here, when a chart is drawn, not when the results pages'
    module is imported: it takes about 0.7 s to load, which every command (the URLconf imports the
    views) would pay (docs/performance.md, "Start-up")."""
    import matplotlib
    from matplotlib.figure import Figure

    matplotlib.use("Agg")
    return Figure(figsize=(width, height), layout="constrained")


def _svg(figure: Figure, salt: str) -> str:
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # inline: no XML declaration or doctype


def _curve_xy(curve: PositionCurve) -> tuple[list[int], list[float], list[float | None], list[float | None]]:
    points = curve.points
    return (
        [p.position for p in points],
        [p.accuracy for p in points],
        [p.ci_low for p in points],
        [p.ci_high for p in points],
    )


def _draw_curve(ax: Axes, curve: PositionCurve | None, label: str, colour: str, *, dashed: bool = False) -> None:
    if not curve or not curve.points:
        return
    x, y, low, high = _curve_xy(curve)
    ax.plot(
        x,
        y,
        label=label,
        color=colour,
        linestyle="--" if dashed else "-",
        linewidth=1.8,
        marker=None if dashed else "o",
        markersize=3,
    )
    band = [(xi, lo, hi) for xi, lo, hi in zip(x, low, high) if lo is not None and hi is not None]
    if band:
        ax.fill_between(
            [b[0] for b in band], [b[1] for b in band], [b[2] for b in band], color=colour, alpha=0.15, linewidth=0
        )


def _grid(ax: Axes) -> None:
    """Horizontal grid lines, drawn before (under) the bars and lines."""
    ax.set_axisbelow(True)
    ax.grid(axis="y", color=GRID_COLOUR, linewidth=0.6)


def _legend(figure: Figure, handles: Sequence[Any], labels: Sequence[str], *, fontsize: float) -> None:
    """The figure's legend below everything else: the constrained layout makes room for it."""
    columns = 1 if any(len(label) > LEGEND_LABEL_CHARACTERS for label in labels) else min(4, len(labels))
    figure.legend(handles, labels, loc="outside lower center", ncol=columns, frameon=False, fontsize=fontsize)


def _wrapped(label: str) -> str:
    lines = textwrap.wrap(label, LABEL_WIDTH) or [label]
    if len(lines) > LABEL_LINES:
        lines = [
            *lines[: LABEL_LINES - 1],
            textwrap.shorten(" ".join(lines[LABEL_LINES - 1 :]), LABEL_WIDTH, placeholder="…"),
        ]
    return "\n".join(lines)


def _upright(label: str) -> str:
    return label if len(label) <= UPRIGHT_LABEL_CHARACTERS else label[: UPRIGHT_LABEL_CHARACTERS - 1] + "…"


def _touching(texts: Sequence[Text], gap_px: float = 2.0) -> bool:
    """Whether any of these side-by-side labels reaches its right-hand neighbour (laid out, not drawn)."""
    boxes = sorted((text.get_window_extent() for text in texts if text.get_text()), key=lambda box: box.x0)
    return any(left.x1 + gap_px > right.x0 for left, right in zip(boxes, boxes[1:]))


def _category_ticks(figure: Figure, ax: Axes, labels: list[str]) -> None:
    """Category names under their bars: wrapped onto lines when that keeps them apart, else upright."""
    ax.set_xticks(range(len(labels)), [_wrapped(label) for label in labels], fontsize=8)
    figure.draw_without_rendering()
    if _touching(ax.get_xticklabels()):
        ax.set_xticks(range(len(labels)), [_upright(label) for label in labels], fontsize=8, rotation=90)
        # the figure grows by the labels' height, so that the bars keep theirs
        figure.draw_without_rendering()
        tallest = max(text.get_window_extent().height for text in ax.get_xticklabels()) / figure.dpi
        width, height = figure.get_size_inches()
        figure.set_size_inches(width, height + tallest)


def _position_axes(ax: Axes, title: str) -> None:
    ax.set_title(title, fontsize=10)
    ax.set_xlim(0.5, 20.5)
    ax.set_ylim(0, 1.02)
    ax.set_xticks([1, 5, 10, 15, 20])
    ax.axhline(0.5, color="#c5cad3", linewidth=0.8, zorder=0)
    _grid(ax)


def _panel_curve(part: FeatureCurves, feature: str | None) -> PositionCurve | None:
    """The overall curve of humans, a model or the oracle, or its curve for one salient feature."""
    if feature is None:
        return part.overall
    return next((c for c in part.by_feature if c.group.get("salient_feature") == feature), None)


def position_chart(section: ByPosition) -> str:
    """Accuracy by position 1–20: humans and each model with 95% CI bands, and the oracle; one panel
    for all episodes, then one per salient feature."""
    humans, models, oracle = section.humans, section.models, section.oracle
    # `-` binds before `|`: only the models' curves lose a missing feature (a human curve without one
    # stays, as it always has)
    features = sorted(
        {c.group.get("salient_feature") for c in humans.by_feature}  # type: ignore[type-var]
        | {c.group.get("salient_feature") for m in models for c in m.curves.by_feature} - {None}
    )
    panels = [("All episodes", None), *[(f"Salient feature: {f.replace('_', ' ')}", f) for f in features]]  # type: ignore[union-attr]
    columns = min(3, len(panels))
    rows = -(-len(panels) // columns)
    figure = _figure(3.6 * columns, 2.8 * rows + 0.6)
    axes = figure.subplots(rows, columns, squeeze=False)
    for index, (title, feature) in enumerate(panels):
        ax = axes[index // columns][index % columns]
        _position_axes(ax, title)
        _draw_curve(ax, _panel_curve(humans, feature), "Humans", HUMAN_COLOUR)
        for number, model in enumerate(models):
            colour = MODEL_COLOURS[number % len(MODEL_COLOURS)]
            _draw_curve(ax, _panel_curve(model.curves, feature), model.label, colour)
        _draw_curve(ax, _panel_curve(oracle, feature), "Bayesian oracle", ORACLE_COLOUR, dashed=True)
        if index % columns == 0:
            ax.set_ylabel("accuracy")
        ax.set_xlabel("position in episode")
    for index in range(len(panels), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        _legend(figure, handles, labels, fontsize=8)
    return _svg(figure, "positions")


def bar_chart(
    title: str,
    categories: list[str],
    series: list[tuple[str, list[float | None]]],
    *,
    reference: tuple[str, float] | None = None,
    salt: str = "bars",
    empty_note: str = "",
) -> str:
    """Grouped bars: one group per category, one bar per series (None draws no bar). A series named
    "Humans" is drawn in the humans' colour; models keep their colour order of the position chart.
    A category with no bar at all says `empty_note` in its place, so that it never reads as 0%."""
    width_in = min(12.0, max(5.0, 0.45 * len(categories) * max(1, len(series)) + 1.5))
    figure = _figure(width_in, 3.6 + 0.18 * len(series))
    ax = figure.subplots()
    _grid(ax)
    width = 0.8 / max(1, len(series))
    models = 0
    for number, (name, values) in enumerate(series):
        if name == "Humans":
            colour = HUMAN_COLOUR
        else:
            colour = MODEL_COLOURS[models % len(MODEL_COLOURS)]
            models += 1
        xs = [i + (number - (len(series) - 1) / 2) * width for i in range(len(categories))]
        present = [(x, v) for x, v in zip(xs, values) if v is not None]
        ax.bar([p[0] for p in present], [p[1] for p in present], width=width, label=name, color=colour, alpha=0.85)
    for index in range(len(categories)):
        if empty_note and all(values[index] is None for _, values in series):
            ax.text(index, 0.04, empty_note, ha="center", va="bottom", rotation=90, fontsize=7, color="#555b66")
    if reference is not None:
        ax.axhline(reference[1], color=HUMAN_COLOUR, linestyle=":", linewidth=1.2, label=reference[0])
    ax.axhline(0.5, color="#c5cad3", linewidth=0.8, zorder=0)
    ax.set_xlim(-0.5, len(categories) - 0.5)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("accuracy")
    ax.set_title(title, fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    _legend(figure, handles, labels, fontsize=7)
    _category_ticks(figure, ax, [c.replace("_", " ") for c in categories])
    return _svg(figure, salt)


def category_chart(results: StudyResults) -> str | None:
    section = results.breakdowns.by_category
    if not section or not section.rows:
        return None
    rows = section.rows
    categories = [row.category or "—" for row in rows]
    series = [("Humans", [row.human.mean for row in rows])]
    for index, model in enumerate(rows[0].models):
        series.append((model.label, [row.models[index].accuracy for row in rows]))
    title = f"Accuracy per {(section.field or 'category').replace('_', ' ')}"
    # a category of ratings or free texts only (no gold) has no accuracy: it says so, never an empty slot
    return bar_chart(title, categories, series, salt="categories", empty_note="no gold: not scored")


def template_chart(results: StudyResults) -> str | None:
    groups = by_template(results)
    if not groups:
        return None
    templates = sorted({int(t) for group in groups for t in group.breakdown.per_template})
    series: list[tuple[str, list[float | None]]] = [
        (f"{g.model} ({g.setting_key})", [g.breakdown.per_template.get(t) for t in templates]) for g in groups
    ]
    human = results.human.accuracy.mean
    reference = ("Humans", human) if human is not None else None
    return bar_chart(
        "Model accuracy per prompt template",
        [f"T{t}" for t in templates],
        series,
        reference=reference,
        salt="templates",
    )


def placement_chart(irt: Irt) -> str:
    """The people's abilities as a histogram, each model's ability a line with its CI shaded: where
    the models stand among the participants on the people population's scale."""
    people = irt.people_abilities
    abilities = [*people, *(bound for model in irt.models for bound in model.ci)]
    low, high = min(abilities), max(abilities)
    pad = 0.05 * (high - low or 1.0)
    figure = _figure(7.5, 3.2 + 0.18 * len(irt.models))
    ax = figure.subplots()
    _grid(ax)
    # bins as wide as the people's spread needs (about one per two people, 4 to 24 across it), laid
    # over the whole axis, so that models far out do not squeeze the people into one bar
    # (never narrower than half a logit: people a hair apart would otherwise ask for billions of bins)
    spread = max(max(people) - min(people), 0.5)
    width = spread / max(4, min(24, len(people) // 2))
    edges = np.arange(min(people) - width * np.ceil((min(people) - low + pad) / width), high + pad + width, width)
    # only the bins about the people are drawn: the others hold no one, and a model with a wide CI
    # would otherwise ask for thousands of empty bars (seen: 8,000 bars, 30 s to draw one page);
    # the grid stays the same and the axis is set below, so the chart looks the same
    edges = edges[(edges >= min(people) - 1.5 * width) & (edges <= max(people) + 1.5 * width)]
    ax.hist(people, bins=edges.tolist(), color=HUMAN_COLOUR, alpha=0.55, label="Participants")
    for number, model in enumerate(irt.models):
        colour = MODEL_COLOURS[number % len(MODEL_COLOURS)]
        ax.axvspan(model.ci[0], model.ci[1], color=colour, alpha=0.12, linewidth=0)
        label = f"{model.label}: percentile {model.percentile:.0f}"
        ax.axvline(model.ability, color=colour, linewidth=2.0, label=label)
    ax.set_xlim(low - pad, high + pad)
    ax.set_xlabel(f"ability ({irt.model.upper()}; 0 = the people's mean, 1 = their SD; shaded: 95% CI)")
    ax.set_ylabel("participants")
    ax.set_title("Where the models stand among the participants", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    _legend(figure, handles, labels, fontsize=7)
    return _svg(figure, "placement")


def study_charts(results: StudyResults) -> dict[str, str]:
    """Every chart that says something for this study, by name."""
    charts: dict[str, str] = {}
    positions = by_position(results)
    if positions and (positions.humans.overall or positions.models or positions.oracle.overall):
        charts["positions"] = position_chart(positions)
    for name, draw in (("templates", template_chart), ("categories", category_chart)):
        svg = draw(results)
        if svg:
            charts[name] = svg
    irt = results.irt
    if irt and irt.models:
        charts["placement"] = placement_chart(irt)
    return charts


def arrivals_chart(timeline: list[TimePoint]) -> str | None:
    """Cumulative arrivals and completions over time (minutes since the first arrival), as steps."""
    if not timeline:
        return None
    start = timeline[0].at
    minutes = [(point.at - start).total_seconds() / 60 for point in timeline]
    figure = _figure(7.5, 2.6)
    ax = figure.subplots()
    ax.step(
        minutes,
        [point.arrivals for point in timeline],
        where="post",
        label="arrivals",
        color=MODEL_COLOURS[0],
        linewidth=1.8,
    )
    ax.step(
        minutes,
        [point.completions for point in timeline],
        where="post",
        label="completions",
        color=HUMAN_COLOUR,
        linewidth=1.8,
    )
    ax.set_xlabel(f"minutes since the first arrival ({start:%Y-%m-%d %H:%M} UTC)")
    ax.set_ylabel("participants")
    ax.set_ylim(0, max(point.arrivals for point in timeline) + 1)
    ax.set_xlim(0, max(minutes[-1], 1))
    _grid(ax)
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    return _svg(figure, "arrivals")
