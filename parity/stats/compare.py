"""A model beside the humans: accuracy gap with a bootstrap CI, agreement with the human
majority, and the items where they part ways.

The gap is computed on the items scored for both the model and at least one human (`paired_gap`),
item by item: d_i = model_correct_i − (share of humans correct on item i); the model's and the
humans' accuracies reported with it are over those same items, so the gap is their difference. Its CI
is `crossed.crossed_gap`'s, over people like these and items like these (the same CI the paired
tests print: a gap has one CI). In a balanced design (every item answered by the same number of
humans, every human answering the same number of items, as in the implicature study) the human
number equals the mean of the per-participant accuracies.

Majority rule: the human majority answer of an item is the answer given by strictly more
humans than any other. Tied items have no majority; they are left out of the kappa and the
disagreement list and reported in ``tied_items`` (breaking ties by coin flip would make the
kappa depend on a seed, and breaking them towards the gold answer would flatter the humans).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from parity.stats.agreement import cohen_kappa
from parity.stats.bootstrap import DEFAULT_CONFIDENCE
from parity.stats.crossed import crossed_gap
from parity.stats.ratings import Rating, RatingLike, as_ratings
from parity.stats.results import JsonResult
from parity.stats.table import NO_LABEL, RatingTable, first_seen, rating_table


@dataclass(frozen=True)
class MajorityAnswer(JsonResult):
    item: str
    # None on a tie.
    answer: str | None
    n_answers: int
    # Share of the item's human answers that are the majority answer (None on a tie).
    share: float | None


@dataclass(frozen=True)
class ItemDisagreement(JsonResult):
    item: str
    model_answer: str
    majority_answer: str
    majority_share: float
    model_correct: bool | None


@dataclass(frozen=True)
class PairedGap(JsonResult):
    """A model and the humans on the items both answered: the items scored for the model and for
    at least one human. Both accuracies are means over those same items, so the gap is their
    difference (the mean of the per-item differences)."""

    n_items: int
    model_accuracy: float | None
    # The mean over the items of the share of humans right on each.
    human_accuracy: float | None
    # model_accuracy − human_accuracy.
    gap: float | None
    gap_ci_low: float | None
    gap_ci_high: float | None
    confidence: float


@dataclass(frozen=True)
class ModelVsHumans(JsonResult):
    model: str | None
    # Items scored (``correct`` set) for the model and for at least one human.
    n_items: int
    model_accuracy: float | None
    human_accuracy: float | None
    gap: float | None
    gap_ci_low: float | None
    gap_ci_high: float | None
    confidence: float
    # Items with a model answer and a strict human majority.
    n_items_majority: int
    kappa_vs_majority: float | None
    agreement_with_majority: float | None
    tied_items: list[str]
    disagreements: list[ItemDisagreement]


def _answer_counts(table: RatingTable) -> tuple[np.ndarray, np.ndarray]:
    """The items with an answer (first-seen order) and their items × labels answer counts."""
    answered = table.label != NO_LABEL
    items = first_seen(table.item[answered])
    row_of = np.zeros(len(table.items), dtype=np.int64)
    row_of[items] = np.arange(items.size)
    width = max(1, len(table.labels))
    counts = np.bincount(row_of[table.item[answered]] * width + table.label[answered], minlength=items.size * width)
    return items, counts.reshape(items.size, width)


def human_majority(humans: Iterable[RatingLike] | RatingTable) -> dict[str, MajorityAnswer]:
    """Per item, the strict-majority human answer (missing answers ignored)."""
    table = rating_table(humans)
    items, counts = _answer_counts(table)
    top = counts.max(axis=1, initial=0)
    tied = ((counts == top[:, None]).sum(axis=1) > 1).tolist()
    winner = counts.argmax(axis=1).tolist()
    totals = counts.sum(axis=1).tolist()
    majority: dict[str, MajorityAnswer] = {}
    for row, item in enumerate(items.tolist()):
        majority[table.items[item]] = MajorityAnswer(
            item=table.items[item],
            answer=None if tied[row] else table.labels[winner[row]],
            n_answers=totals[row],
            share=None if tied[row] else int(top[row]) / totals[row],
        )
    return majority


def paired_gap(
    model_scores: Mapping[str, float],
    humans: Iterable[RatingLike] | RatingTable,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedGap:
    """``model_scores``: per item the model scored on, its score in [0, 1] (1/0, or the mean over
    the item's variants); ``humans``: human ratings. Items only one side answered stay out."""
    gap = crossed_gap(model_scores, rating_table(humans), confidence=confidence)
    return PairedGap(
        n_items=gap.n_items,
        model_accuracy=gap.model_accuracy,
        human_accuracy=gap.human_accuracy,
        gap=gap.gap,
        gap_ci_low=gap.ci[0] if gap.ci else None,
        gap_ci_high=gap.ci[1] if gap.ci else None,
        confidence=confidence,
    )


def model_vs_humans(
    model: Iterable[RatingLike],
    humans: Iterable[RatingLike] | RatingTable,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
) -> ModelVsHumans:
    """``model``: one rating per item (its ``annotator`` names the model); ``humans``: all
    human ratings of the same items."""
    model_rows = as_ratings(model)
    by_item: dict[str, Rating] = {}
    for rating in model_rows:
        if rating.item in by_item:
            raise ValueError(f"the model has two ratings for item {rating.item!r}")
        by_item[rating.item] = rating
    names = {r.annotator for r in model_rows}
    human_rows = rating_table(humans)

    paired = paired_gap(
        {item: float(bool(rating.correct)) for item, rating in by_item.items() if rating.correct is not None},
        human_rows,
        confidence=confidence,
    )

    majority = human_majority(human_rows)
    tied = [item for item in by_item if item in majority and majority[item].answer is None]
    model_labels: list[str] = []
    majority_labels: list[str] = []
    disagreements: list[ItemDisagreement] = []
    for item, rating in by_item.items():
        verdict = majority.get(item)
        if rating.answer is None or verdict is None or verdict.answer is None:
            continue
        model_labels.append(rating.answer)
        majority_labels.append(verdict.answer)
        if rating.answer != verdict.answer:
            disagreements.append(
                ItemDisagreement(
                    item=item,
                    model_answer=rating.answer,
                    majority_answer=verdict.answer,
                    majority_share=verdict.share or 0.0,
                    model_correct=rating.correct,
                )
            )

    return ModelVsHumans(
        model=next(iter(names)) if len(names) == 1 else None,
        n_items=paired.n_items,
        model_accuracy=paired.model_accuracy,
        human_accuracy=paired.human_accuracy,
        gap=paired.gap,
        gap_ci_low=paired.gap_ci_low,
        gap_ci_high=paired.gap_ci_high,
        confidence=confidence,
        n_items_majority=len(model_labels),
        kappa_vs_majority=cohen_kappa(model_labels, majority_labels),
        agreement_with_majority=(1.0 - len(disagreements) / len(model_labels) if model_labels else None),
        tied_items=tied,
        disagreements=disagreements,
    )
