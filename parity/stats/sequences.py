"""An anytime-valid confidence sequence for the mean of values in [0, 1], taken in the order they came.

Recruiting until a CI is narrow enough and stopping there breaks the CI: the t-interval is narrow
when the sample std happens to be small, so the interval printed at the stop covers less than its
level (80–91% for a 95% t-interval and a 10-point target; docs/results.md, "Recruiting until precise,
simulated").
A confidence sequence (C_1, C_2, …) holds the mean in every C_n at once with probability ≥ 95%,
so it covers at any stopping time, including "the first n at which C_n is narrow enough".

This is the hedged capital confidence sequence of Waudby-Smith & Ramdas, "Estimating means of
bounded random variables by betting", JRSS B 86(1), 2024 (Theorem 3, with their predictable plug-in
bets), for values X_1, X_2, … in [0, 1] whose conditional mean given the past is μ. For a candidate
mean m, two bettors play against "the mean is m", one on each side:

    μ̂_t   = (1/2 + Σ_{i≤t} X_i) / (t + 1)                    (a regularised running mean)
    σ̂²_t  = (1/4 + Σ_{i≤t} (X_i − μ̂_i)²) / (t + 1)            (a regularised running variance)
    λ_t   = √(2 log(2/α) / (σ̂²_{t−1} t log(1 + t)))           (a bet size that uses X_1 … X_{t−1} only)
    K⁺_t(m) = Π_{i≤t} (1 + min(λ_i, c/m) (X_i − m)),   K⁻_t(m) = Π_{i≤t} (1 − min(λ_i, c/(1 − m)) (X_i − m))
    K_t(m)  = (K⁺_t(m) + K⁻_t(m)) / 2

with c = 3/4. Under "the mean is m" K_t(m) is a nonnegative martingale starting at 1 (the caps keep
every factor ≥ 1 − c > 0), so by Ville's inequality it ever reaches 1/α with probability ≤ α: the
set {m : K_s(m) < 1/α for every s ≤ t} holds μ at every t at once with probability ≥ 1 − α. (The
paper hedges with max(K⁺, K⁻)/2; the mean of the two is a martingale too and never smaller, so it
rejects at least as much and is as valid.) The set is found on a grid of m (steps of 1/1000): the
interval printed runs from the rejected grid point just below the lowest accepted one to the
rejected grid point just above the highest, so the boundary, which lies between them, is inside it
(at most 0.1 point wider each side than the exact set).

Cost: O(n × 1001) per sequence, a few milliseconds for hundreds of participants.

The price of being valid at every n: it is wider than a fixed-n interval, so a width target takes
two to four times the participants a t-interval's would (for 10 points, 112 instead of 52 at the
calibration's one-unit layout, 73 instead of 19 where items are easy; docs/results.md), and where
the stop is not data-dependent it covers more than 95% (it is conservative). The paper's closed-form
alternative, the predictable plug-in empirical-Bernstein sequence (Theorem 2), needed about 195 at
the one-unit layout (c = 1/2): its bets are capped at c and its Bernstein bound costs
log(2/α)/(c n) whatever the spread.

Why not the `confseq` package (the authors' own): its last release (0.0.11, January 2023) is a
source distribution that compiles C++ against Boost and pulls matplotlib, pandas and pytest in at
run time, for a few lines of numpy here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from parity.stats.bootstrap import DEFAULT_CONFIDENCE, Interval

#: the largest share of what is at stake a bet may risk (the paper's c: they suggest 1/2 or 3/4; 3/4 needs
#: about a quarter fewer participants for a 10-point target where accuracies crowd near 100%)
TRUNCATION = 0.75
#: candidate means 0, 1/GRID, …, 1
GRID = 1000
#: values taken at a time (the capital of every candidate mean is a GRID + 1 row per value)
_CHUNK = 256


def confidence_sequence_path(
    values: Sequence[float] | np.ndarray, *, confidence: float = DEFAULT_CONFIDENCE, truncation: float = TRUNCATION
) -> tuple[np.ndarray, np.ndarray]:
    """The sequence's lower and upper bounds after each value (running intersection). The bounds
    after the k-th value use the first k values only: they are `confidence_sequence(values[:k])`."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    x = np.asarray(values, dtype=float)
    if x.size and (np.isnan(x).any() or x.min() < 0.0 or x.max() > 1.0):
        raise ValueError("a confidence sequence for a bounded mean needs values in [0, 1]")
    n = x.size
    if n == 0:
        return np.empty(0), np.empty(0)
    alpha = 1.0 - confidence
    t = np.arange(1, n + 1, dtype=float)
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1.0)
    sigma2 = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1.0)
    # what was known before the t-th value: the prior variance 1/4 before the first
    sigma2_before = np.concatenate(([0.25], sigma2[:-1]))
    bet = np.sqrt(2.0 * math.log(2.0 / alpha) / (sigma2_before * t * np.log1p(t)))
    m = np.linspace(0.0, 1.0, GRID + 1)
    with np.errstate(divide="ignore"):
        # at m = 0 (m = 1) the bet on the mean being higher (lower) cannot lose it all: no cap
        cap_up, cap_down = truncation / m, truncation / (1.0 - m)
    log_up, log_down = np.zeros(m.size), np.zeros(m.size)
    threshold = math.log(1.0 / alpha)
    low, high = np.empty(n), np.empty(n)
    for start in range(0, n, _CHUNK):
        xs, bets = x[start : start + _CHUNK], bet[start : start + _CHUNK]
        gain = xs[:, None] - m[None, :]
        up = log_up + np.cumsum(np.log1p(np.minimum(bets[:, None], cap_up) * gain), axis=0)
        down = log_down + np.cumsum(np.log1p(-np.minimum(bets[:, None], cap_down) * gain), axis=0)
        log_up, log_down = up[-1], down[-1]
        kept = np.logaddexp(up, down) - math.log(2.0) < threshold
        anything = kept.any(axis=1)
        first = np.argmax(kept, axis=1)
        last = GRID - np.argmax(kept[:, ::-1], axis=1)
        # out to the neighbouring rejected grid points: the exact set lies within them
        low[start : start + xs.size] = np.where(anything, m[np.maximum(first - 1, 0)], 0.0)
        high[start : start + xs.size] = np.where(anything, m[np.minimum(last + 1, GRID)], 1.0)
    # every C_t holds μ at once (w.p. ≥ 1 − α), so their running intersection does too; a time at
    # which every candidate is rejected (μ already lost) adds nothing to it
    return np.maximum.accumulate(low), np.minimum.accumulate(high)


def confidence_sequence(
    values: Sequence[float] | np.ndarray, *, confidence: float = DEFAULT_CONFIDENCE, truncation: float = TRUNCATION
) -> Interval | None:
    """The sequence after the last of `values` (in the order they came): an interval for their mean
    that is valid however the number of values was chosen. None without a value."""
    low, high = confidence_sequence_path(values, confidence=confidence, truncation=truncation)
    if not low.size:
        return None
    # should the running intersection ever be empty (μ was lost), print the point where it closed
    # rather than crossed bounds
    lo, hi = float(low[-1]), float(high[-1])
    return Interval(low=lo, high=hi) if lo <= hi else Interval(low=hi, high=hi)
