"""The agreement statistics' 95% CIs (`parity.stats.agreement_ci`) against the population value.

python -m perf.calibration.agreement [--reps 300] [--seed 0] [--methods BCa percentile]
[--prevalence 0.8 0.2] [--accuracy 0.85]

Each replication draws a rating study from raters with a known agreement: every item has a true
label (three labels, shares `PREVALENCE`); every rater gives it with chance `ACCURACY` and otherwise
a label drawn from the prevalence. For such raters Fleiss' κ and Krippendorff's α both tend, as
items grow, to the population κ = (P_o − P_e) / (1 − P_e), with P_o the chance that two raters
agree on an item and P_e = Σ π_c². The interval should cover it 95% of the time.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from parity.stats.agreement_ci import agreement_intervals  # noqa: E402
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


LAYOUTS = {
    "3x20": RatingLayout("3x20", 3, 20),
    "3x40": RatingLayout("3x40", 3, 40),
    "5x100": RatingLayout("5x100", 5, 100),
}


def population_kappa(prevalence: np.ndarray | None = None, accuracy: float | None = None) -> float:
    prevalence = PREVALENCE if prevalence is None else prevalence
    accuracy = ACCURACY if accuracy is None else accuracy
    # a rater's label given the true label t: t with chance r, else a draw from the prevalence
    given = accuracy * np.eye(len(prevalence)) + (1.0 - accuracy) * prevalence[None, :]
    p_o = float((prevalence * (given**2).sum(axis=1)).sum())
    p_e = float((prevalence**2).sum())
    return (p_o - p_e) / (1.0 - p_e)


def draw(layout: RatingLayout, rng: np.random.Generator) -> list[Rating]:
    truth = rng.choice(len(PREVALENCE), size=layout.items, p=PREVALENCE)
    noise = rng.choice(len(PREVALENCE), size=(layout.raters, layout.items), p=PREVALENCE)
    keep = rng.random((layout.raters, layout.items)) < ACCURACY
    labels = np.where(keep, truth[None, :], noise)
    return [
        Rating(annotator=f"r{rater}", item=f"i{item}", answer=str(labels[rater, item]))
        for rater in range(layout.raters)
        for item in range(layout.items)
    ]


def rows(layout: RatingLayout, reps: int, seed: int, method: str) -> list[Row]:
    rng = np.random.default_rng(seed)
    truth = population_kappa()
    hits = {"Fleiss' κ CI": 0, "Krippendorff's α CI": 0}
    widths: dict[str, list[float]] = {name: [] for name in hits}
    for rep in range(reps):
        result = agreement_intervals(draw(layout, rng), seed=rep, method=method)
        for name, ci in zip(hits, (result.fleiss_kappa_ci95, result.krippendorff_alpha_ci95)):
            if ci is not None:
                hits[name] += ci[0] <= truth <= ci[1]
                widths[name].append(ci[1] - ci[0])
    return [
        Row(
            layout=layout.name,
            figure=f"{name} ({method})",
            kind="coverage",
            target=TARGET,
            reps=reps,
            hits=hits[name],
            nominal=0.95,
            width=float(np.mean(widths[name])) if widths[name] else None,
            extra=f"{reps - len(widths[name])} draws without a CI (counted as misses)",
            unit="κ",
        )
        for name in hits
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layouts", nargs="+", choices=list(LAYOUTS), default=list(LAYOUTS))
    parser.add_argument("--methods", nargs="+", default=["BCa"])
    parser.add_argument("--prevalence", nargs="+", type=float, help="the labels' shares (default 0.5 0.3 0.2)")
    parser.add_argument("--accuracy", type=float, help="each rater's chance of the true label (default 0.6)")
    args = parser.parse_args()
    global PREVALENCE, ACCURACY
    if args.prevalence:
        PREVALENCE = np.array(args.prevalence) / sum(args.prevalence)
    if args.accuracy is not None:
        ACCURACY = args.accuracy
    print(f"population κ = {population_kappa():.3f}")
    for method in args.methods:
        for number, name in enumerate(args.layouts):
            for row in rows(LAYOUTS[name], args.reps, args.seed + 1_000 * number, method):
                print(
                    f"{row.layout:<6} {row.figure:<34} {100 * row.rate:5.1f}% ± {100 * row.mc_se:3.1f}  "
                    f"width {row.width if row.width is not None else math.nan:.3f}  {row.extra}"
                )


if __name__ == "__main__":
    main()
