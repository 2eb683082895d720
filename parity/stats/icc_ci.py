"""The 95% CI of the ICC(2,k) (two-way random effects, absolute agreement, mean of k raters).

The ICC(2,k) is about raters like these, so its sampling error has two sources: the items and the
raters. A bootstrap over items keeps the raters fixed and leaves the second out; with three raters it
covered the population ICC(2,k) only 88–90% of the time in simulation (`perf/calibration/agreement.py`).
McGraw & Wong's (1996) analytic interval for ICC(A,k) (their Table 7, case 2A: an F interval with
Satterthwaite's degrees of freedom for the raters' mean square, normal effects) takes both in and held
its level there, so it is the one given.

It needs one full items × raters matrix. When raters grade a share of the answers the grades fall into
blocks of the same raters (`agreement.icc2k_by_blocks`) whose ICCs share raters, so their errors are
correlated by an amount nothing here estimates: each block gets its own interval, and the weighted ICC
over blocks none, with the reason in `note`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from parity.stats.agreement import IccBlock, complete_grades, icc2k, rater_blocks
from parity.stats.distributions import f_quantile
from parity.stats.ratings import RatingLike
from parity.stats.results import JsonResult
from parity.stats.table import RatingTable

METHOD = "McGraw & Wong (1996)"
#: the fewest items at which the interval's coverage was measured; below it no interval is printed
MIN_ITEMS = 20
TOO_FEW_ITEMS = (
    "no CI: {n} items graded by every rater, fewer than the {minimum} at which the interval's coverage was measured"
)
NO_ICC = "no CI: there is no ICC"
UNDEFINED = "no CI: the grades leave the interval undefined (no residual variation)"
SEVERAL_BLOCKS = (
    "no CI for the weighted ICC: the grades fall into {n} blocks of raters, whose ICCs share raters by an amount "
    "not estimated here (each block has its own interval); a bootstrap over items within blocks covered only "
    "{low:.1f}–{high:.1f}% in simulation"
)


@dataclass(frozen=True)
class IccCoverage:
    """One layout of the simulation in `perf/calibration/agreement.py`: how often a 95% CI covered the
    population ICC(2,k), McGraw & Wong's (None with several blocks) and the bootstrap over items."""

    raters: int
    items: int
    #: how many raters grade each item (fewer than `raters`: several blocks)
    block: int
    reps: int
    mcgraw_wong: float | None
    bootstrap: float


#: ``python -m perf.calibration.agreement --reps 1000 --seed 2 --layouts`` (the ICC's layouts)
CALIBRATION = (
    IccCoverage(raters=3, items=20, block=3, reps=1000, mcgraw_wong=0.960, bootstrap=0.889),
    IccCoverage(raters=3, items=100, block=3, reps=1000, mcgraw_wong=0.947, bootstrap=0.867),
    IccCoverage(raters=5, items=40, block=5, reps=1000, mcgraw_wong=0.943, bootstrap=0.904),
    IccCoverage(raters=3, items=90, block=2, reps=1000, mcgraw_wong=None, bootstrap=0.882),
    IccCoverage(raters=4, items=120, block=3, reps=1000, mcgraw_wong=None, bootstrap=0.868),
)
#: the simulated grades' population ICC(2,k) at three raters (item, rater and error variances 1, 0.25, 1)
POPULATION_ICC = 0.706


@dataclass(frozen=True)
class IccInterval(JsonResult):
    """The ICC(2,k)'s 95% CI, None with a reason in `note` where there is none; `blocks` are the
    blocks of the same raters with their ICC and its interval (`IccBlock.ci95`)."""

    icc_ci95: list[float] | None
    method: str
    note: str | None
    blocks: list[IccBlock]


