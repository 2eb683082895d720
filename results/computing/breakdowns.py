"""The breakdowns of a study's results: accuracy per category (the benchmark's `category_field`),
then the benchmark's own sections, which its package computes (`Benchmark.breakdowns`): e.g.
implicature's per-template table, AmbiBench's accuracy by position with the Bayesian oracle,
instruction induction's per-task scores, MiQA's Table 3 by wording and k.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from parity.benchmarks.base import ResultsInput
from parity.stats import accuracy_summary
from parity.stats.results import finite_or_none
from parity.stats.table import UNSCORED
from results.computing.rows import human_ratings, item_passes, model_item_scores
from results.computing.tree import Breakdowns, ByCategory, CategoryHumans, CategoryModel, CategoryRow
from results.loading.columns import HumanAnswers, HumanColumns
from results.loading.filters import ResultFilters
from results.loading.study_data import ModelAnswer, RunInfo, StudyData, generic_setting_label

SEED = 0


def _mean(values: list[float]) -> float | None:
    return finite_or_none(sum(values) / len(values)) if values else None


def _ci(low: float | None, high: float | None) -> list[float | None] | None:
    return None if low is None or high is None else [low, high]


def breakdowns(
    data: StudyData,
    humans: HumanColumns,
    runs: list[RunInfo],
    rows_by_run: dict[int, list[ModelAnswer]],
    filters: ResultFilters,
    *,
    n_boot: int,
) -> Breakdowns:
    return Breakdowns(
        by_category=by_category(data, humans, runs, rows_by_run, n_boot=n_boot) if data.category_field else None,
        sections=data.study.definition.breakdowns(
            ResultsInput(
                items=data.items,
                # each answer built as a `HumanAnswer` only if the benchmark reads it
                humans=HumanAnswers(humans),
                runs=runs,
                rows_by_run=rows_by_run,
                baseline_scores=data.baseline_scores,
                category=filters.category or "",
                n_boot=n_boot,
                seed=SEED,
                item_passes=lambda key: item_passes(data, key, filters),
                item_scores=lambda rows: model_item_scores(data, list(rows)),
                setting_label=generic_setting_label,
            )
        ),
    )


# -- per category ---------------------------------------------------------------------------------


def by_category(
    data: StudyData,
    humans: HumanColumns,
    runs: list[RunInfo],
    rows_by_run: dict[int, list[ModelAnswer]],
    *,
    n_boot: int,
) -> ByCategory:
    """Per category: the humans on the items they answered, and each model on the items both
    answered and on all the items it answered, each figure with its own count of items."""
    category_of_item = [data.category_of(item.meta) or "" for item in humans.items]
    category = humans.per_item(category_of_item, str)
    model_groups: dict[tuple[int, str], list[ModelAnswer]] = defaultdict(list)
    for run in runs:
        for m in rows_by_run[run.id]:
            model_groups[(run.id, data.category_of(data.items[m.item_key].meta) or "")].append(m)
    items: dict[str, set[str]] = defaultdict(set)
    for item in np.flatnonzero(np.bincount(humans.item, minlength=len(humans.items))).tolist():
        items[category_of_item[item]].add(humans.items[item].key)
    for (_, name), rows in model_groups.items():
        items[name].update(m.item_key for m in rows)
    rows_out = []
    for name in sorted(items):
        group = humans.take(category == name)
        ratings = human_ratings(data, group)
        summary = accuracy_summary(ratings, n_boot=n_boot, seed=SEED) if len(group) else None
        scored = np.bincount(ratings.item[ratings.correct != UNSCORED], minlength=len(ratings.items))
        human_items = {ratings.items[i] for i in np.flatnonzero(scored).tolist()}
        rows_out.append(
            CategoryRow(
                category=name or None,
                # the items anyone answered: humans, models or both
                n_items=len(items[name]),
                human=CategoryHumans(
                    n_annotators=summary.n_participants if summary else 0,
                    n_items=len(human_items),
                    mean=summary.mean if summary else None,
                    ci95=_ci(summary.ci_low, summary.ci_high) if summary else None,
                    small_n_warning=summary.small_n_warning if summary else False,
                ),
                models=[
                    _model_in_category(data, run, model_groups.get((run.id, name), []), human_items) for run in runs
                ],
            )
        )
    return ByCategory(field=data.category_field, rows=rows_out)


def _model_in_category(data: StudyData, run: RunInfo, rows: list[ModelAnswer], human_items: set[str]) -> CategoryModel:
    # items without a gold (ratings, free texts) have no right answer: not counted
    scored = [m for m in rows if m.correct is not None and data.items[m.item_key].gold]
    same = [m for m in scored if m.item_key in human_items]
    return CategoryModel(
        run=run.id,
        label=run.label,
        n_items=len({m.item_key for m in scored}),
        accuracy=_mean([float(bool(m.correct)) for m in scored]),
        n_items_same=len({m.item_key for m in same}),
        accuracy_same_items=_mean([float(bool(m.correct)) for m in same]),
    )
