"""The human band: does a model agree with people as people agree with each other?

Each person's agreement with the others is the mean of their Cohen's kappas with every other
person they share items with (in a study of units, the people of their unit: kappa per unit,
pairwise). The band is the spread of those means across people: its median and its central
`BAND_COVERAGE` (the 2.5th to 97.5th percentiles). A model's agreement is built the same way: the
mean of its kappas with each person, on the items the two share. It is "within" the band when it
lies inside that range, "below" or "above" otherwise. Comparing a mean with means, not with
single pairs, keeps the two numbers on the same footing: a mean over many people varies less than
one pair's kappa.

A kappa that is undefined (one label throughout, see `agreement`) is left out of the means.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from parity.stats.agreement import pairwise_kappa_table
from parity.stats.matrix import MISSING, LabelMatrix
from parity.stats.results import JsonResult

#: the share of people's mean kappas the band covers
BAND_COVERAGE = 0.95


@dataclass(frozen=True)
class Band(JsonResult):
    median: float
    low: float
    high: float
    #: the person–person pairs with a defined kappa behind the band, and the people
    n_pairs: int
    n_people: int


@dataclass(frozen=True)
class ModelInBand(JsonResult):
    #: the mean of the model's kappa with each person
    model_kappa: float
    #: with how many people that kappa is defined
    n_people: int
    human_kappa: Band
    verdict: str


def kappas_with_each(matrix: LabelMatrix, answers: Mapping[str, str]) -> np.ndarray:
    """Cohen's kappa of one more annotator (item → label) with each annotator of `matrix`, on the
    items both answered; NaN where undefined. The arithmetic of `agreement.pairwise_kappa_table`
    with the first annotator held fixed: matrix–vector products instead of matrix products."""
    labels = list(matrix.labels) + sorted(set(answers.values()) - set(matrix.labels))
    code = {label: index for index, label in enumerate(labels)}
    column = {item: index for index, item in enumerate(matrix.items)}
    own = np.full(len(matrix.items), MISSING, dtype=np.int64)
    for item, answer in answers.items():
        if item in column:
            own[column[item]] = code[answer]
    answered = matrix.answered.astype(np.float64)
    own_answered = (own != MISSING).astype(np.float64)
    shared = answered @ own_answered
    agree = np.zeros(len(matrix.annotators))
    # per label: how often each person gave it where the model answered, and the model where each person did
    theirs, mine = [], []
    for label in range(len(labels)):
        said = matrix.one_hot(label) if label < len(matrix.labels) else np.zeros_like(answered)
        model_said = (own == label).astype(np.float64)
        agree += said @ model_said
        theirs.append(said @ own_answered)
        mine.append(answered @ model_said)
    chance = np.zeros(len(matrix.annotators))
    for row in range(len(labels)):
        for col in range(len(labels)):
            if row != col:
                chance += theirs[row] * mine[col]
    present = sum(((t + m) > 0).astype(np.int64) for t, m in zip(theirs, mine))
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = 1.0 - (shared - agree) / (chance / shared)
    return np.where((shared > 0) & (np.asarray(present) >= 2) & np.isfinite(kappa), kappa, np.nan)


def people_band(matrix: LabelMatrix) -> Band | None:
    """The spread of each person's mean kappa with the others; None with no defined pair."""
    table = pairwise_kappa_table(matrix)
    defined = ~np.isnan(table.kappa)
    if not defined.any():
        return None
    n = len(table.annotators)
    first, second, kappa = table.first[defined], table.second[defined], table.kappa[defined]
    sums = np.bincount(first, kappa, minlength=n) + np.bincount(second, kappa, minlength=n)
    counts = np.bincount(first, minlength=n) + np.bincount(second, minlength=n)
    means = sums[counts > 0] / counts[counts > 0]
    tail = 100.0 * (1.0 - BAND_COVERAGE) / 2.0
    low, median, high = np.percentile(means, [tail, 50.0, 100.0 - tail])
    return Band(
        median=float(median), low=float(low), high=float(high), n_pairs=int(defined.sum()), n_people=int(means.size)
    )


def model_in_band(matrix: LabelMatrix, band: Band, answers: Mapping[str, str]) -> ModelInBand | None:
    """Where a model's answers (item → label) fall against the people's band; None when its kappa
    is defined with no one."""
    kappas = kappas_with_each(matrix, answers)
    defined = kappas[~np.isnan(kappas)]
    if not defined.size:
        return None
    mean = float(defined.mean())
    verdict = "below" if mean < band.low else "above" if mean > band.high else "within"
    return ModelInBand(model_kappa=mean, n_people=int(defined.size), human_kappa=band, verdict=verdict)
