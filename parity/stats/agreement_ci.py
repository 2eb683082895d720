"""95% CIs of the agreement statistics, by a bootstrap over items.

An agreement statistic is estimated from a sample of items, and its sampling SD is large at the
sizes rating studies have (Fleiss' κ: about 0.13 with 3 raters × 40 items), so a κ without an
interval reads as more certain than it is. The items are the unit resampled: each resample draws
items with replacement, keeping every rating of an item together, since the ratings of one item
are not independent of each other. The raters stay fixed: the statistic describes these raters'
agreement on items like these.

Fleiss' κ and nominal Krippendorff's α are both functions of the items × labels count table, so
every resample is computed at once from that table (`parity.stats.bootstrap.index_bootstrap_interval`, the
arithmetic of `scipy.stats.bootstrap`, vectorised). Which
bootstrap interval is used, and at which layouts it holds its level, was chosen by simulation
(`perf/calibration/agreement.py`); `AGREEMENT_CALIBRATION` carries that record to the page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from parity.stats.agreement import Ratings
from parity.stats.bootstrap import index_bootstrap_interval
from parity.stats.matrix import label_matrix
from parity.stats.results import JsonResult

#: the bootstrap interval the simulation chose (see `perf/calibration/agreement.py`)
METHOD = "BCa"
N_RESAMPLES = 2_000
#: the fewest items with two answers or more at which the interval's coverage was measured; below
#: it no interval is printed, since nothing says it would hold its level there
MIN_ITEMS = 20
TOO_FEW_ITEMS = (
    "no CI: {n} items with two ratings or more, fewer than the {minimum} at which the interval's coverage was measured"
)
DEGENERATE = "no CI: in some resamples every rating has the same label, so the statistic is undefined there"


@dataclass(frozen=True)
class Coverage:
    """One layout of the simulation in `perf/calibration/agreement.py`: how often the 95% CI
    covered the population value."""

    raters: int
    items: int
    reps: int
    fleiss_kappa: float
    krippendorff_alpha: float


#: ``python -m perf.calibration.agreement --reps 1000 --seed 2`` (BCa, 2,000 resamples)
CALIBRATION = (
    Coverage(raters=3, items=20, reps=1000, fleiss_kappa=0.959, krippendorff_alpha=0.955),
    Coverage(raters=3, items=40, reps=1000, fleiss_kappa=0.948, krippendorff_alpha=0.948),
    Coverage(raters=5, items=100, reps=1000, fleiss_kappa=0.949, krippendorff_alpha=0.949),
)
#: the population κ of the simulated raters (three labels at 0.5/0.3/0.2, each rater right 60% of
#: the time); at high agreement on a skewed label with few items the interval is often undefined
POPULATION_KAPPA = 0.36
#: the band a 95% interval's measured coverage must lie in to be called calibrated
CALIBRATED = (0.935, 0.965)


def calibration_note() -> str:
    """The sentence the results print beside the agreement CIs: how they were made, the coverage
    measured, and the layouts where it fell outside the calibrated band."""
    rates = [rate for row in CALIBRATION for rate in (row.fleiss_kappa, row.krippendorff_alpha)]
    sentence = (
        f"95% CIs by a {METHOD} bootstrap over items ({N_RESAMPLES:,} resamples); in simulation they "
        f"covered the population value ({POPULATION_KAPPA:.2f}) "
        f"{100 * min(rates):.1f}–{100 * max(rates):.1f}% of the time "
        f"at {', '.join(f'{row.raters} raters × {row.items} items' for row in CALIBRATION)}"
    )
    low, high = CALIBRATED
    off = [
        f"{name} at {row.raters} × {row.items}: {100 * rate:.1f}%"
        for row in CALIBRATION
        for name, rate in (("Fleiss' κ", row.fleiss_kappa), ("Krippendorff's α", row.krippendorff_alpha))
        if not low <= rate <= high
    ]
    if off:
        sentence += f"; outside {100 * low:.1f}–{100 * high:.1f}%: " + ", ".join(off)
    return sentence


@dataclass(frozen=True)
class AgreementIntervals(JsonResult):
    """95% CIs of Fleiss' κ and nominal Krippendorff's α over the same item resamples; None with a
    reason in `note` where there is no interval to give."""

    fleiss_kappa_ci95: list[float] | None
    krippendorff_alpha_ci95: list[float] | None
    n_items: int
    method: str
    n_resamples: int
    note: str | None


def fleiss_kappa_of_counts(counts: np.ndarray) -> np.ndarray:
    """Fleiss' κ of items × labels count tables, over the last two axes (items with ≥ 2 answers);
    NaN where undefined. Equal to `agreement.fleiss_kappa` for one table."""
    n = counts.sum(axis=-1)
    p_bar = ((counts * (counts - 1)).sum(axis=-1) / (n * (n - 1))).mean(axis=-1)
    totals = counts.sum(axis=-2)
    shares = totals / totals.sum(axis=-1, keepdims=True)
    p_e = (shares**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (p_bar - p_e) / (1.0 - p_e)
    return np.where(np.isclose(p_e, 1.0), np.nan, kappa)


def nominal_alpha_of_counts(counts: np.ndarray) -> np.ndarray:
    """Nominal Krippendorff's α of items × labels count tables (items with ≥ 2 answers), from the
    coincidence matrix's diagonal: α = 1 − (n − 1)(n − Σ_c o_cc) / (n² − Σ_c n_c²). NaN where
    undefined. Equal to the ``krippendorff`` package's nominal α for one table."""
    n_item = counts.sum(axis=-1)
    coincide = (counts * (counts - 1)).sum(axis=-1) / (n_item - 1)
    n = n_item.sum(axis=-1).astype(np.float64)
    by_label = counts.sum(axis=-2).astype(np.float64)
    expected = n**2 - (by_label**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n - 1.0) * (n - coincide.sum(axis=-1)) / expected
    return np.where(expected > 0, alpha, np.nan)


def _of_items(statistic: Callable[[np.ndarray], np.ndarray], counts: np.ndarray, items: np.ndarray) -> np.ndarray:
    """The statistic of the items chosen by `items` (rows of item indices)."""
    return statistic(counts[items])


def agreement_intervals(
    ratings: Ratings, *, seed: int = 0, n_resamples: int = N_RESAMPLES, method: str = METHOD
) -> AgreementIntervals:
    """Fleiss' κ's and nominal Krippendorff's α's 95% CIs by a bootstrap over items (seeded)."""
    matrix = label_matrix(ratings)
    counts = matrix.item_counts()
    counts = counts[counts.sum(axis=1) >= 2].astype(np.float64)
    n_items = int(counts.shape[0])

    def empty(note: str) -> AgreementIntervals:
        return AgreementIntervals(None, None, n_items, method, n_resamples, note)

    if n_items < MIN_ITEMS:
        return empty(TOO_FEW_ITEMS.format(minimum=MIN_ITEMS, n=n_items))
    if np.isnan(fleiss_kappa_of_counts(counts)) or np.isnan(nominal_alpha_of_counts(counts)):
        return empty(DEGENERATE)
    intervals = []
    for statistic in (fleiss_kappa_of_counts, nominal_alpha_of_counts):
        interval = index_bootstrap_interval(
            partial(_of_items, statistic, counts),
            n_items,
            n_resamples=n_resamples,
            seed=seed,
            method=method,
        )
        if not (np.isfinite(interval.low) and np.isfinite(interval.high)):
            return empty(DEGENERATE)
        intervals.append([interval.low, interval.high])
    return AgreementIntervals(intervals[0], intervals[1], n_items, method, n_resamples, None)
