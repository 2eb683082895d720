"""python -m perf.calibration.power [--reps 1000] [--seed 0] [--json out.json]

The power analysis of the new-study form (`parity.stats.power`) measured against simulation: at each
layout, studies are drawn from the calibration's truth (`truth.draw`: people θ ~ N(0, 1), items
b ~ N(mean, sd), 1PL answers), a model placed at the gap the analysis says is detected with 80%
power (above the people, and below), and the results page's test (`paired_test`) run on each; the
share of draws it rejects at α = 0.05 should be about 80%. The mean half-width of the human
t-interval (`accuracy_summary`) is set beside the analysis's expected one, and 1.96 times the spread
of the human mean over draws (people and items drawn anew) beside the analysis's half-width over
people and items. Seeded.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from parity.stats.accuracy import accuracy_summary  # noqa: E402
from parity.stats.paired import paired_test  # noqa: E402
from parity.stats.power import (  # noqa: E402
    PowerAnalysis,
    VarianceComponents,
    detectable_model_ability,
    intercept_for,
    power_analysis,
)
from parity.stats.power import _mean_of as people_mean  # noqa: E402
from perf.calibration.measure import Row  # noqa: E402
from perf.calibration.truth import Layout, draw, model_chance, model_scores  # noqa: E402

#: the layouts researchers plan (people per unit × items per unit, in units)
LAYOUTS = (
    Layout("30x40", 1, 30, 40, description="30 people × 40 items, everyone sees every item"),
    Layout("100x100", 1, 100, 100, description="100 people × 100 items, everyone sees every item"),
    Layout(
        "4x10x60-easy",
        4,
        10,
        60,
        difficulty_mean=-1.5,
        description="4 units × 10 people × 60 items, items easy (people ~77% right)",
    ),
    Layout(
        "150x30-ceiling",
        1,
        150,
        30,
        difficulty_mean=-3.4,
        description="150 people × 30 items, everyone sees every item, near the ceiling (people ~93% right)",
    ),
)
ALPHA = 0.05
#: what a rate within Monte Carlo error of 80% means here: within 3.5 of its Monte Carlo SEs
WITHIN_SES = 3.5
#: where no gap on a side reaches the planned power, a model this far out (in the people's SDs)
#: stands for "any gap that side": its power should still fall short
FAR_ABILITY = 5.0


@dataclass(frozen=True)
class Planned:
    layout: Layout
    analysis: PowerAnalysis


def planned(layout: Layout) -> Planned:
    """The analysis of `layout` from its truth's own components (person SD 1, the items')."""
    baseline = people_mean(-layout.difficulty_mean, 1.0, layout.difficulty_sd)
    components = VarianceComponents(baseline=baseline, person_sd=1.0, item_sd=layout.difficulty_sd)
    assert abs(intercept_for(baseline, 1.0, layout.difficulty_sd) + layout.difficulty_mean) < 1e-6
    analysis = power_analysis(
        people=layout.n_people, items_per_person=layout.items, units=layout.units, components=components
    )
    return Planned(layout, analysis)


def rejection_rate(plan: Planned, side: int, reps: int, seed: int) -> tuple[int, list[float], list[float]]:
    """How many of `reps` draws the gap test rejects with the model at the detectable gap on `side`,
    the human t-interval's half-widths and the human means."""
    ability = detectable_model_ability(plan.analysis, side)
    if ability is None:
        # the analysis says no gap that side is detected with its power: a model far out is tried
        ability = side * FAR_ABILITY
    rng = np.random.default_rng(seed)
    rejected = 0
    halves: list[float] = []
    means: list[float] = []
    for _ in range(reps):
        study = draw(plan.layout, rng)
        table = study.table()
        test = paired_test(model_scores(study, model_chance(study, ability), rng), table)
        rejected += test.p is not None and test.p < ALPHA
        human = accuracy_summary(table)
        means.append(human.mean or 0.0)
        if human.ci_low is not None and human.ci_high is not None and 0 < human.ci_low and human.ci_high < 1:
            halves.append((human.ci_high - human.ci_low) / 2.0)
    return rejected, halves, means


def rows(layout: Layout, reps: int, seed: int) -> list[Row]:
    plan = planned(layout)
    table = []
    for side, gap in ((+1, plan.analysis.detectable_above), (-1, plan.analysis.detectable_below)):
        rejected, halves, means = rejection_rate(plan, side, reps, seed + (0 if side > 0 else 1))
        where = "above" if side > 0 else "below"
        table.append(
            Row(
                layout.name,
                f"gap test at the detectable gap {where}" if gap is not None else f"no detectable gap {where}",
                "power" if gap is not None else "power short",
                f"a model {100 * gap:+.1f} pt from the people (the analysis's 80% gap)"
                if gap is not None
                else f"a model at {side * FAR_ABILITY:+g} SD: the analysis says no gap {where} is detected 80% "
                "of the time",
                reps,
                rejected,
                plan.analysis.power,
                extra=(
                    f"human t-interval half-width {100 * float(np.mean(halves)):.2f} pt simulated, "
                    f"{100 * (plan.analysis.human_half_width or 0):.2f} pt expected; over people and items "
                    f"1.96 × the SD of the human mean {100 * 1.96 * float(np.std(means, ddof=1)):.2f} pt simulated, "
                    f"{100 * (plan.analysis.human_half_width_items or 0):.2f} pt expected"
                ),
            )
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    table = [row for number, layout in enumerate(LAYOUTS) for row in rows(layout, args.reps, args.seed + 10 * number)]
    for row in table:
        if row.kind == "power short":
            verdict = "ok" if row.rate < row.nominal else "OFF"
        else:
            verdict = "ok" if abs(row.rate - row.nominal) <= WITHIN_SES * row.mc_se else "OFF"
        print(
            f"{row.layout:<14} {row.figure:<40} {100 * row.rate:5.1f}% ± {100 * row.mc_se:3.1f} "
            f"(planned {100 * row.nominal:.0f}%) {verdict:<3} {row.target}; {row.extra}"
        )
    print(f"{len(table)} rows, {args.reps} replications each, {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps([row.as_dict() for row in table], indent=1))


if __name__ == "__main__":
    main()
