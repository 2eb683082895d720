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


def _sample(values: Sequence[float] | np.ndarray, confidence: float) -> np.ndarray | None:
    """The values as floats for an interval at `confidence`; None with fewer than two (one value has
    no sample std, so no interval)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    data = np.asarray(values, dtype=float)
    return data if data.size >= 2 else None


def t_mean_ci(
    values: Sequence[float] | np.ndarray,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    within: tuple[float, float] = (0.0, 1.0),
) -> Interval | None:
    """Student's t-interval of the mean of `values`, cut to `within` (the range the values live in).

    None with fewer than two values: one value has no sample std, so no interval.
    """
    data = _sample(values, confidence)
    if data is None:
        return None
    n = data.size
    # Student's t quantile from scipy.special (what scipy.stats.t.ppf computes): scipy.stats takes
    # seconds to import on a busy machine, and the study list prints this interval for every study
    from scipy import special

    mean = float(data.mean())
    half = float(special.stdtrit(n - 1, 0.5 + confidence / 2.0)) * float(data.std(ddof=1)) / math.sqrt(n)
    return Interval(low=max(within[0], mean - half), high=min(within[1], mean + half))


def small_n(n: int) -> bool:
    """True when a CI over `n` participants comes with a warning (one participant or more, fewer than `SMALL_N`)."""
    return 0 < n < SMALL_N


#: a t-interval over fewer than `CEILING_FEW` participants whose mean accuracy is at least `CEILING`
#: comes with a note that it may be too narrow. Near the ceiling the participants' accuracies are
#: skewed (a long tail below, none above), and the t-interval leans on their being roughly normal. In
#: simulation (docs/results.md, "The human accuracy's CI near the ceiling"; `python -m
#: perf.calibration.human_ci`) it covered 90.8% at 8 people, 91.3% at 20 and 92.0% at 25 (one unit of
#: 40 items, about 93% right; 90.1–90.2% at 8 and 20 with another seed) and 93.7% at 20 people × 20
#: items at 89% right, all below the band of 93.5–96.5%; 93.9% at 150 people × 30 items at 93% right
#: and 95.5% at 100 × 20 (inside the band); and 94–96% at the layouts further from the ceiling. 88% is
#: just under the lowest accuracy measured short (89%), 30 just over the most people measured short (25).
#: The easy layout (about 84% right, 20 people) covered 93.0% in one run and 94.6% in another: at the
#: band's edge, below the line, no note
CEILING = 0.88
CEILING_FEW = 30
#: the coverage the t-interval reached in simulation near the ceiling with fewer than `CEILING_FEW`
#: people (the figures above, rounded outwards): what the note says instead of 95%
CEILING_COVERAGE = (0.90, 0.94)
#: where the note sends the reader: the section of the docs with the simulation
CEILING_DOCS = 'the results page of the docs, "The human accuracy\'s CI near the ceiling"'


def near_ceiling(n: int, mean: float | None, *, method: str = T_INTERVAL) -> bool:
    """True when a t-interval over `n` participants with mean accuracy `mean` comes with the note of
    `ceiling_note`: two participants or more (one has no interval), fewer than `CEILING_FEW`, and a
    mean of at least `CEILING`. Other methods were not measured there: no note."""
    return method == T_INTERVAL and 2 <= n < CEILING_FEW and mean is not None and mean >= CEILING


def ceiling_note(n: int, mean: float | None, *, method: str = T_INTERVAL) -> str | None:
    """The sentence printed beside a t-interval near the ceiling (`near_ceiling`), from its number of
    participants and their mean accuracy; None elsewhere. Below `SMALL_N` it takes the place of the
    few-participants warning, saying both: the interval is wide, and may still be too narrow."""
    if mean is None or not near_ceiling(n, mean, method=method):
        return None
    low, high = CEILING_COVERAGE
    covered = (
        f"in simulation a t-interval over fewer than {CEILING_FEW} people this close to 100% covered about "
        f"{100 * low:.0f}–{100 * high:.0f}% of the time rather than 95%"
    )
    if small_n(n):
        return (
            f"Only {n} annotators, near the ceiling (mean accuracy {100 * mean:.1f}%): the CI is wide and assumes "
            f"their accuracies are roughly normal, which so few cannot show, and near the ceiling they are skewed: "
            f"{covered}. Even so wide, it may be too narrow: read it as a rough range (see {CEILING_DOCS})."
        )
    return (
        f"With {n} annotators near the ceiling (mean accuracy {100 * mean:.1f}%), their accuracies are skewed, "
        f"and {covered}: this CI may be too narrow (see {CEILING_DOCS})."
    )


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
    data = _sample(values, confidence)
    if data is None:
        return None
    n = data.size
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
