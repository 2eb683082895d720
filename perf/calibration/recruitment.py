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
- the confidence sequence at a stop on its own width (the rule for a study that must be free to
  stop at any time). It is valid at any stopping time, so it is conservative: above 95%;
- planned looks (`parity.stats.looks`, the default rule): the fixed-width interval at the look that
  stops.

And the price of each rule (`--price`): mean participants at the stop against the oracle's, the
fixed n of a 95% z-interval of the same width that knew the people's SD
(n = ⌈(2 · 1.96 · σ / W)²⌉, σ computed exactly from the truth by quadrature), with the coverage at
the stop, on the same people in the same order for both rules.

    .venv/bin/python -m perf.calibration.recruitment --reps 2000 --seed 1 --layout one-unit
    nice .venv/bin/python -m perf.calibration.recruitment --price --reps 200 --seed 1 \
        --layout tiny --layout one-unit --layout implicature --layout easy --layout large-2pl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import numpy as np
from scipy import special

from parity.stats.bootstrap import Interval
from parity.stats.intervals import t_mean_ci
from parity.stats.looks import fixed_width_interval, planned_looks
from parity.stats.recruitment import (
    CI_WIDTH,
    PLANNED_LOOKS,
    SEQUENCE,
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
            # are `precision_interval`'s at each n: tests/parity/stats/test_sequences.py)
            stop = _stop(precision_widths(seen), target)
        if stop is not None:
            return stop, (t_mean_ci if rule == "t" else precision_interval)(seen[:stop])
        checked = len(seen)


def _looks(stream: Iterator[float], seen: list[float], target: Target) -> tuple[int, Interval | None]:
    """Recruit by planned looks through `next_action` (places raised to each look's n, one completion
    at a time as they come), the looks replayed on the accuracies so far as `prolific recruit` replays
    them. Returns the number recruited and the interval the results print at the stop."""
    n = 0
    while True:
        while len(seen) < n + 1:
            seen.extend(next(stream) for _ in range(BLOCK))
        plan = planned_looks(seen[:n], target.value)
        standing = Standing(completed=n, working=0, places=n, kept=n, looks=plan)
        decision = next_action(standing, target)
        if decision.action == STOP:
            return n, fixed_width_interval(seen[:n], target.value) if plan.stopped else None
        n = decision.places


def people_sd(layout: Layout, b: np.ndarray, a: np.ndarray) -> float:
    """The SD of a person's accuracy in the population (θ ~ N(0, 1), their unit at random, every item
    of the unit answered): between people, the spread of their mean chance; within, the binomial
    spread of their answers around it. By Gauss–Hermite quadrature over θ."""
    items = layout.items
    nodes, weights = np.polynomial.hermite_e.hermegauss(61)
    weights = weights / weights.sum()
    chance = special.expit(a[None, :] * (nodes[:, None] - b[None, :]))  # nodes × items
    first = second = 0.0
    for unit in range(layout.units):
        cols = slice(unit * items, (unit + 1) * items)
        mean = chance[:, cols].mean(axis=1)
        within = (chance[:, cols] * (1.0 - chance[:, cols])).sum(axis=1) / items**2
        first += float(weights @ mean) / layout.units
        second += float(weights @ (mean**2 + within)) / layout.units
    return float(np.sqrt(max(second - first**2, 0.0)))


def oracle_n(sd: float, target_points: float) -> int:
    """The fixed n whose 95% z-interval, knowing the SD, is `target_points` wide."""
    return int(np.ceil((2.0 * 1.959964 * sd / (target_points / 100.0)) ** 2))


@dataclass(frozen=True)
class Price:
    """One rule's price at one layout."""

    layout: str
    rule: str
    reps: int
    mean_n: float
    se_n: float  # Monte Carlo SE of the mean n
    oracle_n: float  # mean over replications of the oracle's n
    ratio: float  # mean n / mean oracle n
    ratio_se: float
    hits: int  # intervals at the stop holding the truth
    widest: float  # the widest interval printed at a stop, points
    budget: int  # replications the budget stopped before the target

    @property
    def coverage(self) -> float:
        return self.hits / self.reps

    @property
    def coverage_se(self) -> float:
        return float(np.sqrt(self.coverage * (1.0 - self.coverage) / self.reps))


def prices(
    layout: Layout, reps: int, seed: int, *, target_points: float = TARGET_POINTS, most: int = MOST
) -> list[Price]:
    """Planned looks and the confidence sequence on the same people in the same order, over `reps`
    simulated recruitments at `layout`: participants at the stop, against the oracle's fixed n."""
    rng = np.random.default_rng([seed, *layout.name.encode(), 7])
    looks = Target(kind=CI_WIDTH, value=target_points, step=1, max_spend_pence=most, reward_pence=1, rule=PLANNED_LOOKS)
    sequence = Target(kind=CI_WIDTH, value=target_points, step=1, max_spend_pence=most, reward_pence=1, rule=SEQUENCE)
    found: dict[str, list[tuple[int, bool, float]]] = {PLANNED_LOOKS: [], SEQUENCE: []}
    oracle = []
    for _ in range(reps):
        b, a = draw_items(layout, layout.n_items, rng)
        truth = float(population_chance(b, a).mean())
        oracle.append(oracle_n(people_sd(layout, b, a), target_points))
        stream = _participants(layout, b, a, rng)
        seen: list[float] = []
        # the same people in the same order for both rules (`seen` is shared)
        for rule, (n, interval) in (
            (PLANNED_LOOKS, _looks(stream, seen, looks)),
            (SEQUENCE, _recruit(stream, seen, "cs", sequence)),
        ):
            found[rule].append((n, _covers(interval, truth), interval_width(interval) or 100.0))
    out = []
    mean_oracle = float(np.mean(oracle))
    for rule, rows_ in found.items():
        n = np.array([r[0] for r in rows_], dtype=float)
        ratio = n / np.array(oracle, dtype=float)
        out.append(
            Price(
                layout=layout.name,
                rule=rule,
                reps=reps,
                mean_n=float(n.mean()),
                se_n=float(n.std(ddof=1) / np.sqrt(reps)),
                oracle_n=mean_oracle,
                ratio=float(n.mean() / mean_oracle),
                ratio_se=float(ratio.std(ddof=1) / np.sqrt(reps)),
                hits=sum(r[1] for r in rows_),
                widest=max(r[2] for r in rows_),
                budget=int((n >= most).sum()),
            )
        )
    return out


RULE_NAMES = {PLANNED_LOOKS: "planned looks", SEQUENCE: "confidence sequence"}


def price_table(table: list[Price], target_points: float) -> str:
    lines = [
        "| layout | rule | mean n at the stop | oracle's n | ratio | coverage at the stop | widest (points) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for p in table:
        lines.append(
            f"| {p.layout} | {RULE_NAMES[p.rule]} | {p.mean_n:.1f} ± {p.se_n:.1f} | {p.oracle_n:.1f} | "
            f"{p.ratio:.2f} ± {p.ratio_se:.2f} | {p.coverage:.1%} ± {100 * p.coverage_se:.1f} | {p.widest:.1f} |"
        )
    reps = {p.reps for p in table}
    lines.append("")
    lines.append(
        f"Target {target_points:g} points; {', '.join(map(str, sorted(reps)))} replications per layout (± is the "
        "Monte Carlo SE; the ratio's is that of the mean of each replication's ratio)."
    )
    return "\n".join(lines)


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
    parser.add_argument("--price", action="store_true", help="print each rule's price table instead")
    args = parser.parse_args(argv)
    if args.price:
        table = [
            price
            for name in args.layout or ["one-unit"]
            for price in prices(LAYOUTS[name], args.reps, args.seed, target_points=args.target)
        ]
        print(
            json.dumps([{**asdict(p), "coverage": p.coverage} for p in table], indent=1)
            if args.json
            else price_table(table, args.target)
        )
        return
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
