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

from parity.stats.bootstrap import DEFAULT_CONFIDENCE, Interval

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
