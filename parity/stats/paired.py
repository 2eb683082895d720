"""A model against the people, item by item: the accuracy gap with a CI over both participants and
items, McNemar's test against the human majority, and a permutation test of the gap.

The gap is `compare.paired_gap`'s: on the items scored for the model and for some person,
gap = mean_i (m_i − h_i), m_i the model's score and h_i the share of people right on item i.

Its CI here is a two-way ("pigeonhole", Owen 2007) percentile bootstrap: each resample draws the
participants with replacement (within their unit, so every unit keeps its size and its items their
raters) *and* the items with replacement, and recomputes the gap. `paired_gap`'s bootstrap over
items alone treats the people as fixed; another sample of people would give other h_i, and this CI
carries that too. It is conservative (the person × item interaction is counted in both ways), as
the two-way bootstrap is known to be. The people's resampled rates are computed once for all the
runs (one sparse product), each run then resamples its items.

McNemar: per item, is the model right and is the human majority right (more than half the people
right; items where exactly half are right, and a model's fractional scores, are left out). b counts
the items the model alone got right, c those the majority alone got right. With b + c below
`MCNEMAR_EXACT_BELOW` the p-value is the exact binomial one (2·P(X ≤ min(b, c)), X ~ Bin(b + c, ½),
capped at 1) and the statistic min(b, c); otherwise the χ² with continuity correction,
(|b − c| − 1)² / (b + c) on one degree of freedom. statsmodels' `mcnemar` computes the same
(tests/stats/test_paired.py holds this).

Permutation: under "no difference" the model's and the people's numbers on an item are
exchangeable, so each d_i = m_i − h_i keeps or flips its sign. The p-value is the share of sign
flips whose |mean| reaches the observed one: all 2ⁿ of them when that is at most
`N_PERMUTATIONS` (exact), else `N_PERMUTATIONS` seeded random ones with the observed counted in,
(k + 1) / (N + 1), as scipy's `permutation_test` does.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import sparse, stats

from parity.stats.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_SEED
from parity.stats.results import JsonResult
from parity.stats.table import UNSCORED, RatingTable, first_seen

#: resamples of the two-way bootstrap (each a resample of the people and one of the items)
TWO_WAY_N_BOOT = 2_000
N_PERMUTATIONS = 10_000
MCNEMAR_EXACT_BELOW = 25
#: the people's resampled rates are computed this many resamples at a time (memory)
_CHUNK = 500


@dataclass(frozen=True)
class McNemar(JsonResult):
    #: items the model alone got right, and those the human majority alone got right
    b: int
    c: int
    #: items both got right, and both wrong
    a: int
    d: int
    n_items: int
    #: min(b, c) for the exact test, χ² otherwise; None when b + c = 0 (nothing to test)
    statistic: float | None
    p: float
    exact: bool


@dataclass(frozen=True)
class Permutation(JsonResult):
    p: float
    n_permutations: int
    exact: bool


@dataclass(frozen=True)
class PairedTest(JsonResult):
    n_items: int
    model_accuracy: float | None
    human_accuracy: float | None
    gap: float | None
    ci: list[float] | None
    confidence: float
    n_boot: int
    mcnemar: McNemar
    permutation: Permutation


@dataclass(frozen=True)
class HumanItems:
    """The people's per-item shares right, and the same under `n_boot` resamples of the people."""

    items: dict[str, int]
    rate: np.ndarray
    #: n_boot × items; NaN where a resample has no one who answered the item
    resampled: np.ndarray
    seed: int


def human_items(humans: RatingTable, *, n_boot: int = TWO_WAY_N_BOOT, seed: int = DEFAULT_SEED) -> HumanItems:
    scored = humans.correct != UNSCORED
    person_codes, item_codes = humans.annotator[scored], humans.item[scored]
    right = humans.correct[scored].astype(np.float64)
    people, items = first_seen(person_codes), first_seen(item_codes)
    row_of = np.zeros(len(humans.annotators), dtype=np.int64)
    row_of[people] = np.arange(people.size)
    column_of = np.zeros(len(humans.items), dtype=np.int64)
    column_of[items] = np.arange(items.size)
    rows, columns = row_of[person_codes], column_of[item_codes]
    shape = (items.size, people.size)
    # items × people: right answers and answers (a person answers an item once)
    right_matrix = sparse.csr_matrix((right, (columns, rows)), shape=shape)
    answered_matrix = sparse.csr_matrix((np.ones_like(right), (columns, rows)), shape=shape)
    rate = np.asarray(right_matrix.sum(axis=1)).ravel() / np.maximum(1, np.asarray(answered_matrix.sum(axis=1)).ravel())
    # each person's unit (that of their first answer): people are resampled within units
    unit_of = np.zeros(people.size, dtype=np.int64)
    unit_of[rows[::-1]] = humans.unit[scored][::-1]
    rng = np.random.default_rng(seed)
    weights = np.zeros((n_boot, people.size))
    for unit in first_seen(unit_of).tolist():
        members = np.flatnonzero(unit_of == unit)
        weights[:, members] = rng.multinomial(members.size, np.full(members.size, 1.0 / members.size), size=n_boot)
    resampled = np.empty((n_boot, items.size))
    for start in range(0, n_boot, _CHUNK):
        block = weights[start : start + _CHUNK].T
        numerator = np.asarray(right_matrix @ block).T
        denominator = np.asarray(answered_matrix @ block).T
        with np.errstate(divide="ignore", invalid="ignore"):
            resampled[start : start + _CHUNK] = np.where(denominator > 0, numerator / denominator, np.nan)
    return HumanItems(
        items={humans.items[i]: k for k, i in enumerate(items.tolist())}, rate=rate, resampled=resampled, seed=seed
    )


