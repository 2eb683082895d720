"""The CI of a mean over few participants: Student's t-interval.

Human accuracy is a mean over participants, and a study often has few of them (Ruis et al.'s
implicature subsets: 5 annotators each). A percentile bootstrap of a mean of n values is too
narrow at small n: its resamples spread like the population std over √n (a factor √((n−1)/n)
short of the sample std) and its tails are the normal's, not Student's. At n = 5 its 95% interval
is about 0.63 times as wide as the t-interval (1.96 · √(4/5) / 2.776), so it covers far less than
95%. The t-interval, mean ± t(1 − α/2, n − 1) · s / √n with s the sample std, is exact when the
participants' accuracies are normal and close to it for the means of many items each.

Accuracy lives in [0, 1]: an interval reaching past either end is cut there (this keeps its
coverage; with two or three participants it often spans most of [0, 1], which is what two or
three people can tell).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from parity.stats.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_N_BOOT, DEFAULT_SEED, Interval

#: the participants' accuracies resampled with the percentile bootstrap (`bootstrap_mean_ci`)
BOOTSTRAP = "percentile_bootstrap"
#: Student's t-interval over the participants' accuracies (`t_mean_ci`); the default
T_INTERVAL = "t_interval"
#: the anytime-valid confidence sequence over the annotators' accuracies in the order they completed
#: (`parity.stats.sequences`): the interval of a study recruited until it was narrow enough, where a
#: t-interval would not cover at the stop
CONFIDENCE_SEQUENCE = "confidence_sequence"
#: the mean ± half the target width, for a study recruited by planned looks (`parity.stats.looks`):
#: the looks set the number of participants from their spread alone so that this interval covers
FIXED_WIDTH = "fixed_width_planned_looks"
CI_METHODS = (T_INTERVAL, BOOTSTRAP, CONFIDENCE_SEQUENCE, FIXED_WIDTH)
#: what each method is called in the tables' notes and on the pages
CI_METHOD_LABELS = {
    T_INTERVAL: "Student's t-interval over annotators (n − 1 degrees of freedom)",
    BOOTSTRAP: "percentile bootstrap over annotators",
    CONFIDENCE_SEQUENCE: "confidence sequence over annotators in the order they completed (Waudby-Smith and "
    "Ramdas 2024), valid at the data-dependent stop of recruitment",
    FIXED_WIDTH: "fixed-width interval (the mean ± half the target width) at the last of recruitment's planned looks, "
    "whose numbers of participants were set by the spread of accuracies alone (Stein 1945)",
}

#: resampled values drawn at once by the studentized bootstrap (8 MB of floats)
_DRAWS_PER_CHUNK = 1_000_000

#: fewer participants than this and a CI over them comes with a warning: it is wide, and it leans on
#: their accuracies being roughly normal, which so few values cannot show
SMALL_N = 10


def t_mean_ci(
    values: Sequence[float] | np.ndarray,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    within: tuple[float, float] = (0.0, 1.0),
) -> Interval | None:
    """Student's t-interval of the mean of `values`, cut to `within` (the range the values live in).

    None with fewer than two values: one value has no sample std, so no interval.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    data = np.asarray(values, dtype=float)
    n = data.size
    if n < 2:
        return None
    # Student's t quantile from scipy.special (what scipy.stats.t.ppf computes): scipy.stats takes
    # seconds to import on a busy machine, and the study list prints this interval for every study
    from scipy import special

    mean = float(data.mean())
    half = float(special.stdtrit(n - 1, 0.5 + confidence / 2.0)) * float(data.std(ddof=1)) / math.sqrt(n)
    return Interval(low=max(within[0], mean - half), high=min(within[1], mean + half))


def small_n(n: int) -> bool:
    """True when a CI over `n` participants comes with a warning (one participant or more, fewer than `SMALL_N`)."""
    return 0 < n < SMALL_N


def studentized_bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    within: tuple[float, float] = (0.0, 1.0),
) -> Interval | None:
    """The studentized bootstrap (bootstrap-t) interval of the mean of `values`, cut to `within`.

    Efron and Tibshirani, *An Introduction to the Bootstrap* (1993), §12.5; Hall, *The Bootstrap and
    Edgeworth Expansion* (1992), §3.6: each resample's T* = (mean* − mean) / (s* / √n) takes the place
    of Student's t, so the interval follows the participants' own skew, [mean − q(1 − α/2) · s/√n,
    mean − q(α/2) · s/√n] with q the quantiles of T*. scipy.stats.bootstrap has no studentized
    method (percentile, basic and BCa only). A resample whose values are all equal has no spread: its
    T* is ±∞ (the side of its mean), and 0 where its mean is the sample's.

    None with fewer than two values; values without spread give the zero-width interval at their mean,
    as `t_mean_ci` does.

    Not the human accuracy's interval: a candidate for participants' accuracies skewed near the
    ceiling, measured beside the others by `python -m perf.calibration.human_ci` (docs/results.md,
    "The human accuracy's CI near the ceiling"). It covers 94.3% where the t-interval covers 90.8%
    (8 people, 40 items at 93%), but over three sets of draws only about 93.6%, and a small unit with
    some people all right gets all of [0, 1].
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    data = np.asarray(values, dtype=float)
    n = data.size
    if n < 2:
        return None
    mean = float(data.mean())
    std = float(data.std(ddof=1))
    if std == 0.0:
        return Interval(low=max(within[0], mean), high=min(within[1], mean))
    rng = np.random.default_rng(seed)
    t_star = np.empty(n_boot)
    step = max(1, _DRAWS_PER_CHUNK // n)
    for start in range(0, n_boot, step):
        stop = min(n_boot, start + step)
        resampled = data.take(rng.integers(0, n, size=(stop - start, n)))
        with np.errstate(divide="ignore", invalid="ignore"):
            t_star[start:stop] = (resampled.mean(axis=1) - mean) / (resampled.std(axis=1, ddof=1) / math.sqrt(n))
    t_star[np.isnan(t_star)] = 0.0
    # the ⌈B · α/2⌉-th and ⌈B · (1 − α/2)⌉-th smallest T* (order statistics: an infinite T* next to a
    # finite one would make an interpolated quantile nan); the count rounded first, as (1 − 0.95) / 2
    # is 0.025000000000000022 in floating point and would otherwise take the 251st of 10,000
    in_tail = n_boot * (1.0 - confidence) / 2.0
    ordered = np.sort(t_star)
    low_q = ordered[max(0, math.ceil(round(in_tail, 6)) - 1)]
    high_q = ordered[min(n_boot - 1, math.ceil(round(n_boot - in_tail, 6)) - 1)]
    se = std / math.sqrt(n)
    return Interval(low=max(within[0], mean - float(high_q) * se), high=min(within[1], mean - float(low_q) * se))
