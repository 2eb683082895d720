"""The anytime-valid confidence sequence of a bounded mean (parity.stats.sequences): the bettors'
capital written out by hand, coverage at every time at once on known distributions, and a width
that shrinks as values come."""

from __future__ import annotations

import math

import numpy as np
import pytest

from parity.stats.recruitment import interval_width, precision_interval, precision_widths
from parity.stats.sequences import GRID, confidence_sequence, confidence_sequence_path


def capital_by_hand(x: list[float], m: float, alpha: float = 0.05, c: float = 0.75) -> list[float]:
    """Waudby-Smith & Ramdas (2024), Theorem 3's two bettors with the predictable plug-in bets,
    one value at a time: the capital against "the mean is m" after each value."""
    total, squares, sigma2_before = 0.0, 0.0, 0.25
    up = down = 1.0
    out = []
    for t, value in enumerate(x, start=1):
        bet = math.sqrt(2 * math.log(2 / alpha) / (sigma2_before * t * math.log(1 + t)))
        up *= 1 + min(bet, c / m if m else math.inf) * (value - m)
        down *= 1 - min(bet, c / (1 - m) if m < 1 else math.inf) * (value - m)
        out.append((up + down) / 2)
        total += value
        mean = (0.5 + total) / (t + 1)
        squares += (value - mean) ** 2
        sigma2_before = (0.25 + squares) / (t + 1)
    return out


def test_the_sequence_is_the_set_of_means_the_bettors_have_not_beaten():
    rng = np.random.default_rng(7)
    x = rng.beta(6, 3, 40).tolist()
    low, high = confidence_sequence_path(x)
    grid = np.linspace(0, 1, GRID + 1)
    kept = np.array([max(capital_by_hand(x, m)) < 20 for m in grid])  # 1/α = 20, at every time so far
    inside = grid[kept]
    # every candidate never beaten lies inside; the bounds are the nearest beaten candidates
    assert low[-1] <= inside.min() and inside.max() <= high[-1]
    assert low[-1] == pytest.approx(inside.min() - 1 / GRID) and high[-1] == pytest.approx(inside.max() + 1 / GRID)
    assert not kept[grid < low[-1]].any() and not kept[grid > high[-1]].any()


@pytest.mark.parametrize(
    ("draw", "mean"),
    [
        (lambda rng, n: rng.random(n) < 0.3, 0.3),  # 0/1 values: the bounded case at its hardest
        (lambda rng, n: rng.beta(8, 2, n), 0.8),  # accuracies clustered near the top
    ],
)
def test_it_holds_the_mean_at_every_time_at_once(draw, mean):
    rng = np.random.default_rng(11)
    reps, n = 300, 150
    missed = 0
    for _ in range(reps):
        low, high = confidence_sequence_path(draw(rng, n).astype(float))
        missed += bool(((low > mean) | (high < mean)).any())
    # valid at any stopping time: the mean escapes at some time in at most 5% of runs (it is
    # conservative, so well under); 300 runs at 5% would miss 15 ± 3.8
    assert missed / reps <= 0.05


def test_the_width_shrinks_as_values_come():
    rng = np.random.default_rng(3)
    x = np.clip(rng.normal(0.7, 0.15, 400), 0, 1)
    low, high = confidence_sequence_path(x)
    width = high - low
    assert (np.diff(width) <= 1e-12).all()  # the running intersection never widens
    assert width[9] > 0.35 and width[99] < 0.15 and width[399] < 0.07
    # the price of validity at every n: wider than the t-interval at a fixed n, by less than 2.5 times
    t_width = 2 * 1.966 * x.std(ddof=1) / math.sqrt(400)
    assert t_width < width[399] < 2.5 * t_width


def test_the_rule_sees_after_each_completion_the_interval_it_prints():
    rng = np.random.default_rng(5)
    accuracies = rng.beta(7, 3, 60).tolist()
    widths = precision_widths(accuracies)
    assert widths[0] is None and precision_interval(accuracies[:1]) is None
    for n in (2, 3, 17, 60):
        assert widths[n - 1] == pytest.approx(interval_width(precision_interval(accuracies[:n])), abs=1e-12)
    interval = confidence_sequence(accuracies)
    assert interval is not None and interval.low < float(np.mean(accuracies)) < interval.high


def test_values_outside_zero_to_one_are_refused_with_a_message():
    with pytest.raises(ValueError, match=r"values in \[0, 1\]"):
        confidence_sequence([0.5, 1.2])
    with pytest.raises(ValueError, match="confidence must lie"):
        confidence_sequence([0.5], confidence=1.0)
    assert confidence_sequence([]) is None
