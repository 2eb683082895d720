"""Which rows enter the results (filters, exclusions, attention checks) and their `Rating` form
(for the humans, a `RatingTable`: the same ratings as columns)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from parity.stats import Rating
from parity.stats.table import NO_LABEL, UNSCORED, RatingTable
from results.loading.columns import HumanColumns
from results.loading.filters import ResultFilters
from results.loading.study_data import ModelAnswer, RunInfo, StudyData
from studies.models import Participant

COMPLETED = Participant.Status.COMPLETED


def item_passes(data: StudyData, key: str, filters: ResultFilters) -> bool:
    item = data.items.get(key)
    if item is None or item.is_attention_check:
        return False
    if filters.unit and filters.unit not in item.units:
        return False
    return not filters.category or data.category_of(item.meta) == filters.category


def human_rows(data: StudyData, filters: ResultFilters, *, put_back: frozenset[int] = frozenset()) -> HumanColumns:
    """Complete, non-excluded participants' answers to real items (attention checks stay out); without
    the participants flagged for review when the filters say so. `put_back`: ids of complete but
    excluded participants counted in all the same (the exclusion-robustness table's rule)."""
    columns = data.columns
    counted = [p.in_results or (p.participant_id in put_back and p.status == COMPLETED) for p in columns.participants]
    keep = columns.per_participant(counted, bool) & ~columns.is_attention_check
    if filters.unit:
        keep &= columns.per_participant([p.unit == filters.unit for p in columns.participants], bool)
    if filters.category:
        keep &= columns.per_item([data.category_of(item.meta) == filters.category for item in columns.items], bool)
    if filters.flagged == "exclude":
        flagged = data.flagged_participants
        keep &= columns.per_participant([p.participant_id not in flagged for p in columns.participants], bool)
    return columns.take(keep)


def selected_runs(data: StudyData, filters: ResultFilters) -> list[RunInfo]:
    return [
        run
        for run in data.runs
        if (not filters.model or run.model == filters.model)
        and (not filters.setting or run.setting_label == filters.setting)
    ]


def run_rows(data: StudyData, run: RunInfo, filters: ResultFilters) -> list[ModelAnswer]:
    return [m for m in data.answers_by_run.get(run.id, []) if item_passes(data, m.item_key, filters)]


def human_ratings(data: StudyData, rows: HumanColumns) -> RatingTable:
    """One rating per answer: the answer when it is in the answer space (else none), right or wrong
    where the item has a gold answer (an item without one, a written instruction, is not scored)."""
    annotators: dict[str, int] = {}
    units: dict[str | None, int] = {}
    items: dict[str, int] = {}
    person = [annotators.setdefault(p.annotator, len(annotators)) for p in rows.participants]
    unit = [units.setdefault(p.unit, len(units)) for p in rows.participants]
    item = [items.setdefault(i.key, len(items)) for i in rows.items]
    label = [code if data.label(answer) is not None else NO_LABEL for code, answer in enumerate(rows.answers)]
    scored = rows.per_item([bool(i.gold) for i in rows.items], bool)
    return RatingTable(
        annotators=tuple(annotators),
        items=tuple(items),
        labels=rows.answers,
        units=tuple(units),
        annotator=rows.per_participant(person, np.int64),
        item=rows.per_item(item, np.int64),
        label=np.asarray(label, dtype=np.int64).reshape(-1)[rows.answer],
        correct=np.where(scored, rows.correct, UNSCORED).astype(np.int8),
        unit=rows.per_participant(unit).astype(np.int64),
    )


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
