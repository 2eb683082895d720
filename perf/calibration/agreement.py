"""The agreement statistics' 95% CIs (`parity.stats.agreement_ci`) against the population value.

python -m perf.calibration.agreement [--reps 300] [--seed 0] [--methods BCa percentile]
[--prevalence 0.8 0.2] [--accuracy 0.85] [--layouts 3x20 4u5x150] [--graded 3x30 3of4x120]
[--check-population]

Each replication draws a rating study from raters with a known agreement: every item has a true
label (three labels, shares `PREVALENCE`); every rater gives it with chance `ACCURACY` and otherwise
a label drawn from the prevalence. For such raters Fleiss' κ and Krippendorff's α both tend, as
items grow, to the population κ = (P_o − P_e) / (1 − P_e), with P_o the chance that two raters
agree on an item and P_e = Σ π_c². Every rater's labels have the prevalence as their shares, so
two raters' chance agreement is P_e too and the population Cohen's κ of every pair, hence their
mean, is the same value (`--check-population` computes it on two million items). With units, each
unit is drawn apart and the results' mean over units has that value again. The interval should
cover it 95% of the time.

The ICC(2,k)'s layouts draw graded ratings: item effect + rater effect + noise, all normal and
drawn anew in every replication (the raters too: the population ICC(2,k) =
σ²_item / (σ²_item + (σ²_rater + σ²_error) / k) is about raters like these), each item graded by
one block of `block` raters out of `raters`, the blocks taking the items in turn; the target is the
blocks' population ICCs weighted by their items, as `icc2k_by_blocks` weights the estimates.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from parity.stats.agreement import (  # noqa: E402
    complete_grades,
    pairwise_kappa_table,  # noqa: E402
    rater_blocks,
)
from parity.stats.agreement_ci import (  # noqa: E402
    agreement_intervals,
    pairwise_kappa_interval,
)
from parity.stats.icc_ci import mcgraw_wong_interval  # noqa: E402
from parity.stats.matrix import LabelMatrix  # noqa: E402
from parity.stats.ratings import Rating  # noqa: E402
from perf.calibration.measure import Row  # noqa: E402

PREVALENCE = np.array([0.5, 0.3, 0.2])
ACCURACY = 0.6
TARGET = "the population κ of raters like these on items like these"


@dataclass(frozen=True)
class RatingLayout:
    name: str
    raters: int
    items: int
    #: units of `raters` × `items` each, drawn apart (the implicature study: 4 units × 5 × 150)
    units: int = 1


LAYOUTS = {
    "3x20": RatingLayout("3x20", 3, 20),
    "3x40": RatingLayout("3x40", 3, 40),
    "5x100": RatingLayout("5x100", 5, 100),
    "4u5x150": RatingLayout("4u5x150", 5, 150, units=4),
}

#: the graded ratings' variance components (ICC(2,3) = 1 / (1 + 1.25 / 3) = 0.71)
SIGMA2_ITEM, SIGMA2_RATER, SIGMA2_ERROR = 1.0, 0.25, 1.0


@dataclass(frozen=True)
class GradedLayout:
    name: str
    raters: int
    items: int
    #: how many of the raters grade each item (fewer than `raters`: several blocks)
    block: int


GRADED = {
    "3x20": GradedLayout("3x20", 3, 20, 3),
    "3x100": GradedLayout("3x100", 3, 100, 3),
    "5x40": GradedLayout("5x40", 5, 40, 5),
    "2of3x90": GradedLayout("2of3x90", 3, 90, 2),
    "3of4x120": GradedLayout("3of4x120", 4, 120, 3),
}


def population_icc(k: int) -> float:
    return SIGMA2_ITEM / (SIGMA2_ITEM + (SIGMA2_RATER + SIGMA2_ERROR) / k)


def population_kappa(prevalence: np.ndarray | None = None, accuracy: float | None = None) -> float:
    prevalence = PREVALENCE if prevalence is None else prevalence
    accuracy = ACCURACY if accuracy is None else accuracy
    # a rater's label given the true label t: t with chance r, else a draw from the prevalence
    given = accuracy * np.eye(len(prevalence)) + (1.0 - accuracy) * prevalence[None, :]
    p_o = float((prevalence * (given**2).sum(axis=1)).sum())
    p_e = float((prevalence**2).sum())
    return (p_o - p_e) / (1.0 - p_e)


def _labels(raters: int, items: int, rng: np.random.Generator) -> np.ndarray:
    truth = rng.choice(len(PREVALENCE), size=items, p=PREVALENCE)
    noise = rng.choice(len(PREVALENCE), size=(raters, items), p=PREVALENCE)
    keep = rng.random((raters, items)) < ACCURACY
    return np.where(keep, truth[None, :], noise)


def draw(layout: RatingLayout, rng: np.random.Generator) -> list[Rating]:
    ratings = []
    for unit in range(layout.units):
        labels = _labels(layout.raters, layout.items, rng)
        ratings += [
            Rating(
                annotator=f"u{unit}r{rater}", item=f"u{unit}i{item}", answer=str(labels[rater, item]), unit=f"u{unit}"
            )
            for rater in range(layout.raters)
            for item in range(layout.items)
        ]
    return ratings


def sample_mean_pairwise_kappa(raters: int, items: int, seed: int) -> float | None:
    """The mean pairwise Cohen's κ on one very large draw: it should be `population_kappa()`."""
    codes = _labels(raters, items, np.random.default_rng(seed))
    labels = tuple(str(label) for label in range(len(PREVALENCE)))
    annotators = tuple(f"r{rater}" for rater in range(raters))
    matrix = LabelMatrix(annotators, tuple(f"i{item}" for item in range(items)), labels, codes)
    return pairwise_kappa_table(matrix).mean()


