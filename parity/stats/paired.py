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
from functools import lru_cache

import numpy as np
from scipy import stats
from threadpoolctl import threadpool_limits

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


def resample_counts(n: int, n_boot: int, seed: int) -> np.ndarray:
    """n_boot × n: how many times each of n values is drawn in each of n_boot resamples with
    replacement (seeded). Kept for the next call with the same arguments (every run of a study
    resamples as many items with the same seed); read-only."""
    return _resample_counts(n, n_boot, seed)


@lru_cache(maxsize=4)
def _resample_counts(n: int, n_boot: int, seed: int) -> np.ndarray:
    drawn = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    counts = np.bincount((drawn + n * np.arange(n_boot)[:, None]).ravel(), minlength=n_boot * n).reshape(n_boot, n)
    counts.flags.writeable = False
    return counts


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
    rate = np.bincount(columns, right, minlength=items.size) / np.maximum(1, np.bincount(columns, minlength=items.size))
    # each person's unit (that of their first answer): people are resampled within units
    unit_of = np.zeros(people.size, dtype=np.int64)
    unit_of[rows[::-1]] = humans.unit[scored][::-1]
    numerator = np.zeros((n_boot, items.size))
    denominator = np.zeros((n_boot, items.size))
    # one BLAS thread: faster on a busy machine (see irt.fit)
    with threadpool_limits(limits=1, user_api="blas"):
        for number, unit in enumerate(first_seen(unit_of).tolist()):
            members = np.flatnonzero(unit_of == unit)
            # float32: the counts and sums are whole numbers far below 2²⁴, exact, and the product twice as fast
            counts = resample_counts(members.size, n_boot, seed + number).astype(np.float32)
            # the unit's people × the items they answered, dense: one matrix product per unit
            mine = np.isin(rows, members)
            member_of = np.zeros(people.size, dtype=np.int64)
            member_of[members] = np.arange(members.size)
            answered_items = np.unique(columns[mine])
            item_of = np.zeros(items.size, dtype=np.int64)
            item_of[answered_items] = np.arange(answered_items.size)
            cells = (member_of[rows[mine]], item_of[columns[mine]])
            right_block = np.zeros((members.size, answered_items.size), dtype=np.float32)
            right_block[cells] = right[mine]
            numerator[:, answered_items] += counts @ right_block
            if np.count_nonzero(mine) == right_block.size:
                # everyone in the unit answered every one of its items: each item's raters are all drawn
                denominator[:, answered_items] += counts.sum(axis=1, dtype=np.float64)[:, None]
            else:
                answered_block = np.zeros_like(right_block)
                answered_block[cells] = 1.0
                denominator[:, answered_items] += counts @ answered_block
    with np.errstate(divide="ignore", invalid="ignore"):
        resampled = np.where(denominator > 0, numerator / denominator, np.nan)
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


@lru_cache(maxsize=2)
def _random_signs(n: int, n_permutations: int, seed: int) -> np.ndarray:
    """n_permutations seeded rows of n signs ±1 (int8), kept for the next test of as many items."""
    signs = np.random.default_rng(seed).integers(0, 2, size=(n_permutations, n), dtype=np.int8) * 2 - 1
    signs.flags.writeable = False
    return signs


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
    signs = _random_signs(n, n_permutations, seed)
    reached = 0
    for start in range(0, n_permutations, _CHUNK):
        block = signs[start : start + _CHUNK].astype(np.float64)
        reached += int(np.sum(np.abs(block @ differences) / n >= threshold))
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
        # the items' resamples: a seed of their own, apart from the people's units' seeds
        counts = resample_counts(len(shared), n_boot, humans.seed + 1_000_003)
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
