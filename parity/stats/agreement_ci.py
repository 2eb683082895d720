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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

import numpy as np
from threadpoolctl import threadpool_limits

from parity.stats.agreement import Ratings
from parity.stats.bootstrap import index_bootstrap_interval
from parity.stats.matrix import MISSING, LabelMatrix, label_matrix
from parity.stats.ratings import RatingLike
from parity.stats.results import JsonResult
from parity.stats.table import RatingTable, rating_table

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
    #: None where only the mean pairwise κ was measured (`--only-pairwise`)
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    mean_pairwise_kappa: float
    #: units of `raters` × `items` each (the mean pairwise κ is averaged over them)
    units: int = 1

    @property
    def layout(self) -> str:
        per_unit = f"{self.raters} raters × {self.items} items"
        return per_unit if self.units == 1 else f"{self.units} units of {per_unit}"

    @property
    def short(self) -> str:
        per_unit = f"{self.raters} × {self.items}"
        return per_unit if self.units == 1 else f"{self.units} × {per_unit}"

    def rates(self) -> tuple[tuple[str, float], ...]:
        """The statistics measured at this layout, with their coverage."""
        measured = (
            ("Fleiss' κ", self.fleiss_kappa),
            ("Krippendorff's α", self.krippendorff_alpha),
            ("mean pairwise κ", self.mean_pairwise_kappa),
        )
        return tuple((name, rate) for name, rate in measured if rate is not None)


#: ``python -m perf.calibration.agreement --reps 1000 --seed 2 --layouts 3x20 3x40 5x100 --graded`` (BCa,
#: 2,000 resamples) and ``--reps 300 --seed 2 --layouts 4u5x150 --graded --only-pairwise``
CALIBRATION = (
    Coverage(raters=3, items=20, reps=1000, fleiss_kappa=0.959, krippendorff_alpha=0.955, mean_pairwise_kappa=0.945),
    Coverage(raters=3, items=40, reps=1000, fleiss_kappa=0.948, krippendorff_alpha=0.948, mean_pairwise_kappa=0.945),
    Coverage(raters=5, items=100, reps=1000, fleiss_kappa=0.949, krippendorff_alpha=0.949, mean_pairwise_kappa=0.946),
    # the implicature study's design; the mean pairwise κ alone, 300 reps (``--layouts 4u5x150 --only-pairwise``)
    Coverage(
        raters=5, items=150, units=4, reps=300, fleiss_kappa=None, krippendorff_alpha=None, mean_pairwise_kappa=0.947
    ),
)
#: the population κ of the simulated raters (three labels at 0.5/0.3/0.2, each rater right 60% of
#: the time; every pair's population Cohen's κ too); at high agreement on a skewed label with few
#: items the interval is often undefined
POPULATION_KAPPA = 0.36
#: the band a 95% interval's measured coverage must lie in to be called calibrated
CALIBRATED = (0.935, 0.965)


