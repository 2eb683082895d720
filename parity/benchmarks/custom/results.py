"""The results of a researcher's own items, per kind of item ("by_kind").

Only kinds with a right answer (choice, yes_no, short_text, number) have an accuracy; ratings and
free texts have none, and the section says so instead of counting them as wrong. Ratings get their
agreement (Krippendorff's alpha, nominal and ordinal on the scale's order, and percent agreement);
option kinds get the models' length-normalised accuracy (acc_norm) beside accuracy, and short
texts and numbers the mean of the item metric's score.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from parity.stats import Rating, accuracy_summary, krippendorff_alpha, percent_agreement
from parity.stats.results import finite_or_none

from ..base import ResultsInput
from .records import KINDS, OPTION_KINDS, RATING, UNSCORED_KINDS
from .sections import CustomSections, KindHumans, KindModel, KindRow, RatingAgreement


def _mean(values: Sequence[float]) -> float | None:
    return finite_or_none(sum(values) / len(values)) if values else None


def _rating_agreement(items: Any, humans: Sequence[Any]) -> RatingAgreement:
    ratings = [Rating(annotator=h.annotator, item=h.item_key, answer=h.answer if h.valid else None) for h in humans]
    positions = {
        str(point): float(index)
        for h in humans
        for index, point in enumerate(items[h.item_key].meta.get("scale") or [])
    }
    return RatingAgreement(
        krippendorff_alpha=krippendorff_alpha(ratings),
        krippendorff_alpha_ordinal=krippendorff_alpha(ratings, level="ordinal", scores=positions)
        if positions and all(h.answer in positions for h in humans if h.valid)
        else None,
        percent_agreement=percent_agreement(ratings),
    )


def _human(kind: str, items: Any, humans: Sequence[Any], *, n_boot: int, seed: int) -> KindHumans:
    accuracy, ci95 = None, None
    if kind not in UNSCORED_KINDS and humans:
        summary = accuracy_summary(
            [Rating(annotator=h.annotator, item=h.item_key, correct=h.correct) for h in humans],
            n_boot=n_boot,
            seed=seed,
        )
        accuracy = summary.mean
        ci95 = None if summary.ci_low is None or summary.ci_high is None else [summary.ci_low, summary.ci_high]
    return KindHumans(
        n_answers=len(humans),
        n_annotators=len({h.annotator for h in humans}),
        accuracy=accuracy,
        ci95=ci95,
        agreement=_rating_agreement(items, humans) if kind == RATING else None,
    )


def _model(kind: str, run: Any, rows: Sequence[Any]) -> KindModel:
    scored = kind not in UNSCORED_KINDS
    return KindModel(
        run=run.id,
        label=run.label,
        n_answers=len(rows),
        n_valid=sum(bool(m.valid) for m in rows),
        accuracy=_mean([float(bool(m.correct)) for m in rows]) if scored else None,
        accuracy_norm=_mean([float(bool(m.scores.get("correct_norm"))) for m in rows])
        if scored and kind in OPTION_KINDS
        else None,
        mean_score=_mean([float(m.scores["score"]) for m in rows if "score" in m.scores])
        if scored and kind not in OPTION_KINDS
        else None,
    )


def breakdowns(results: ResultsInput) -> CustomSections:
    kind_of = {
        key: item.meta.get("kind")
        for key, item in results.items.items()
        if results.item_passes(key) and item.meta.get("kind") in KINDS
    }
    humans: dict[str, list[Any]] = defaultdict(list)
    for h in results.humans:
        if h.item_key in kind_of:
            humans[kind_of[h.item_key]].append(h)
    rows = []
    for kind in [kind for kind in KINDS if kind in kind_of.values()]:
        rows.append(
            KindRow(
                kind=kind,
                n_items=sum(1 for value in kind_of.values() if value == kind),
                has_gold=kind not in UNSCORED_KINDS,
                human=_human(kind, results.items, humans[kind], n_boot=results.n_boot, seed=results.seed),
                models=[
                    _model(
                        kind, run, [m for m in results.rows_by_run.get(run.id, []) if kind_of.get(m.item_key) == kind]
                    )
                    for run in results.runs
                ],
            )
        )
    return CustomSections(by_kind=rows or None)
