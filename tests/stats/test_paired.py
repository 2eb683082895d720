"""Paired tests of a model against people: McNemar against statsmodels, the permutation test
against scipy, the two-way bootstrap's CI against what it must contain."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as statsmodels_mcnemar

from parity.stats import Rating, paired_gap
from parity.stats.paired import human_items, mcnemar, paired_test, sign_flip_test
from parity.stats.table import rating_table


@pytest.mark.parametrize(
    ("b", "c", "a", "d"),
    [(0, 0, 5, 5), (1, 6, 30, 3), (7, 7, 10, 10), (3, 21, 50, 2), (20, 40, 300, 60), (90, 70, 10, 5)],
)
def test_mcnemar_equals_statsmodels_on_the_same_table(b: int, c: int, a: int, d: int) -> None:
    model = np.array([1] * a + [1] * b + [0] * c + [0] * d)
    majority = np.array([1] * a + [0] * b + [1] * c + [0] * d)
    ours = mcnemar(model, majority)
    assert (ours.a, ours.b, ours.c, ours.d) == (a, b, c, d)
    exact = b + c < 25
    theirs = statsmodels_mcnemar([[a, b], [c, d]], exact=exact, correction=True)
    assert ours.exact is exact
    if b + c:
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
        assert ours.p == pytest.approx(theirs.pvalue, rel=1e-9)
    else:
        assert ours.statistic is None and ours.p == 1.0


def _scipy_paired(differences: np.ndarray, n_resamples: int, seed: int) -> float:
    def mean_difference(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        return np.mean(x - y, axis=axis)

    zeros = np.zeros_like(differences)
    return stats.permutation_test(
        (differences, zeros),
        mean_difference,
        permutation_type="samples",
        n_resamples=n_resamples,
        vectorized=True,
        rng=seed,
    ).pvalue


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_exact_permutation_p_value_equals_scipys(seed: int) -> None:
    differences = np.round(np.random.default_rng(seed).normal(0.1, 0.4, 11), 3)
    ours = sign_flip_test(differences, n_permutations=10_000)
    assert ours.exact and ours.n_permutations == 2**11
    assert ours.p == pytest.approx(_scipy_paired(differences, 10_000, seed), rel=1e-12)


def test_the_random_permutation_p_value_agrees_with_scipys_and_repeats() -> None:
    differences = np.random.default_rng(5).normal(0.05, 0.5, 80)
    ours = sign_flip_test(differences, n_permutations=20_000, seed=3)
    assert not ours.exact
    # two Monte Carlo estimates of the same p (about 0.4): within 4 standard errors of each other
    assert ours.p == pytest.approx(_scipy_paired(differences, 20_000, 0), abs=0.02)
    assert sign_flip_test(differences, n_permutations=20_000, seed=3) == ours


def _people(n_people: int, n_items: int, seed: int, units: int = 1) -> list[Rating]:
    rng = np.random.default_rng(seed)
    easy = rng.uniform(0.4, 0.95, n_items)
    per_unit = n_items // units
    ratings = []
    for person in range(n_people):
        unit = person % units
        for item in range(unit * per_unit, (unit + 1) * per_unit):
            ratings.append(Rating(f"P{person}", f"i{item}", "x", bool(rng.random() < easy[item]), f"u{unit}"))
    return ratings


def test_the_gap_is_paired_gaps_and_its_two_way_ci_is_wider_than_the_items_alone() -> None:
    ratings = _people(20, 120, seed=1, units=4)
    table = rating_table(ratings)
    model = {f"i{j}": float(j % 4 != 0) for j in range(120)}
    result = paired_test(model, human_items(table))
    reference = paired_gap(model, table)
    assert result.n_items == 120
    assert result.gap == pytest.approx(reference.gap, rel=1e-12)
    assert result.model_accuracy == pytest.approx(0.75)
    low, high = result.ci
    assert low < result.gap < high
    # the people's sampling variation widens the items-only interval
    assert high - low > reference.gap_ci_high - reference.gap_ci_low
    json.dumps(result.to_dict(), allow_nan=False)


def test_the_two_way_ci_covers_the_truth_about_as_often_as_it_says() -> None:
    """A model exactly as good as the population of people: over 40 simulated studies its 95% CI
    holds 0 in most (the two-way bootstrap errs on the wide side)."""
    held = 0
    for seed in range(40):
        rng = np.random.default_rng(100 + seed)
        easy = rng.uniform(0.3, 0.95, 60)
        ratings = [Rating(f"P{p}", f"i{j}", "x", bool(rng.random() < easy[j])) for p in range(15) for j in range(60)]
        model = {f"i{j}": float(easy[j]) for j in range(60)}
        result = paired_test(model, human_items(rating_table(ratings), n_boot=500, seed=seed), n_permutations=200)
        held += result.ci[0] <= 0.0 <= result.ci[1]
    assert held >= 36


def test_mcnemar_in_the_paired_test_counts_against_the_human_majority() -> None:
    # three people; items i0..i3: majority right on i0, i1, i3 (2 or 3 of 3), wrong on i2
    rows = {"i0": (1, 1, 1), "i1": (1, 1, 0), "i2": (0, 0, 1), "i3": (1, 0, 1)}
    ratings = [Rating(f"P{p}", item, "x", bool(right[p])) for item, right in rows.items() for p in range(3)]
    model = {"i0": 1.0, "i1": 0.0, "i2": 1.0, "i3": 0.5}  # i3's fractional score stays out
    result = paired_test(model, human_items(rating_table(ratings)))
    assert (result.mcnemar.a, result.mcnemar.b, result.mcnemar.c, result.mcnemar.d) == (1, 1, 1, 0)
    assert result.mcnemar.n_items == 3 and result.mcnemar.exact and result.mcnemar.p == 1.0