def calibration_note() -> str:
    """The sentence the results print beside the agreement CIs: how they were made, the coverage
    measured, and the layouts where it fell outside the calibrated band."""
    rates = [rate for row in CALIBRATION for _, rate in row.rates()]
    sentence = (
        f"95% CIs by a {METHOD} bootstrap over items ({N_RESAMPLES:,} resamples); in simulation they "
        f"covered the population value ({POPULATION_KAPPA:.2f}) "
        f"{100 * min(rates):.1f}–{100 * max(rates):.1f}% of the time "
        f"at {', '.join(row.layout for row in CALIBRATION)}"
    )
    low, high = CALIBRATED
    off = [
        f"{name} at {row.short}: {100 * rate:.1f}%"
        for row in CALIBRATION
        for name, rate in row.rates()
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


# -- the mean pairwise Cohen's κ --------------------------------------------------------------------

#: the most pair × item cells (summed over units) for which the mean pairwise κ's bootstrap is
#: computed: every resample recomputes every pair's confusion counts, so its cost grows with pairs ×
#: items × resamples (20 raters on 100 items are 19,000 cells; 175 people on 150 items 2.3 million,
#: which would take seconds on every results page)
MAX_PAIR_ITEMS = 20_000
TOO_MANY_PAIRS = (
    "no CI: {pairs:,} rater pairs on {items:,} items ({cells:,} pair × item cells), more than the {maximum:,} "
    "up to which the bootstrap is computed"
)
TOO_FEW_UNIT_ITEMS = (
    "no CI: {unit} has {n} items with two ratings or more, fewer than the {minimum} at which the interval's "
    "coverage was measured"
)
NO_KAPPA = "no CI: no unit has a pair of raters with a defined κ"


@dataclass(frozen=True)
class PairwiseKappaInterval(JsonResult):
    """The 95% CI of the mean pairwise Cohen's κ as the results give it (per unit, averaged over the
    units: `agreement.kappa_across_units`); None with a reason in `note` where there is none."""

    mean_pairwise_kappa_ci95: list[float] | None
    n_units: int
    method: str
    n_resamples: int
    note: str | None


@dataclass(frozen=True)
class _UnitPairs:
    """One unit's items (with two answers or more) × pairs × counts: for each pair sharing an item,
    whether both answered it, whether they agreed, and per label whether the first gave it (`own`)
    or the second did (`other`) on it. A resample's confusion margins are these weighted by how often
    it drew each item."""

    counts: np.ndarray
    n_labels: int

    @property
    def n_items(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_pairs(self) -> int:
        return int(self.counts.shape[1])


def _shared_items(matrix: LabelMatrix) -> tuple[np.ndarray, np.ndarray]:
    """The unit's codes on its items with two answers or more, and its pairs (first, second) that
    share at least one of them."""
    codes = matrix.codes[:, matrix.answered.sum(axis=0) >= 2]
    answered = (codes != MISSING).astype(np.float32)
    first, second = np.triu_indices(codes.shape[0], k=1)
    # float32 products of 0/1 matrices are exact counts below 2²⁴ items
    with threadpool_limits(limits=1, user_api="blas"):
        shared = (answered @ answered.T)[first, second]
    return codes, np.stack([first[shared > 0], second[shared > 0]])


def _unit_pairs(codes: np.ndarray, pairs: np.ndarray, n_labels: int) -> _UnitPairs:
    first, second = pairs
    answered = codes != MISSING
    both = answered[first] & answered[second]
    said = [codes == label for label in range(n_labels)]
    columns = [both, (codes[first] == codes[second]) & both]
    columns += [said[label][first] & answered[second] for label in range(n_labels)]
    columns += [said[label][second] & answered[first] for label in range(n_labels)]
    # items × pairs × counts, so that one matrix product weights every count by the items drawn
    return _UnitPairs(np.stack(columns, axis=-1).transpose(1, 0, 2).astype(np.float64), n_labels)


def _mean_kappa(pairs: _UnitPairs, weights: np.ndarray) -> np.ndarray:
    """The unit's mean pairwise κ for each row of item weights (resamples × items); NaN where no
    pair's κ is defined. Each pair's κ is `agreement.pairwise_kappa_table`'s on the items drawn."""
    n_labels = pairs.n_labels
    sums = (weights @ pairs.counts.reshape(pairs.n_items, -1)).reshape(weights.shape[0], pairs.n_pairs, -1)
    shared, agree = sums[..., 0], sums[..., 1]
    own, other = sums[..., 2 : 2 + n_labels], sums[..., 2 + n_labels :]
    with np.errstate(divide="ignore", invalid="ignore"):
        # Σ_{l≠m} other_l own_m / shared, with Σ_l own_l = Σ_l other_l = shared
        chance = shared - (own * other).sum(axis=-1) / shared
        kappa = 1 - (shared - agree) / chance
    defined = np.isfinite(kappa) & (((own + other) > 0).sum(axis=-1) >= 2)
    n_defined = defined.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n_defined > 0, np.where(defined, kappa, 0.0).sum(axis=-1) / n_defined, np.nan)


def _weights(indices: np.ndarray, n: int) -> np.ndarray:
    """Resamples × items: how often each resample (a row of item indices) drew each item."""
    rows = indices.reshape(-1, indices.shape[-1])
    flat = (np.arange(rows.shape[0])[:, None] * n + rows).ravel()
    return np.bincount(flat, minlength=rows.shape[0] * n).reshape(rows.shape[0], n).astype(np.float64)


def _mean_over_units(per_unit: list[np.ndarray]) -> np.ndarray:
    """The mean over the units whose value is defined (`kappa_across_units` leaves the others out)."""
    stacked = np.stack(per_unit)
    defined = ~np.isnan(stacked)
    n = defined.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, np.where(defined, stacked, 0.0).sum(axis=0) / n, np.nan)