def rows(layout: RatingLayout, reps: int, seed: int, method: str, *, only_pairwise: bool = False) -> list[Row]:
    rng = np.random.default_rng(seed)
    truth = population_kappa()
    hits = {"Fleiss' κ CI": 0, "Krippendorff's α CI": 0, "mean pairwise κ CI": 0}
    widths: dict[str, list[float]] = {name: [] for name in hits}
    if only_pairwise:
        hits = {"mean pairwise κ CI": 0}
        widths = {"mean pairwise κ CI": []}
    for rep in range(reps):
        ratings = draw(layout, rng)
        pairwise = pairwise_kappa_interval(ratings, seed=rep, method=method)
        if only_pairwise:
            cis: tuple[list[float] | None, ...] = (pairwise.mean_pairwise_kappa_ci95,)
        else:
            result = agreement_intervals(ratings, seed=rep, method=method)
            cis = (result.fleiss_kappa_ci95, result.krippendorff_alpha_ci95, pairwise.mean_pairwise_kappa_ci95)
        for name, ci in zip(hits, cis):
            if ci is not None:
                hits[name] += ci[0] <= truth <= ci[1]
                widths[name].append(ci[1] - ci[0])
    return [_row(layout.name, f"{name} ({method})", TARGET, reps, hits[name], widths[name], "κ") for name in hits]


def _row(layout: str, figure: str, target: str, reps: int, hits: int, widths: list[float], unit: str) -> Row:
    return Row(
        layout=layout,
        figure=figure,
        kind="coverage",
        target=target,
        reps=reps,
        hits=hits,
        nominal=0.95,
        width=float(np.mean(widths)) if widths else None,
        extra=f"{reps - len(widths)} draws without a CI (counted as misses)",
        unit=unit,
    )


def draw_graded(layout: GradedLayout, rng: np.random.Generator) -> tuple[list[Rating], float]:
    """Graded ratings and their population ICC(2,k) (the blocks' weighted by their items)."""
    blocks = list(itertools.combinations(range(layout.raters), layout.block))
    item_effect = rng.normal(0.0, math.sqrt(SIGMA2_ITEM), layout.items)
    rater_effect = rng.normal(0.0, math.sqrt(SIGMA2_RATER), layout.raters)
    ratings = []
    for item in range(layout.items):
        for rater in blocks[item % len(blocks)]:
            grade = item_effect[item] + rater_effect[rater] + rng.normal(0.0, math.sqrt(SIGMA2_ERROR))
            ratings.append(Rating(annotator=f"r{rater}", item=f"i{item}", answer=repr(float(grade))))
    return ratings, population_icc(layout.block)


