"""Calibration of the placement (`parity.stats.placement.joint_placement`, what the results page,
the report and the API print as "irt"): studies drawn at a layout, with models of known ability
θ_m answering the same items, placed by the same function the results page calls.

Rows, per layout:
- each model's ability CI: how often it covers the true θ_m (target: 95%), at several θ_m; the
  extra column gives the mean error of the estimate and whether the placement called itself
  calibrated; and the same for a model scored as the mean of two variants per item (½ where one
  was right);
- the people's mean ability (the scale's origin) and the slope of their estimates on their true
  abilities (its unit): the share of draws where the estimate exceeds the truth (an unbiased
  estimate does so about half the time), with the mean error and its MC SE;
- in the 2PL, the items' discriminations: the same, over the items of every draw.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from parity.stats.placement import joint_placement
from perf.calibration.measure import Row
from perf.calibration.truth import LAYOUTS, Draw, Layout, draw, model_chance, model_scores

#: the true abilities of the models placed in every draw (in the people population's SDs)
THETAS = (-1.0, 0.0, 0.5, 2.0)
#: one more model in every draw, scored per item as the mean of two variants' 0/1 answers (MiQA's
#: two orders), at this ability
VARIANTS_THETA = 0.5


def _summary(errors: list[float]) -> str:
    values = np.asarray(errors)
    se = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else float("nan")
    return f"mean error {values.mean():+.3f} (MC SE {se:.3f})"


def _slope(estimate: np.ndarray, truth: np.ndarray) -> float:
    centred = truth - truth.mean()
    return float(np.sum(centred * (estimate - estimate.mean())) / np.sum(centred**2))


def _discrimination_errors(placement_items: list, study: Draw) -> list[float]:
    return [item.discrimination - float(study.a[int(item.item[1:])]) for item in placement_items]


def rows(layout: Layout, reps: int, seed: int) -> list[Row]:
    """The placement's calibration rows at `layout` over `reps` draws (seeded)."""
    rng = np.random.default_rng(seed)
    hits = {theta: 0 for theta in THETAS}
    widths: dict[float, list[float]] = {theta: [] for theta in THETAS}
    errors: dict[float, list[float]] = {theta: [] for theta in THETAS}
    variant_hits, variant_widths, variant_errors = 0, [], []
    origin: list[float] = []
    unit: list[float] = []
    discrimination: list[float] = []
    done, uncalibrated = 0, 0
    for _ in range(reps):
        study = draw(layout, rng)
        models = {f"m{k}": model_scores(study, model_chance(study, theta), rng) for k, theta in enumerate(THETAS)}
        chance = model_chance(study, VARIANTS_THETA)
        two = [model_scores(study, chance, rng) for _ in range(2)]
        models["variants"] = {item: (two[0][item] + two[1][item]) / 2.0 for item in two[0]}
        placement = joint_placement(study.table(), models)
        if placement is None:
            continue
        done += 1
        uncalibrated += int(not placement.calibrated)
        *fixed, variants = placement.models
        low, high = variants.ci
        variant_hits += int(low <= VARIANTS_THETA <= high)
        variant_widths.append(high - low)
        variant_errors.append(variants.ability - VARIANTS_THETA)
        for theta, entry in zip(THETAS, fixed, strict=True):
            low, high = entry.ci
            hits[theta] += int(low <= theta <= high)
            widths[theta].append(high - low)
            errors[theta].append(entry.ability - theta)
        estimated = np.asarray(placement.people_abilities)
        # the placement lists the people as the table first names them: p0, p1, … in order, those
        # with an answer only; the careless answer at chance, so only the attentive have a true
        # ability to compare with
        present = study.present()
        attentive = ~study.careless[present]
        truth = study.theta[present][attentive]
        origin.append(float(estimated[attentive].mean() - truth.mean()))
        unit.append(_slope(estimated[attentive], truth) - 1.0)
        if placement.model == "2pl":
            discrimination.extend(_discrimination_errors(placement.items, study))
    flag = f"; calibrated: false in {uncalibrated}/{done} draws" if uncalibrated else ""
    out = [
        Row(
            layout=layout.name,
            figure=f"model ability CI at θ = {theta:+.1f}",
            kind="coverage",
            target="the model's true ability on the people population's scale",
            reps=done,
            hits=hits[theta],
            nominal=0.95,
            width=float(np.mean(widths[theta])) if widths[theta] else None,
            unit="SD",
            extra=_summary(errors[theta]) + flag,
        )
        for theta in THETAS
    ]
    if done:
        out.append(
            Row(
                layout=layout.name,
                figure=f"model ability CI at θ = {VARIANTS_THETA:+.1f}, mean of two variants",
                kind="coverage",
                target="the model's true ability on the people population's scale",
                reps=done,
                hits=variant_hits,
                nominal=0.95,
                width=float(np.mean(variant_widths)),
                unit="SD",
                extra=_summary(variant_errors) + flag,
            )
        )
    for figure, target, values in (
        ("people's mean ability (the origin)", "the drawn people's true mean ability", origin),
        ("people's abilities on their true ones (slope; the unit)", "a slope of 1", unit),
        ("items' discriminations (2PL)", "each item's true discrimination", discrimination),
    ):
        if values:
            out.append(
                Row(
                    layout=layout.name,
                    figure=figure,
                    kind="above truth",
                    target=target,
                    reps=len(values),
                    hits=int(np.sum(np.asarray(values) > 0)),
                    nominal=0.5,
                    extra=_summary(values),
                )
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--layout", action="append", choices=sorted(LAYOUTS), help="default: every layout")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    table = [row for name in args.layout or list(LAYOUTS) for row in rows(LAYOUTS[name], args.reps, args.seed)]
    if args.json:
        print(json.dumps([row.as_dict() for row in table], indent=1))
        return
    for row in table:
        width = f"{row.width:.2f}" if row.width is not None else "—"
        print(
            f"{row.layout:12} {row.figure:58} {row.kind:11} {100 * row.rate:5.1f}% ± {100 * row.mc_se:.1f} "
            f"(n={row.reps}, nominal {100 * row.nominal:.0f}%) width {width}  {row.extra}"
        )


if __name__ == "__main__":
    main()