def mcnemar(model_right: np.ndarray, majority_right: np.ndarray) -> McNemar:
    """McNemar's test of two aligned 0/1 outcome vectors (see the module doc)."""
    model_right, majority_right = model_right.astype(bool), majority_right.astype(bool)
    a = int(np.sum(model_right & majority_right))
    b = int(np.sum(model_right & ~majority_right))
    c = int(np.sum(~model_right & majority_right))
    d = int(np.sum(~model_right & ~majority_right))
    discordant = b + c
    if discordant == 0:
        return McNemar(b=b, c=c, a=a, d=d, n_items=a + b + c + d, statistic=None, p=1.0, exact=True)
    if discordant < MCNEMAR_EXACT_BELOW:
        p = min(1.0, 2.0 * float(stats.binom.cdf(min(b, c), discordant, 0.5)))
        return McNemar(b=b, c=c, a=a, d=d, n_items=a + b + c + d, statistic=float(min(b, c)), p=p, exact=True)
    chi2 = (abs(b - c) - 1.0) ** 2 / discordant
    return McNemar(
        b=b, c=c, a=a, d=d, n_items=a + b + c + d, statistic=chi2, p=float(stats.chi2.sf(chi2, 1)), exact=False
    )


def sign_flip_test(
    differences: np.ndarray, *, n_permutations: int = N_PERMUTATIONS, seed: int = DEFAULT_SEED
) -> Permutation:
    """The two-sided paired permutation test of mean(differences) = 0 (see the module doc)."""
    n = differences.size
    if n == 0:
        return Permutation(p=1.0, n_permutations=0, exact=True)
    observed = abs(float(differences.mean()))
    # a flip that reaches the observed mean up to rounding counts as reaching it (as in scipy)
    threshold = observed * (1.0 - 1e-12) - 1e-15
    if 2**n <= n_permutations:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        reached = int(np.sum(np.abs(signs @ differences) / n >= threshold))
        return Permutation(p=reached / signs.shape[0], n_permutations=int(signs.shape[0]), exact=True)
    rng = np.random.default_rng(seed)
    reached = 0
    for start in range(0, n_permutations, _CHUNK):
        size = min(_CHUNK, n_permutations - start)
        signs = rng.integers(0, 2, size=(size, n)).astype(np.float64) * 2.0 - 1.0
        reached += int(np.sum(np.abs(signs @ differences) / n >= threshold))
    return Permutation(p=(reached + 1) / (n_permutations + 1), n_permutations=n_permutations, exact=False)


def paired_test(
    model_scores: Mapping[str, float],
    humans: HumanItems,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_permutations: int = N_PERMUTATIONS,
) -> PairedTest:
    """``model_scores``: per item the model scored on, its score in [0, 1]; ``humans``: the
    people's rates (`human_items`). Items only one side answered stay out."""
    shared = [key for key in model_scores if key in humans.items]
    columns = np.array([humans.items[key] for key in shared], dtype=np.int64)
    model = np.array([float(model_scores[key]) for key in shared])
    human = humans.rate[columns]
    differences = model - human
    n_boot = humans.resampled.shape[0]
    interval = None
    if len(shared) >= 2 and n_boot:
        rng = np.random.default_rng(humans.seed + 1)
        counts = rng.multinomial(len(shared), np.full(len(shared), 1.0 / len(shared)), size=n_boot)
        resampled = model[None, :] - humans.resampled[:, columns]
        present = ~np.isnan(resampled)
        weights = counts * present
        with np.errstate(divide="ignore", invalid="ignore"):
            gaps = (weights * np.where(present, resampled, 0.0)).sum(axis=1) / weights.sum(axis=1)
        gaps = gaps[np.isfinite(gaps)]
        if gaps.size:
            tail = 100.0 * (1.0 - confidence) / 2.0
            low, high = np.percentile(gaps, [tail, 100.0 - tail])
            interval = [float(low), float(high)]
    binary = (model == 0.0) | (model == 1.0)
    decided = binary & (human != 0.5)
    return PairedTest(
        n_items=len(shared),
        model_accuracy=float(model.mean()) if shared else None,
        human_accuracy=float(human.mean()) if shared else None,
        gap=float(differences.mean()) if shared else None,
        ci=interval,
        confidence=confidence,
        n_boot=n_boot,
        mcnemar=mcnemar(model[decided] == 1.0, human[decided] > 0.5),
        permutation=sign_flip_test(differences, n_permutations=n_permutations, seed=humans.seed),
    )
