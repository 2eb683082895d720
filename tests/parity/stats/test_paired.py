"""Paired tests of a model against people: McNemar against statsmodels,
the gap's variance components against a two-way ANOVA from statsmodels, and its calibration."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.contingency_tables import mcnemar as statsmodels_mcnemar

from parity.stats import Rating, paired_gap
from parity.stats.crossed import NO_SPREAD, crossed_gap
from parity.stats.paired import mcnemar, paired_test
from parity.stats.table import rating_table


@pytest.mark.parametrize(
    ("b", "c", "a", "d"),
    [(0, 0, 5, 5), (1, 6, 30, 3), (7, 7, 10, 10), (3, 21, 50, 2), (20, 40, 300, 60), (90, 70, 10, 5)],
)
def test_mcnemar_equals_statsmodels_uncorrected_chi2_on_the_same_table(b: int, c: int, a: int, d: int) -> None:
    model = np.array([1] * a + [1] * b + [0] * c + [0] * d)
    majority = np.array([1] * a + [0] * b + [1] * c + [0] * d)
    ours = mcnemar(model, majority)
    assert (ours.a, ours.b, ours.c, ours.d) == (a, b, c, d)
    if not b + c:
        assert ours.statistic is None and ours.p == 1.0
        return
    theirs = statsmodels_mcnemar([[a, b], [c, d]], exact=False, correction=False)
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
    assert ours.p == pytest.approx(theirs.pvalue, rel=1e-9)


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


def test_the_gap_is_paired_gaps_and_its_ci_is_wider_than_an_items_alone_bootstrap() -> None:
    ratings = _people(20, 120, seed=1, units=4)
    table = rating_table(ratings)
    model = {f"i{j}": float(j % 4 != 0) for j in range(120)}
    result = paired_test(model, table)
    reference = paired_gap(model, table)
    assert result.n_items == 120 and result.n_people == 20
    assert result.gap == pytest.approx(reference.gap, rel=1e-12)
    assert result.model_accuracy == pytest.approx(0.75)
    low, high = result.ci
    assert low < result.gap < high
    # one CI per gap: the model entry's and the paired test's are the same
    assert [reference.gap_ci_low, reference.gap_ci_high] == result.ci
    # the people's share widens it beyond what the items alone give
    d = np.array([model[f"i{j}"] for j in range(120)]) - np.array(
        [np.mean([r.correct for r in ratings if r.item == f"i{j}"]) for j in range(120)]
    )
    assert high - low > 2 * 1.96 * d.std(ddof=1) / math.sqrt(d.size)
    assert result.target == "people like these, on items like these"
    assert result.se**2 == pytest.approx(result.se_items**2 + result.se_people**2, rel=1e-12)
    json.dumps(result.to_dict(), allow_nan=False)


def test_the_variance_components_equal_a_two_way_anova_on_a_balanced_unit() -> None:
    """One unit, every person on every item: SE² = MS(d)/N + (MS_people − MS_residual)/(N · people),
    the mean squares from statsmodels' two-way ANOVA of the answers (people and items as factors)."""
    rng = np.random.default_rng(7)
    people, items = 8, 40
    ability = rng.normal(0, 1, people)
    ease = rng.normal(0.5, 1, items)
    right = (rng.random((people, items)) < 1 / (1 + np.exp(-(ability[:, None] + ease[None, :])))).astype(int)
    ratings = [Rating(f"P{p}", f"i{j}", "x", bool(right[p, j]), "u") for p in range(people) for j in range(items)]
    model = {f"i{j}": float(rng.random() < 0.7) for j in range(items)}
    result = crossed_gap(model, rating_table(ratings))

    frame = pd.DataFrame(
        {"y": right.ravel(), "person": np.repeat(np.arange(people), items), "item": np.tile(np.arange(items), people)}
    )
    anova = anova_lm(ols("y ~ C(person) + C(item)", data=frame).fit())
    ms_people = anova.loc["C(person)", "mean_sq"] / items  # per answer of a person's mean
    ms_residual = anova.loc["Residual", "mean_sq"]
    d = np.array([model[f"i{j}"] for j in range(items)]) - right.mean(axis=0)
    sigma_people = max(0.0, ms_people - ms_residual / items)
    expected = d.var(ddof=1) / items + sigma_people / people
    assert result.se == pytest.approx(math.sqrt(expected), rel=1e-10)
    assert result.gap == pytest.approx(d.mean(), rel=1e-12)
    # the t-test and the CI agree: p < 0.05 exactly when 0 is outside the 95% CI
    assert (result.p < 0.05) == (not result.ci[0] <= 0.0 <= result.ci[1])


