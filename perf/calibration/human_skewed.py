"""The human accuracy's t-interval (`parity.stats.accuracy.accuracy_summary`) where the participants'
accuracies are skewed: one unit of 40 items skewed easy (difficulty mean −2, about 93% right),
8, 20 and 25 people.

python -m perf.calibration.human_skewed [--reps 1000] [--seed 11]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from parity.stats.accuracy import accuracy_summary  # noqa: E402
from perf.calibration.truth import Layout, draw  # noqa: E402

PEOPLE = (8, 20, 25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    for people in PEOPLE:
        layout = Layout(f"skewed-{people}", 1, people, 40, difficulty_mean=-2.0, skewed_easy=True)
        rng = np.random.default_rng(args.seed)
        hits = printed = 0
        truths = []
        for _ in range(args.reps):
            study = draw(layout, rng)
            summary = accuracy_summary(study.table())
            # the people population's accuracy on these items, as `perf.calibration.gap` measures it
            truth = float(study.population_chance().mean())
            truths.append(truth)
            if summary.ci_low is not None and summary.ci_high is not None:
                printed += 1
                hits += summary.ci_low <= truth <= summary.ci_high
        rate = hits / printed
        print(
            f"{people} people × 40 items, {100 * np.mean(truths):.1f}% right: "
            f"t-interval covers {100 * rate:.1f}% ± {100 * np.sqrt(rate * (1 - rate) / printed):.1f} ({printed} draws)"
        )


if __name__ == "__main__":
    main()