def icc2k_of_grades(grades: np.ndarray) -> np.ndarray:
    """ICC(2,k) of items × raters grade matrices over the last two axes (`agreement.icc2k`'s formula)."""
    n, k = grades.shape[-2:]
    grand = grades.mean(axis=(-2, -1), keepdims=True)
    ss_rows = k * ((grades.mean(axis=-1, keepdims=True) - grand) ** 2).sum(axis=(-2, -1))
    ss_cols = n * ((grades.mean(axis=-2, keepdims=True) - grand) ** 2).sum(axis=(-2, -1))
    ss_error = ((grades - grand) ** 2).sum(axis=(-2, -1)) - ss_rows - ss_cols
    ms_rows, ms_cols, ms_error = ss_rows / (n - 1), ss_cols / (k - 1), ss_error / ((n - 1) * (k - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (ms_rows - ms_error) / (ms_rows + (ms_cols - ms_error) / n)


def bootstrap_icc_interval(blocks: list[np.ndarray], seed: int, method: str) -> list[float] | None:
    """The alternative measured against McGraw & Wong's interval: a bootstrap over items within
    blocks (each block's items drawn apart, an item's grades kept together, the raters fixed) of the
    blocks' ICC(2,k) weighted by their items, as `icc2k_by_blocks` computes it."""
    from scipy import stats

    weights = np.array([block.shape[0] for block in blocks], dtype=np.float64)
    weights /= weights.sum()

    def statistic(*indices: np.ndarray, axis: int = -1) -> np.ndarray:
        shape = np.broadcast_shapes(*(index.shape[:-1] for index in indices))
        total = np.zeros(shape)
        for block, index, weight in zip(blocks, indices, weights):
            total = total + weight * icc2k_of_grades(block[np.broadcast_to(index, (*shape, index.shape[-1]))])
        return total

    result = stats.bootstrap(
        tuple(np.arange(block.shape[0]) for block in blocks),
        statistic,
        vectorized=True,
        n_resamples=2_000,
        batch=500,
        method=method,
        confidence_level=0.95,
        random_state=np.random.default_rng(seed),
    )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return [low, high] if np.isfinite(low) and np.isfinite(high) else None


def graded_rows(layout: GradedLayout, reps: int, seed: int, method: str) -> list[Row]:
    rng = np.random.default_rng(seed)
    names = ("ICC(2,k) CI (McGraw & Wong)", f"ICC(2,k) CI (bootstrap, {method})")
    hits = dict.fromkeys(names, 0)
    widths: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(reps):
        ratings, truth = draw_graded(layout, rng)
        blocks = [complete_grades(rows)[0] for rows in rater_blocks(ratings).values()]
        # McGraw & Wong's interval is for one full matrix: measured where there is one block
        analytic = mcgraw_wong_interval(blocks[0]) if len(blocks) == 1 else None
        for name, ci in zip(names, (analytic, bootstrap_icc_interval(blocks, rep, method))):
            if ci is not None:
                hits[name] += ci[0] <= truth <= ci[1]
                widths[name].append(ci[1] - ci[0])
    target = f"the population ICC(2,{layout.block}) = {population_icc(layout.block):.3f}"
    return [
        _row(layout.name, name, target, reps, hits[name], widths[name], "ICC")
        for name in names
        if layout.block == layout.raters or name != names[0]
    ]


def _print(row: Row) -> None:
    print(
        f"{row.layout:<8} {row.figure:<34} {100 * row.rate:5.1f}% ± {100 * row.mc_se:3.1f}  "
        f"width {row.width if row.width is not None else math.nan:.3f}  {row.extra}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layouts", nargs="*", choices=list(LAYOUTS), default=list(LAYOUTS))
    parser.add_argument("--graded", nargs="*", choices=list(GRADED), default=list(GRADED))
    parser.add_argument("--methods", nargs="+", default=["BCa"])
    parser.add_argument("--prevalence", nargs="+", type=float, help="the labels' shares (default 0.5 0.3 0.2)")
    parser.add_argument("--accuracy", type=float, help="each rater's chance of the true label (default 0.6)")
    parser.add_argument(
        "--only-pairwise", action="store_true", help="the mean pairwise κ's CI alone (Fleiss' κ and α cost the most)"
    )
    parser.add_argument(
        "--check-population", action="store_true", help="the mean pairwise κ of 3 raters on 2,000,000 items"
    )
    args = parser.parse_args()
    global PREVALENCE, ACCURACY
    if args.prevalence:
        PREVALENCE = np.array(args.prevalence) / sum(args.prevalence)
    if args.accuracy is not None:
        ACCURACY = args.accuracy
    print(f"population κ = {population_kappa():.3f}")
    if args.check_population:
        value = sample_mean_pairwise_kappa(3, 2_000_000, args.seed)
        print(f"mean pairwise κ of 3 raters on 2,000,000 items = {value:.4f}")
    for method in args.methods:
        # a layout's seed is fixed by its place in `LAYOUTS`, whichever layouts are run
        for name in args.layouts:
            seed = args.seed + 1_000 * list(LAYOUTS).index(name)
            for row in rows(LAYOUTS[name], args.reps, seed, method, only_pairwise=args.only_pairwise):
                _print(row)
        for name in args.graded:
            for row in graded_rows(GRADED[name], args.reps, args.seed + 1_000 * list(GRADED).index(name) + 500, method):
                _print(row)


if __name__ == "__main__":
    main()