def test_without_two_people_in_a_unit_there_is_no_ci_and_it_says_why() -> None:
    ratings = [Rating(f"P{u}", f"i{u}-{j}", "x", bool(j % 2), f"u{u}") for u in range(3) for j in range(10)]
    model = {f"i{u}-{j}": 1.0 for u in range(3) for j in range(10)}
    result = paired_test(model, rating_table(ratings))
    assert result.gap == pytest.approx(0.5) and result.ci is None and result.p is None
    assert "two people" in result.reason


def test_answers_without_spread_give_no_interval_and_no_test_but_a_reason() -> None:
    """Two people right on two items, a model wrong on both: the gap is −100 points, but four
    answers with no spread cannot say how much it would vary (it gave SE 0, CI [−1, −1], p = 0)."""
    ratings = [Rating(f"P{p}", f"i{j}", "x", True, "u") for p in range(2) for j in range(2)]
    result = paired_test({"i0": 0.0, "i1": 0.0}, rating_table(ratings))
    assert result.gap == -1.0 and result.n_items == 2 and result.n_people == 2
    assert result.se is None and result.ci is None and result.t is None and result.p is None and result.df is None
    assert result.reason == NO_SPREAD
    gap = paired_gap({"i0": 0.0, "i1": 0.0}, ratings)
    assert gap.gap == -1.0 and gap.gap_ci_low is None and gap.gap_ci_high is None


def test_mcnemar_in_the_paired_test_counts_against_the_human_majority() -> None:
    # three people; items i0..i3: majority right on i0, i1, i3 (2 or 3 of 3), wrong on i2
    rows = {"i0": (1, 1, 1), "i1": (1, 1, 0), "i2": (0, 0, 1), "i3": (1, 0, 1)}
    ratings = [Rating(f"P{p}", item, "x", bool(right[p])) for item, right in rows.items() for p in range(3)]
    model = {"i0": 1.0, "i1": 0.0, "i2": 1.0, "i3": 0.5}  # i3's fractional score stays out
    result = paired_test(model, rating_table(ratings))
    assert (result.mcnemar.a, result.mcnemar.b, result.mcnemar.c, result.mcnemar.d) == (1, 1, 1, 0)
    assert result.mcnemar.n_items == 3 and result.mcnemar.statistic == 0.0 and result.mcnemar.p == 1.0
    assert result.mcnemar.target == "against the majority of these participants, on items like these"


def test_a_model_right_on_every_item_keeps_its_own_spread_in_the_error() -> None:
    """100 people × 20 easy items (about 89% right) and a model right on all 20: the d_i vary only
    with the people's shares, so the items' mean square from them alone left out the model's own
    spread: near the ceiling with 20 items, a model as good as the people is right on all of them
    about one study in eight, and the test rejected that true null 12.8% of the time. The model's
    part is now that of a right/wrong score at (20 + 1)/(20 + 2)."""
    rng = np.random.default_rng(3)
    people, items = 100, 20
    chance = 1 / (1 + np.exp(-(rng.normal(0, 1, people)[:, None] + rng.normal(2.7, 1, items)[None, :])))
    right = rng.random((people, items)) < chance
    ratings = [Rating(f"P{p}", f"i{j}", "x", bool(right[p, j]), "u") for p in range(people) for j in range(items)]
    result = crossed_gap({f"i{j}": 1.0 for j in range(items)}, rating_table(ratings))
    shares = right.mean(axis=0)
    accuracy = (items + 1) / (items + 2)
    assert result.gap == pytest.approx(1.0 - shares.mean(), rel=1e-12)
    assert result.se_items**2 == pytest.approx((shares.var(ddof=1) + accuracy * (1 - accuracy)) / items, rel=1e-10)
    # the model's part is most of the error: the people's shares alone gave under half of it
    assert result.se_items > 2 * math.sqrt(shares.var(ddof=1) / items)
    # a model whose scores do vary keeps the mean square of its d_i, as before
    varied = {f"i{j}": float(j != 0) for j in range(items)}
    d = np.array([varied[f"i{j}"] for j in range(items)]) - shares
    assert crossed_gap(varied, rating_table(ratings)).se_items ** 2 == pytest.approx(d.var(ddof=1) / items, rel=1e-10)
