"""The gap's CI and test, McNemar's test and the human accuracy's t-interval, measured against the
truths they claim, through the functions the results page calls (`parity.stats.paired.paired_test`,
`parity.stats.accuracy.accuracy_summary`).

Each replication draws a study at the layout (people and items), and three models on its items:
- one with the people population's chance on every item (the gap's null: the test should reject 5%);
- one of ability 1 (a model better than most people: the CI should cover the population gap 95%);
- one with the chance of these participants' majority on every item, among the items they do not
  tie on (McNemar's null, which is about these participants: it should reject 5%), on the layouts
  where every person answers all of their unit's items.
"""

from __future__ import annotations

import numpy as np

from parity.stats.accuracy import accuracy_summary
from parity.stats.paired import paired_test
from perf.calibration.measure import Row
from perf.calibration.truth import Layout, draw, model_chance, model_scores, population_gap

GOOD_MODEL = 1.0
ALPHA = 0.05
GAP_TARGET = "the population gap (people like these, items like these)"


def rows(layout: Layout, reps: int, seed: int) -> list[Row]:
    rng = np.random.default_rng(seed)
    true_gap = population_gap(layout, GOOD_MODEL)
    null_rejected = covered_good = mcnemar_rejected = human_covered = 0
    widths: list[float] = []
    human_widths: list[float] = []
    for _ in range(reps):
        study = draw(layout, rng)
        table = study.table()
        null = paired_test(model_scores(study, study.population_chance(), rng), table)
        null_rejected += null.p is not None and null.p < ALPHA
        good = paired_test(model_scores(study, model_chance(study, GOOD_MODEL), rng), table)
        if good.ci is not None:
            covered_good += good.ci[0] <= true_gap <= good.ci[1]
            widths.append(good.ci[1] - good.ci[0])
        if layout.complete:
            majority = paired_test(model_scores(study, study.majority_chance(), rng), table)
            mcnemar_rejected += majority.mcnemar.p < ALPHA
        # the people population's accuracy on these items (every person answers all of their unit's)
        human = accuracy_summary(table)
        target = float(study.population_chance().mean())
        if human.ci_low is not None and human.ci_high is not None:
            human_covered += human.ci_low <= target <= human.ci_high
            human_widths.append(human.ci_high - human.ci_low)
    width = float(np.mean(widths)) if widths else None
    return [
        Row(
            layout.name,
            "gap p (no gap)",
            "rejection",
            "a true null: the model has the people population's chance on every item",
            reps,
            null_rejected,
            ALPHA,
        ),
        Row(
            layout.name,
            "gap 95% CI",
            "coverage",
            f"{GAP_TARGET}, {true_gap:+.3f} for a model of ability {GOOD_MODEL:g}",
            reps,
            covered_good,
            0.95,
            width,
        ),
        *(
            # McNemar's null is about these participants' majority on every item: with answers
            # missing it is not the drawn people's, so it is measured on complete layouts only
            [
                Row(
                    layout.name,
                    "McNemar p",
                    "rejection",
                    "a true null: the model is right as often as these participants' majority",
                    reps,
                    mcnemar_rejected,
                    ALPHA,
                )
            ]
            if layout.complete
            else []
        ),
        Row(
            layout.name,
            "human accuracy 95% t-interval",
            "coverage",
            "the people population's accuracy on these items",
            reps,
            human_covered,
            0.95,
            float(np.mean(human_widths)) if human_widths else None,
        ),
    ]