def mcgraw_wong_interval(grades: np.ndarray, *, confidence: float = 0.95) -> list[float] | None:
    """McGraw & Wong's (1996) CI of ICC(A,k) for an items × raters matrix: the interval of ICC(A,1)
    (Table 7, case 2A), stepped up to k raters by Spearman–Brown. None where it is undefined."""

    n, k = grades.shape
    if n < 2 or k < 2:
        return None
    grand = grades.mean()
    ms_rows = k * ((grades.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    ms_cols = n * ((grades.mean(axis=0) - grand) ** 2).sum() / (k - 1)
    ss_error = ((grades - grand) ** 2).sum() - ms_rows * (n - 1) - ms_cols * (k - 1)
    ms_error = ss_error / ((n - 1) * (k - 1))
    if not ms_error > 0:
        return None
    single = (ms_rows - ms_error) / (ms_rows + (k - 1) * ms_error + k * (ms_cols - ms_error) / n)
    # Satterthwaite's degrees of freedom for the denominator's mix of mean squares
    ratio = ms_cols / ms_error
    spread = n * (1 + (k - 1) * single) - k * single
    df = (k - 1) * (n - 1) * (k * single * ratio + spread) ** 2
    df /= (n - 1) * k**2 * single**2 * ratio**2 + spread**2
    tail = (1 - confidence) / 2
    f_upper, f_lower = f_quantile(1 - tail, n - 1, df), f_quantile(1 - tail, df, n - 1)
    mix = k * ms_cols + (k * n - k - n) * ms_error
    low = n * (ms_rows - f_upper * ms_error) / (f_upper * mix + n * ms_rows)
    high = n * (f_lower * ms_rows - ms_error) / (mix + n * f_lower * ms_rows)
    bounds = [k * value / (1 + (k - 1) * value) for value in (low, high)]
    return [float(value) for value in bounds] if all(np.isfinite(bounds)) else None


def icc_interval(
    ratings: Iterable[RatingLike] | RatingTable, *, scores: Mapping[str, float] | None = None
) -> IccInterval:
    """The ICC(2,k)'s 95% CI as the results give it: McGraw & Wong's when every rater graded every
    item (one block), otherwise none for the weighted ICC and one per block."""
    blocks: list[IccBlock] = []
    intervals: list[list[float] | None] = []
    for raters, rows in rater_blocks(ratings).items():
        grades, _ = complete_grades(rows, scores=scores)
        icc = icc2k(rows, scores=scores).icc
        ci = mcgraw_wong_interval(grades) if icc is not None and grades.shape[0] >= MIN_ITEMS else None
        blocks.append(IccBlock(raters=list(raters), n_items=grades.shape[0], icc=icc, ci95=ci))
        intervals.append(ci)
    with_icc = [block for block in blocks if block.icc is not None]
    if not with_icc:
        return IccInterval(None, METHOD, NO_ICC, blocks)
    if len(blocks) > 1:
        rates = [row.bootstrap for row in CALIBRATION if row.block < row.raters]
        note = SEVERAL_BLOCKS.format(n=len(blocks), low=100 * min(rates), high=100 * max(rates))
        return IccInterval(None, METHOD, note, blocks)
    if blocks[0].n_items < MIN_ITEMS:
        return IccInterval(None, METHOD, TOO_FEW_ITEMS.format(n=blocks[0].n_items, minimum=MIN_ITEMS), blocks)
    if intervals[0] is None:
        return IccInterval(None, METHOD, UNDEFINED, blocks)
    return IccInterval(intervals[0], METHOD, None, blocks)


def calibration_note() -> str:
    """The sentence the results print beside the ICC's CI: how it was made and how often it covered."""
    single = [row for row in CALIBRATION if row.mcgraw_wong is not None]
    rates = [row.mcgraw_wong for row in single if row.mcgraw_wong is not None]
    return (
        f"95% CI by the F interval of {METHOD}; in simulation it covered the population ICC(2,k) "
        f"{100 * min(rates):.1f}–{100 * max(rates):.1f}% of the time "
        f"at {', '.join(f'{row.raters} raters × {row.items} items' for row in single)}"
    )
