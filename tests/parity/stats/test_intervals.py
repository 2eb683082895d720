"""The CI of human accuracy over few annotators: Student's t-interval, against hand-computed numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from parity.stats import Rating, accuracy_by_unit, accuracy_summary, bootstrap_mean_ci, t_mean_ci
from parity.stats.intervals import studentized_bootstrap_ci

# Five annotators, as in each of Ruis et al.'s subsets.
FIVE = [0.9, 0.8, 0.85, 0.95, 0.7]
# By hand: mean 4.2 / 5 = 0.84; deviations 0.06, -0.04, 0.01, 0.11, -0.14, squares summing to 0.037;
# sample std √(0.037 / 4) = 0.096177; standard error 0.096177 / √5 = 0.043012; t(0.975, 4) = 2.776;
# half-width 2.776 · 0.043012 = 0.11941.
HALF = 2.776 * (0.037 / 4) ** 0.5 / 5**0.5


def _ratings(accuracies: list[float], unit: str | None = None, items: int = 20) -> list[Rating]:
    """Each annotator right on the first `accuracy · items` items."""
    return [
        Rating(f"{unit}-A{n}", f"i{index}", "yes", index < round(accuracy * items), unit)
        for n, accuracy in enumerate(accuracies)
        for index in range(items)
    ]


def test_five_accuracies_give_the_t_interval_computed_by_hand() -> None:
    interval = t_mean_ci(FIVE)
    assert interval is not None
    assert (interval.low, interval.high) == pytest.approx((0.84 - HALF, 0.84 + HALF), abs=2e-4)
    assert (interval.low, interval.high) == pytest.approx((0.7206, 0.9594), abs=1e-4)


def test_the_t_interval_is_wider_than_the_percentile_bootstrap_at_five() -> None:
    # the bootstrap spreads like the population std over √n with the normal's 1.96: about
    # 1.96 · √(4/5) / 2.776 = 0.63 times the t-interval's width at n = 5
    t, boot = t_mean_ci(FIVE), bootstrap_mean_ci(FIVE)
    assert t is not None and boot is not None
    assert (boot.high - boot.low) / (t.high - t.low) == pytest.approx(1.96 * (4 / 5) ** 0.5 / 2.776, abs=0.05)


def test_the_interval_is_cut_to_the_range_of_an_accuracy() -> None:
    # 1.0 and 0.6: mean 0.8, sample std 0.2828, t(0.975, 1) = 12.706: ± 2.54, cut to [0, 1]
    interval = t_mean_ci([1.0, 0.6])
    assert interval is not None and (interval.low, interval.high) == (0.0, 1.0)
    assert t_mean_ci([0.5]) is None and t_mean_ci([]) is None
    with pytest.raises(ValueError, match="confidence"):
        t_mean_ci(FIVE, confidence=1.0)


def test_the_confidence_sets_the_t_quantile() -> None:
    # t(0.95, 4) = 2.132 for a 90% interval
    interval = t_mean_ci(FIVE, confidence=0.90)
    assert interval is not None
    assert interval.high - 0.84 == pytest.approx(2.132 * (0.037 / 4) ** 0.5 / 5**0.5, abs=2e-4)


def test_a_unit_of_five_annotators_gets_the_t_interval_and_a_warning() -> None:
    (unit,) = accuracy_by_unit(_ratings(FIVE, "s1"))
    assert unit.n_participants == 5 and unit.mean == pytest.approx(0.84)
    assert (unit.ci_low, unit.ci_high) == pytest.approx((0.84 - HALF, 0.84 + HALF), abs=2e-4)
    assert unit.ci_method == "t_interval" and unit.small_n_warning is True
    # the published means do not move: only the interval changed
    assert (unit.best, unit.worst) == (0.95, 0.7)


def test_ten_annotators_or_more_carry_no_warning() -> None:
    nine = accuracy_summary(_ratings([0.8, 0.9] * 4 + [0.85]))
    ten = accuracy_summary(_ratings([0.8, 0.9] * 5))
    assert nine.small_n_warning is True and ten.small_n_warning is False
    # one annotator: no CI, and the warning still says how few stand behind the figure
    alone = accuracy_summary(_ratings([0.8]))
    assert (alone.ci_low, alone.small_n_warning) == (None, True)
    assert accuracy_summary([]).small_n_warning is False


def test_an_unknown_ci_method_is_refused() -> None:
    with pytest.raises(ValueError, match="ci_method must be one of t_interval, percentile_bootstrap"):
        accuracy_summary(_ratings(FIVE), ci_method="wald")


def _bootstrap_t_by_hand(values: list[float], n_boot: int, seed: int) -> tuple[float, float]:
    """Efron and Tibshirani (1993, §12.5), one resample at a time with the same seeded indices."""
    data = np.asarray(values)
    n, mean, se = data.size, data.mean(), data.std(ddof=1) / math.sqrt(len(values))
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, n, size=(n_boot, n))
    studentized = []
    for row in indices:
        resample = data[row]
        spread = resample.std(ddof=1)
        if spread == 0.0:
            studentized.append(0.0 if resample.mean() == mean else math.copysign(math.inf, resample.mean() - mean))
        else:
            studentized.append((resample.mean() - mean) / (spread / math.sqrt(n)))
    ordered = sorted(studentized)
    # the 2.5% and 97.5% order statistics: the ⌈B · α⌉-th smallest
    low_q, high_q = ordered[math.ceil(n_boot * 0.025) - 1], ordered[math.ceil(n_boot * 0.975) - 1]
    return max(0.0, mean - high_q * se), min(1.0, mean - low_q * se)


def test_the_studentized_bootstrap_is_its_formula() -> None:
    skewed = [1.0, 0.975, 0.975, 0.95, 0.95, 0.925, 0.85, 0.6]
    for values in (FIVE, skewed):
        interval = studentized_bootstrap_ci(values, n_boot=2_000, seed=3)
        assert interval is not None
        assert (interval.low, interval.high) == pytest.approx(_bootstrap_t_by_hand(values, 2_000, 3), abs=1e-12)


def test_the_studentized_bootstrap_follows_the_skew_where_t_is_symmetric() -> None:
    # near the ceiling, one participant far below the rest: the mean is uncertain mostly downwards
    skewed = [1.0, 0.975, 0.975, 0.95, 0.95, 0.925, 0.85, 0.6]
    mean = sum(skewed) / len(skewed)
    boot, t = studentized_bootstrap_ci(skewed), t_mean_ci(skewed)
    assert boot is not None and t is not None
    assert mean - boot.low > 1.5 * (boot.high - mean)
    # the t-interval is the mean ± the same arm (cut at 1.0 above); the bootstrap-t reaches lower
    assert boot.low < t.low and boot.high < t.high


def test_the_studentized_bootstrap_without_spread_and_at_the_edges() -> None:
    # no spread: the zero-width interval at the mean, as the t-interval gives
    same = studentized_bootstrap_ci([0.9, 0.9, 0.9])
    assert same is not None and (same.low, same.high) == (0.9, 0.9)
    assert studentized_bootstrap_ci([0.5]) is None and studentized_bootstrap_ci([]) is None
    # two values: half the resamples repeat one of them (no spread, T* = ±∞), so the interval is all of [0, 1]
    both = studentized_bootstrap_ci([1.0, 0.6])
    assert both is not None and (both.low, both.high) == (0.0, 1.0)
    # seeded: the same call, the same interval
    assert studentized_bootstrap_ci(FIVE) == studentized_bootstrap_ci(FIVE)
    with pytest.raises(ValueError, match="confidence"):
        studentized_bootstrap_ci(FIVE, confidence=0.0)
