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

from dataclasses import replace

import numpy as np

from parity.stats.accuracy import accuracy_summary
from parity.stats.paired import paired_test
from perf.calibration.measure import Row
from perf.calibration.truth import Draw, Layout, draw, model_chance, model_scores, population_gap

GOOD_MODEL = 1.0
ALPHA = 0.05
GAP_TARGET = "the population gap (people like these, items like these)"


#: the robustness table's row without the people who failed a check but stayed in
#: (`results.computing.robustness`, `failed_check_left_out`), measured where a layout screens
STRICT = "without those who failed a check"


def _strict(study: Draw) -> Draw:
    """The same study without its people who failed at least one attention check (all kept)."""
    screening = study.screening
    assert screening is not None
    layout = study.layout
    failed = (screening.failures[screening.kept] > 0).reshape(layout.units, layout.people)
    given = np.ones(study.right.shape, dtype=bool) if study.answered is None else study.answered
    return replace(study, answered=given & ~failed[:, :, None])


def rows(layout: Layout, reps: int, seed: int) -> list[Row]:
    rng = np.random.default_rng(seed)
    true_gap = population_gap(layout, GOOD_MODEL)
    null_rejected = covered_good = mcnemar_rejected = human_covered = 0
    strict_null = strict_good = strict_human = 0
    widths: list[float] = []
    human_widths: list[float] = []
    for rep in range(reps):
        study = draw(layout, rng)
        table = study.table()
        # the people population's accuracy on these items (every person answers all of their unit's)
        target = float(study.population_chance().mean())
        if study.screening is not None:
            # the stricter row, on the same draw, its models' answers from a generator of their own
            # (seeded by the replication), so that the figures above draw the same as without it
            strict = _strict(study)
            strict_table, side = strict.table(), np.random.default_rng([seed, rep])
            null_s = paired_test(model_scores(study, study.population_chance(), side), strict_table)
            strict_null += null_s.p is not None and null_s.p < ALPHA
            good_s = paired_test(model_scores(study, model_chance(study, GOOD_MODEL), side), strict_table)
            strict_good += good_s.ci is not None and good_s.ci[0] <= true_gap <= good_s.ci[1]
            human_s = accuracy_summary(strict_table)
            strict_human += (
                human_s.ci_low is not None
                and human_s.ci_high is not None
                and human_s.ci_low <= target <= human_s.ci_high
            )
        null = paired_test(model_scores(study, study.population_chance(), rng), table)
        null_rejected += null.p is not None and null.p < ALPHA
        good = paired_test(model_scores(study, model_chance(study, GOOD_MODEL), rng), table)
        if good.ci is not None:
            covered_good += good.ci[0] <= true_gap <= good.ci[1]
            widths.append(good.ci[1] - good.ci[0])
        if layout.complete:
            majority = paired_test(model_scores(study, study.majority_chance(), rng), table)
            mcnemar_rejected += majority.mcnemar.p < ALPHA
        human = accuracy_summary(table)
        if human.ci_low is not None and human.ci_high is not None:
            human_covered += human.ci_low <= target <= human.ci_high
            human_widths.append(human.ci_high - human.ci_low)
    width = float(np.mean(widths)) if widths else None
    stricter = (
        [
            Row(layout.name, f"gap p (no gap), {STRICT}", "rejection", "as the gap p above", reps, strict_null, ALPHA),
            Row(layout.name, f"gap 95% CI, {STRICT}", "coverage", "as the gap CI above", reps, strict_good, 0.95),
            Row(
                layout.name,
                f"human accuracy 95% t-interval, {STRICT}",
                "coverage",
                "as the t-interval above",
                reps,
                strict_human,
                0.95,
            ),
        ]
        if layout.screened
        else []
    )
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
        *stricter,
    ]
