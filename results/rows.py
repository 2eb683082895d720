"""Which rows enter the results (filters, exclusions, attention checks) and their `Rating` form."""

from __future__ import annotations

from collections import defaultdict

from parity.stats import Rating
from results.forms import ResultFilters
from results.selectors import HumanAnswer, ModelAnswer, RunInfo, StudyData


def item_passes(data: StudyData, key: str, filters: ResultFilters) -> bool:
    item = data.items.get(key)
    if item is None or item.is_attention_check:
        return False
    if filters.unit and filters.unit not in item.units:
        return False
    return not filters.category or data.category_of(item.meta) == filters.category


def human_rows(data: StudyData, filters: ResultFilters) -> list[HumanAnswer]:
    """Complete, non-excluded participants' answers to real items (attention checks stay out)."""
    return [
        h
        for h in data.humans
        if h.in_results
        and (not filters.unit or h.unit == filters.unit)
        and (not filters.category or data.category_of(h.meta) == filters.category)
    ]


def selected_runs(data: StudyData, filters: ResultFilters) -> list[RunInfo]:
    return [
        run
        for run in data.runs
        if (not filters.model or run.model == filters.model)
        and (not filters.setting or run.setting_label == filters.setting)
    ]


def run_rows(data: StudyData, run: RunInfo, filters: ResultFilters) -> list[ModelAnswer]:
    return [m for m in data.answers_by_run.get(run.id, []) if item_passes(data, m.item_key, filters)]


def human_ratings(data: StudyData, rows: list[HumanAnswer]) -> list[Rating]:
    # An item without gold (a written instruction) has no right or wrong: it is not scored.
    return [
        Rating(
            annotator=h.annotator,
            item=h.item_key,
            answer=data.label(h.answer),
            correct=h.correct if h.gold else None,
            unit=h.unit,
        )
        for h in rows
    ]


def model_item_scores(data: StudyData, rows: list[ModelAnswer]) -> dict[str, float]:
    """Per scored item, the model's score: 1/0, or the mean over its variants (MiQA's option orders)."""
    outcomes: dict[str, list[float]] = defaultdict(list)
    for m in rows:
        if m.correct is not None and data.items[m.item_key].gold:
            outcomes[m.item_key].append(1.0 if m.correct else 0.0)
    return {key: sum(values) / len(values) for key, values in outcomes.items()}


def averaged_item_scores(data: StudyData, rows: list[ModelAnswer]) -> dict[str, float]:
    """Per item, 1/0 for the decision on all its presentations together, where the benchmark keeps
    one (its definition's `averaged_score`); empty otherwise."""
    score = data.study.definition.averaged_score
    if not score:
        return {}
    return {
        m.item_key: 1.0 if m.scores[score] else 0.0 for m in rows if score in m.scores and data.items[m.item_key].gold
    }


def model_ratings(data: StudyData, run: RunInfo, rows: list[ModelAnswer]) -> list[Rating]:
    """One rating per item. Variants of an item collapse to their shared answer and outcome; when
    they differ, the item has no answer and no outcome here (its score is in `model_item_scores`)."""
    grouped: dict[str, list[ModelAnswer]] = defaultdict(list)
    for m in rows:
        grouped[m.item_key].append(m)
    ratings = []
    for key, group in grouped.items():
        answers = {data.label(m.answer) for m in group}
        outcomes = {m.correct for m in group}
        gold = data.items[key].gold
        ratings.append(
            Rating(
                annotator=run.label,
                item=key,
                answer=answers.pop() if len(answers) == 1 else None,
                correct=outcomes.pop() if gold and len(outcomes) == 1 else None,
            )
        )
    return ratings
