"""Recruiting until precise, simulated: participants arrive one at a time, each answers their unit's
items, and after each completion Parity's own decision (`parity.stats.recruitment.next_action`, as
`manage.py prolific recruit` calls it) says whether the width target is met. At the stop, does the
interval printed for human accuracy hold the truth?

The truth is the people population's mean accuracy on the study's items ("people like these, on
these items"): the study's items are drawn once per replication and kept, people are drawn afresh,
one at a time, each into a unit drawn at random (units are the same size, so the truth is the mean
over all items of the population's chance). Three figures:

- the t-interval at a stop on its own width (the rule before the confidence sequence);
- the t-interval at a fixed n (the mean n of that stop, rounded): what the t-interval does unstopped;
- the confidence sequence at a stop on its own width (the rule now, and the interval the results
  print for such a study). It is valid at any stopping time, so it is conservative: above 95%.

    .venv/bin/python -m perf.calibration.recruitment --reps 2000 --seed 1 --layout one-unit
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator

import numpy as np
from scipy import special

from parity.stats.bootstrap import Interval
from parity.stats.intervals import t_mean_ci
from parity.stats.recruitment import (
    CI_WIDTH,
    STOP,
    Standing,
    Target,
    interval_width,
    next_action,
    precision_interval,
    precision_widths,
)
from perf.calibration.measure import Row
from perf.calibration.truth import LAYOUTS, Layout, draw_items, population_chance

#: the width target, in points
TARGET_POINTS = 10.0
#: the most participants a replication recruits (a budget): stops there count as stops
MOST = 4000
#: participants drawn at a time (their answers are simulated in blocks)
BLOCK = 100
TRUTH = "the people population's mean accuracy on the study's items (people like these, on these items)"


def _participants(layout: Layout, b: np.ndarray, a: np.ndarray, rng: np.random.Generator) -> Iterator[float]:
    """Accuracies of people arriving one at a time, each in a unit drawn at random."""
    items = layout.items
    while True:
        theta = rng.normal(0.0, 1.0, BLOCK)
        unit = rng.integers(0, layout.units, BLOCK)
        cols = unit[:, None] * items + np.arange(items)[None, :]
        chance = special.expit(a[cols] * (theta[:, None] - b[cols]))
        right = rng.random(chance.shape) < chance
        yield from right.mean(axis=1).tolist()


def _stop(widths: list[float | None], target: Target) -> int | None:
    """The first n at which `next_action` stops, the width after each completion being `widths`."""
    for n, width in enumerate(widths, start=1):
        if next_action(Standing(completed=n, working=0, places=n, ci_width=width), target).action == STOP:
            return n
    return None


def _recruit(stream: Iterator[float], seen: list[float], rule: str, target: Target) -> tuple[int, Interval | None]:
    """Recruit one at a time until `next_action` stops on the rule's width ("t": the t-interval's,
    "cs": `precision_interval`'s); `seen` is shared so both rules read the same people in the same
    order. Returns the number recruited and the interval at the stop."""
    checked = 0
    while True:
        while len(seen) < checked + BLOCK:
            seen.append(next(stream))
        if rule == "t":
            widths = [interval_width(t_mean_ci(seen[:n])) for n in range(checked + 1, len(seen) + 1)]
            found = _stop(widths, target)
            stop = None if found is None else checked + found
        else:
            # the sequence's width after each completion, in one pass (`precision_widths`' entries
            # are `precision_interval`'s at each n: tests/stats/test_sequences.py)
            stop = _stop(precision_widths(seen), target)
        if stop is not None:
            return stop, (t_mean_ci if rule == "t" else precision_interval)(seen[:stop])
        checked = len(seen)


def _covers(found: Interval | None, truth: float) -> bool:
    return found is not None and found.low <= truth <= found.high


def rows(layout: Layout, reps: int, seed: int, *, target_points: float = TARGET_POINTS, most: int = MOST) -> list[Row]:
    """Coverage at the stop of the t-interval (the rule before) and of the confidence sequence (the
    rule now), and of the t-interval at a fixed n, over `reps` simulated recruitments at `layout`."""
    rng = np.random.default_rng([seed, *layout.name.encode()])
    # one place at a time, a budget of `most` places: the decision stops at the target or at `most`
    target = Target(kind=CI_WIDTH, value=target_points, step=1, max_spend_pence=most, reward_pence=1)
    t_hits = cs_hits = t_at_cs_hits = 0
    t_n, cs_n, t_width, cs_width, budget = [], [], [], [], 0
    kept: list[tuple[float, list[float], np.ndarray, np.ndarray]] = []
    for _ in range(reps):
        b, a = draw_items(layout, layout.n_items, rng)
        truth = float(population_chance(b, a).mean())
        stream = _participants(layout, b, a, rng)
        seen: list[float] = []
        n, found = _recruit(stream, seen, "t", target)
        t_n.append(n)
        t_hits += _covers(found, truth)
        t_width.append(interval_width(found) or 0.0)
        n, found = _recruit(stream, seen, "cs", target)
        cs_n.append(n)
        budget += n >= most and (interval_width(found) or 100.0) > target_points
        cs_hits += _covers(found, truth)
        cs_width.append(interval_width(found) or 0.0)
        t_at_cs_hits += _covers(t_mean_ci(seen[:n]), truth)
        kept.append((truth, seen, b, a))
    # the t-interval at a fixed n: the same people, the first `fixed` of them, whatever their spread
    fixed = max(2, round(float(np.mean(t_n))))
    fixed_hits, fixed_width = 0, []
    for truth, seen, b, a in kept:
        if len(seen) < fixed:  # both rules stopped before `fixed`: more people, on the same items
            more = _participants(layout, b, a, rng)
            seen.extend(next(more) for _ in range(fixed - len(seen)))
        found = t_mean_ci(seen[:fixed])
        fixed_hits += _covers(found, truth)
        fixed_width.append(interval_width(found) or 0.0)
    rule = f"recruit until ≤ {target_points:g} points wide, checked after each completion"
    return [
        Row(
            layout.name,
            "human accuracy t-interval at the stop (the rule before: the t-interval's width)",
            "coverage",
            TRUTH,
            reps,
            t_hits,
            0.95,
            width=float(np.mean(t_width)) / 100.0,
            extra=f"{rule}; mean n at the stop {np.mean(t_n):.1f} (median {np.median(t_n):g})",
        ),
        Row(
            layout.name,
            f"human accuracy t-interval at a fixed n = {fixed}",
            "coverage",
            TRUTH,
            reps,
            fixed_hits,
            0.95,
            width=float(np.mean(fixed_width)) / 100.0,
            extra="no stopping rule: the n is the rule before's mean n at its stop",
        ),
        Row(
            layout.name,
            "human accuracy confidence sequence at the stop (the rule now: the sequence's width)",
            "coverage",
            TRUTH,
            reps,
            cs_hits,
            0.95,
            width=float(np.mean(cs_width)) / 100.0,
            extra=(
                f"{rule}; mean n at the stop {np.mean(cs_n):.1f} (median {np.median(cs_n):g}); "
                f"{budget} stopped by the budget of {most}; valid at any stopping time, so conservative "
                f"(above 95% is expected); a t-interval at this stop would cover {t_at_cs_hits / reps:.1%}"
            ),
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--layout", choices=sorted(LAYOUTS), action="append")
    parser.add_argument("--target", type=float, default=TARGET_POINTS, help="width target, points")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    out = []
    for name in args.layout or ["one-unit"]:
        for row in rows(LAYOUTS[name], args.reps, args.seed, target_points=args.target):
            out.append(row.as_dict())
            if not args.json:
                print(
                    f"{row.layout:12} {row.figure}: {row.rate:.1%} ± {row.mc_se:.1%} (reps {row.reps}), "
                    f"width {row.width:.2f}; {row.extra}"
                )
    if args.json:
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
