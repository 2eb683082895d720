"""Human accuracy: per participant, per assignment unit, overall, and spread across units.

Only ratings with ``correct`` set are scored: whether a missing or invalid answer counts as
wrong is the benchmark's decision (AmbiBench scores invalid output as wrong upstream), not ours.

Standard deviations default to ``ddof=0`` (population std, numpy's default): that reproduces the
"Std" row of Ruis et al.'s Table 7 (e.g. the best-annotator column 92.0/87.3/88.0/92.0 → 2.2).
Pass ``ddof=1`` for the sample std. One value has no spread: its std is None, whatever ``ddof``.

The CI of a mean over participants is Student's t-interval over their accuracies by default
(`parity.stats.intervals`: the percentile bootstrap is too narrow with the five annotators of a
published subset); ``ci_method="percentile_bootstrap"`` gives the bootstrap, and
``ci_method="confidence_sequence"`` the anytime-valid confidence sequence over the participants in
the order given (`parity.stats.sequences`: for a study recruited until its interval was narrow). Each summary says
which it used, flags fewer than ten participants (``small_n_warning``), and says where a t-interval over
fewer than thirty sits near the ceiling and may be too narrow (``ci_note``, `parity.stats.intervals.ceiling_note`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from parity.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    bootstrap_mean_ci,
)
from parity.stats.intervals import (
    BOOTSTRAP,
    CI_METHODS,
    CONFIDENCE_SEQUENCE,
    FIXED_WIDTH,
    T_INTERVAL,
    ceiling_note,
    small_n,
    t_mean_ci,
)
from parity.stats.looks import fixed_width_interval
from parity.stats.ratings import RatingLike
from parity.stats.results import JsonResult, mean_std
from parity.stats.sequences import confidence_sequence
from parity.stats.table import UNSCORED, RatingTable, first_seen, rating_table


@dataclass(frozen=True)
class ParticipantAccuracy(JsonResult):
    annotator: str
    # The participant's unit when all their ratings share one, else None.
    unit: str | None
    n_scored: int
    n_correct: int
    accuracy: float | None


@dataclass(frozen=True)
class AccuracySummary(JsonResult):
    """Mean/best/worst over participants; the CI is over participants, not items."""

    unit: str | None
    n_participants: int
    mean: float | None
    best: float | None
    worst: float | None
    std: float | None
    ddof: int
    ci_low: float | None
    ci_high: float | None
    confidence: float
    participants: list[ParticipantAccuracy]
    #: how the CI was computed: `T_INTERVAL` or `BOOTSTRAP` (parity.stats.intervals)
    ci_method: str = T_INTERVAL
    #: fewer than `SMALL_N` participants: the CI is wide and rests on few values
    small_n_warning: bool = False
    #: a t-interval near the ceiling over fewer than `CEILING_FEW` participants: why it may be too
    #: narrow (`ceiling_note`, which then says the few-participants warning too); None elsewhere
    ci_note: str | None = None


@dataclass(frozen=True)
class AccuracyAcrossUnits(JsonResult):
    """Table 7's "Total" and "Std" rows: unit means/bests/worsts averaged over units.

    The mean over units weighs every unit the same; the mean over participants
    (`accuracy_summary`) weighs every participant the same. They agree by definition when every
    unit has as many participants (``fewest_participants == most_participants``), and differ in
    general otherwise.
    """

    n_units: int
    # The fewest and the most participants with a scored answer in one unit (0 without units).
    fewest_participants: int
    most_participants: int
    mean: float | None
    # Std of the unit means.
    mean_std: float | None
    # Average of the within-unit participant stds: the "± 2.3" Ruis et al. print beside the
    # human mean of 86.2% (their std of the four subset means would be 1.6).
    mean_within_unit_std: float | None
    best: float | None
    best_std: float | None
    worst: float | None
    worst_std: float | None
    ddof: int


def participant_accuracy(ratings: Iterable[RatingLike] | RatingTable) -> list[ParticipantAccuracy]:
    """One row per annotator, in first-seen order."""
    table = rating_table(ratings)
    size = len(table.annotators)
    scored = np.bincount(table.annotator[table.correct != UNSCORED], minlength=size).tolist()
    right = np.bincount(table.annotator[table.correct == 1], minlength=size).tolist()
    # an annotator's unit when all their rows share one: count the distinct (annotator, unit) pairs
    width = max(1, len(table.units))
    pairs = np.bincount(table.annotator * width + table.unit, minlength=size * width).reshape(size, width)
    units_of = np.count_nonzero(pairs, axis=1).tolist()
    unit_of = np.zeros(size, dtype=np.int64)
    unit_of[table.annotator] = table.unit  # read only where all of an annotator's rows agree
    rows: list[ParticipantAccuracy] = []
    for annotator in first_seen(table.annotator).tolist():
        n_scored, n_correct = scored[annotator], right[annotator]
        rows.append(
            ParticipantAccuracy(
                annotator=table.annotators[annotator],
                unit=table.units[int(unit_of[annotator])] if units_of[annotator] == 1 else None,
                n_scored=n_scored,
                n_correct=n_correct,
                accuracy=n_correct / n_scored if n_scored else None,
            )
        )
    return rows


def summarise_participants(
    participants: Sequence[ParticipantAccuracy],
    *,
    unit: str | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    ddof: int = 0,
    ci_method: str = T_INTERVAL,
    width: float | None = None,
) -> AccuracySummary:
    """Participants without a scored answer are listed but do not enter the numbers. `n_boot` and
    `seed` apply to the percentile bootstrap only; the confidence sequence takes the participants in
    the order given (the order they completed); the fixed-width interval is `width` points wide."""
    if ci_method not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {', '.join(CI_METHODS)}, not {ci_method!r}")
    if ci_method == FIXED_WIDTH and not (width and width > 0):
        raise ValueError("a fixed-width interval needs its width, in points")
    values = [p.accuracy for p in participants if p.accuracy is not None]
    mean, std = mean_std(values, ddof=ddof)
    if ci_method == BOOTSTRAP:
        interval = bootstrap_mean_ci(values, n_boot=n_boot, seed=seed, confidence=confidence)
    elif ci_method == CONFIDENCE_SEQUENCE:
        # one value says nothing of the spread: no interval, as with the t-interval
        interval = confidence_sequence(values, confidence=confidence) if len(values) >= 2 else None
    elif ci_method == FIXED_WIDTH:
        interval = fixed_width_interval(values, width) if width else None
    else:
        interval = t_mean_ci(values, confidence=confidence)
    return AccuracySummary(
        unit=unit,
        n_participants=len(values),
        mean=mean,
        best=max(values) if values else None,
        worst=min(values) if values else None,
        std=std,
        ddof=ddof,
        ci_low=interval.low if interval else None,
        ci_high=interval.high if interval else None,
        confidence=confidence,
        participants=list(participants),
        ci_method=ci_method,
        small_n_warning=small_n(len(values)),
        ci_note=ceiling_note(len(values), mean, method=ci_method),
    )


def accuracy_summary(
    ratings: Iterable[RatingLike] | RatingTable,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    ddof: int = 0,
    ci_method: str = T_INTERVAL,
) -> AccuracySummary:
    """All ratings pooled: one accuracy per annotator over every item they answered."""
    return summarise_participants(
        participant_accuracy(ratings), n_boot=n_boot, seed=seed, confidence=confidence, ddof=ddof, ci_method=ci_method
    )


def accuracy_by_unit(
    ratings: Iterable[RatingLike] | RatingTable,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    ddof: int = 0,
    ci_method: str = T_INTERVAL,
) -> list[AccuracySummary]:
    """One summary per unit, units in first-seen order."""
    return [
        summarise_participants(
            participant_accuracy(unit_ratings),
            unit=unit,
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
            ddof=ddof,
            ci_method=ci_method,
        )
        for unit, unit_ratings in rating_table(ratings).by_unit().items()
    ]


def accuracy_across_units(summaries: Sequence[AccuracySummary], *, ddof: int = 0) -> AccuracyAcrossUnits:
    """Average the per-unit mean, best and worst over units (units without data are skipped).

    ``ddof`` applies to the spread across units; the within-unit stds keep the summaries' own.
    """
    present = [s for s in summaries if s.mean is not None]
    mean, mean_spread = mean_std([s.mean for s in present if s.mean is not None], ddof=ddof)
    best, best_spread = mean_std([s.best for s in present if s.best is not None], ddof=ddof)
    worst, worst_spread = mean_std([s.worst for s in present if s.worst is not None], ddof=ddof)
    within, _ = mean_std([s.std for s in present if s.std is not None])
    counts = [s.n_participants for s in present]
    return AccuracyAcrossUnits(
        n_units=len(present),
        fewest_participants=min(counts, default=0),
        most_participants=max(counts, default=0),
        mean=mean,
        mean_std=mean_spread,
        mean_within_unit_std=within,
        best=best,
        best_std=best_spread,
        worst=worst,
        worst_std=worst_spread,
        ddof=ddof,
    )