def pairwise_kappa_interval(
    ratings: Iterable[RatingLike] | RatingTable, *, seed: int = 0, n_resamples: int = N_RESAMPLES, method: str = METHOD
) -> PairwiseKappaInterval:
    """The mean pairwise Cohen's κ's 95% CI by a bootstrap over items within units (seeded): each
    resample draws every unit's items with replacement, recomputes each pair's κ on them, the unit
    means, and their mean over the units."""
    shared = {}
    for unit, unit_ratings in rating_table(ratings).by_unit().items():
        matrix = label_matrix(unit_ratings)
        codes, pairs = _shared_items(matrix)
        if pairs.shape[1]:
            shared[unit] = (codes, pairs, len(matrix.labels))
    n_pairs = sum(pairs.shape[1] for _, pairs, _ in shared.values())
    n_items = sum(codes.shape[1] for codes, _, _ in shared.values())
    cells = sum(pairs.shape[1] * codes.shape[1] for codes, pairs, _ in shared.values())

    def empty(note: str, n_units: int = len(shared)) -> PairwiseKappaInterval:
        return PairwiseKappaInterval(None, n_units, method, n_resamples, note)

    # checked before the counts are built: they take pairs × items × (2 + 2 × labels) numbers
    if cells > MAX_PAIR_ITEMS:
        return empty(TOO_MANY_PAIRS.format(pairs=n_pairs, items=n_items, cells=cells, maximum=MAX_PAIR_ITEMS))
    units = {}
    for unit, (codes, pairs, n_labels) in shared.items():
        counts = _unit_pairs(codes, pairs, n_labels)
        if not np.isnan(_mean_kappa(counts, np.ones((1, counts.n_items)))[0]):
            units[unit] = counts
    if not units:
        return empty(NO_KAPPA, 0)
    for unit, counts in units.items():
        if counts.n_items < MIN_ITEMS:
            name = "the study" if len(units) == 1 else f"unit {unit}"
            return empty(TOO_FEW_UNIT_ITEMS.format(unit=name, n=counts.n_items, minimum=MIN_ITEMS), len(units))
    everything = list(units.values())
    # the unit means on all of a unit's items, which the jackknife of the other units reuses
    whole = [_mean_kappa(pairs, np.ones((1, pairs.n_items)))[0] for pairs in everything]

    def statistic(*indices: np.ndarray, axis: int = -1) -> np.ndarray:
        shape = np.broadcast_shapes(*(index.shape[:-1] for index in indices))
        per_unit = []
        for pairs, index, full in zip(everything, indices, whole):
            index = np.broadcast_to(index, (*shape, index.shape[-1]))
            if index.shape[-1] == pairs.n_items and (index == np.arange(pairs.n_items)).all():
                per_unit.append(np.full(shape, full))
            else:
                per_unit.append(_mean_kappa(pairs, _weights(index, pairs.n_items)).reshape(shape))
        return _mean_over_units(per_unit)

    # one BLAS thread: the products are small, and on a busy machine more threads only wait
    with threadpool_limits(limits=1, user_api="blas"):
        interval = index_bootstrap_interval(
            statistic, [pairs.n_items for pairs in everything], n_resamples=n_resamples, seed=seed, method=method
        )
    low, high = interval.low, interval.high
    if not (np.isfinite(low) and np.isfinite(high)):
        return empty(DEGENERATE, len(units))
    return PairwiseKappaInterval([low, high], len(units), method, n_resamples, None)
