"""Before a study: the smallest human–model gap it detects, and how wide its human accuracy's CI will be.

A design is planned people P in U units (everyone of a unit answers that unit's I items; U = 1: every
person answers every item), N = U·I items in all. People and items are drawn from a crossed logistic
model (a Rasch model, the truth `perf/calibration` simulates from): person p answers item i right with
chance σ(β₀ + σ_p z_p − σ_i z_i), z_p and z_i standard normal, β₀ set so that the people's mean
accuracy over items is the `baseline`. A model is a respondent of another ability on the same items:
chance σ(β₀ + θ − σ_i z_i) on item i, θ its ability on the people's logit scale (0: their mean).

The gap's test is the one the results page prints (`parity.stats.crossed`): on the probability
scale, Var(gap) = σ_t²/N + σ_a²/P, with σ_a² the variance of a person's accuracy over the item
population, σ_t² = Var(m_i − μ_i) + σ_e²/n the item part (the model's score less the item's
population accuracy, plus the mean residual of the item's n = P/U people) and σ_e² what is left of
a single answer's variance p(1 − p) once items and people are taken out. These expectations are
computed by Gauss–Hermite quadrature, the degrees of freedom by Satterthwaite's approximation over
the same mean squares `crossed_gap` estimates, and the power of its two-sided t test at a gap by
the noncentral t (`parity.stats.distributions`). The minimum detectable gap is the gap of the model
ability θ whose power is 80% (scipy.optimize.brentq), for a model above the people and for one below (a
model's own spread across items differs on the two sides); `detectable_gap` is the larger, so any
gap at least that large either way is detected with at least that power.

The human accuracy's CI: the results page prints Student's t-interval over the participants'
accuracies (people like these, on these items); its expected half-width is
t(0.975, P − 1) · c₄(P) · s/√P, s² = σ_a² + σ_e²/I (+ the spread of the units' item sets when
U > 1). Read as a claim about items like these too, the human accuracy's SE is
√(σ_μ²/N + σ_a²/P + σ_e²/(nN)) (σ_μ² the items' spread): `human_half_width_items` is that
interval's half-width, on Satterthwaite's degrees of freedom.

Checked by simulation (perf/calibration/power.py; tests/parity/stats/test_power.py): at the reported gap
`paired_test` rejects about 80% of the time at 30 people × 40 items, 100 × 100 and in units; near the
ceiling with few items a side may have no detectable gap (docs/researchers.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parity.stats.distributions import nct_cdf, nct_sf, t_quantile
from parity.stats.results import JsonResult

#: what the detectable gap generalises over (the gap test's target, `parity.stats.crossed.TARGET`)
TARGET = "people like these, on items like these"
METHOD = (
    "expected variance components of the people × items design under a crossed logistic model, "
    "Satterthwaite's degrees of freedom, power of the two-sided t test by the noncentral t"
)
DEFAULT_POWER = 0.8
DEFAULT_ALPHA = 0.05

_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(41)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class VarianceComponents(JsonResult):
    """The people's mean accuracy and the spreads of people and items on the logit scale."""

    baseline: float
    person_sd: float
    item_sd: float


@dataclass(frozen=True)
class Moments:
    """The probability-scale components of a `VarianceComponents` (or measured in a pilot)."""

    #: the people's mean accuracy over the item population
    mean: float
    #: the variance of a person's accuracy (over the item population) across people
    person: float
    #: the variance of an item's accuracy (over the people population) across items
    item: float
    #: what is left of one answer's variance p(1 − p): the person × item interaction and the noise
    residual: float


@dataclass(frozen=True)
class PowerAnalysis(JsonResult):
    people: int
    units: int
    items_per_person: int
    n_items: int
    baseline: float
    person_sd: float
    item_sd: float
    power: float
    alpha: float
    #: the smallest gap (model − people, a share) detected with `power`: the larger of the two sides
    detectable_gap: float | None
    #: the same for a model above the people, and for one below (negative); None: no gap that side
    detectable_above: float | None
    detectable_below: float | None
    #: the expected half-width of the human accuracy's 95% t-interval over participants (the page's)
    human_half_width: float | None
    #: the same generalising over items too (people and items like these)
    human_half_width_items: float | None
    target: str = TARGET
    method: str = METHOD
    #: why a figure is missing (None when none is)
    reason: str | None = None


def _expit(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _grid(intercept: float, person_sd: float, item_sd: float) -> np.ndarray:
    """People (rows) × items (columns) chances at the quadrature nodes."""
    return _expit(intercept + person_sd * _NODES[:, None] - item_sd * _NODES[None, :])


def _mean_of(intercept: float, person_sd: float, item_sd: float) -> float:
    return float(_WEIGHTS @ _grid(intercept, person_sd, item_sd) @ _WEIGHTS)


def intercept_for(baseline: float, person_sd: float, item_sd: float) -> float:
    """β₀ whose people's mean accuracy is `baseline`."""
    from scipy import optimize

    if not 0.0 < baseline < 1.0:
        raise ValueError(f"the baseline accuracy must lie strictly between 0 and 1, got {baseline}")
    return float(optimize.brentq(lambda b0: _mean_of(b0, person_sd, item_sd) - baseline, -40.0, 40.0, xtol=1e-12))


def moments(components: VarianceComponents) -> Moments:
    """The probability-scale components the SE is made of."""
    intercept = intercept_for(components.baseline, components.person_sd, components.item_sd)
    return _moments(intercept, components.person_sd, components.item_sd)


def _moments(intercept: float, person_sd: float, item_sd: float) -> Moments:
    grid = _grid(intercept, person_sd, item_sd)
    mean = float(_WEIGHTS @ grid @ _WEIGHTS)
    item_means = _WEIGHTS @ grid  # per item node: over people
    person_means = grid @ _WEIGHTS  # per person node: over items
    item = float(_WEIGHTS @ (item_means - mean) ** 2)
    person = float(_WEIGHTS @ (person_means - mean) ** 2)
    residual = max(0.0, mean * (1.0 - mean) - item - person)
    return Moments(mean=mean, person=person, item=item, residual=residual)


def _model_parts(intercept: float, item_sd: float, people_by_item: np.ndarray, ability: float) -> tuple[float, float]:
    """The model's population gap and Var(m_i − μ_i) over the item population, at `ability`."""
    chance = _expit(intercept + ability - item_sd * _NODES)
    gap = float(_WEIGHTS @ (chance - people_by_item))
    spread = float(_WEIGHTS @ (chance * (1.0 - chance))) + float(_WEIGHTS @ (chance - people_by_item - gap) ** 2)
    return gap, spread


@dataclass(frozen=True)
class _Layout:
    people: float
    units: int
    items: int  # per person

    @property
    def n_items(self) -> int:
        return self.units * self.items

    @property
    def per_unit(self) -> float:
        return self.people / self.units


def _gap_variance(layout: _Layout, parts: Moments, model_spread: float) -> tuple[float, float]:
    """Var(gap) and its Satterthwaite degrees of freedom, from the expected mean squares of
    `crossed_gap` (its terms: the items', the people's and the residual's)."""
    n_items, people, k = layout.n_items, layout.people, layout.items
    ms_t = model_spread + parts.residual / layout.per_unit
    df_t = max(1.0, n_items - layout.units)
    terms = [(ms_t / n_items, df_t)]
    variance = ms_t / n_items
    if parts.person > 0:
        df_a = max(1.0, people - layout.units)
        df_e = max(1.0, layout.per_unit * n_items - people - n_items + layout.units)
        ms_a = parts.person + parts.residual / k
        terms += [(ms_a / people, df_a), (parts.residual / k / people, df_e)]
        variance += parts.person / people
    df = variance**2 / sum(term**2 / dof for term, dof in terms)
    return variance, df


def _power_at(gap: float, se: float, df: float, alpha: float) -> float:
    critical = t_quantile(1.0 - alpha / 2.0, df)
    shift = gap / se
    if abs(shift) > critical + 12.0:
        # the near tail is 1 to double precision there and the far one nothing (scipy's far tail
        # can be NaN so far out)
        return 1.0
    # the far tail (a rejection on the wrong side) counts too: the test is two-sided
    return float(np.nan_to_num(nct_sf(critical, df, shift)) + np.nan_to_num(nct_cdf(-critical, df, shift)))


def _power_of(
    layout: _Layout,
    parts: Moments,
    intercept: float,
    item_sd: float,
    people_by_item: np.ndarray,
    ability: float,
    alpha: float,
) -> float:
    """The gap test's power for a model of `ability`. A model may be right (or wrong) on every one
    of the N items, with chance accuracy^N as items are drawn independently; the test then sees
    only the people's shares on those items, which such a model's answers make easier (or harder)
    than items at large, and takes the model's spread at the rule of succession's accuracy
    (`parity.stats.crossed`). Near the ceiling with few items that is most studies, and a power
    computed as if the model's spread showed (80% at +5.8 points at 150 people × 30 items, 93%
    right) was realised 27% of the time."""
    gap, spread = _model_parts(intercept, item_sd, people_by_item, ability)
    variance, df = _gap_variance(layout, parts, spread)
    total = _power_at(gap, math.sqrt(variance), df, alpha)
    chance = _expit(intercept + ability - item_sd * _NODES)
    n = layout.n_items
    for same, share in ((chance, (n + 1.0) / (n + 2.0)), (1.0 - chance, 1.0 / (n + 2.0))):
        likely = float(_WEIGHTS @ same)
        every = likely**n
        if every < 1e-6:
            continue
        # the items as they are given that the model's score is `share`'s side on each
        weights = _WEIGHTS * same / likely
        people = float(weights @ people_by_item)
        people_spread = float(weights @ (people_by_item - people) ** 2)
        variance_same, df_same = _gap_variance(layout, parts, people_spread + share * (1.0 - share))
        gap_same = round(share) - people
        total += every * (_power_at(gap_same, math.sqrt(variance_same), df_same, alpha) - total)
    return total


def detectable_ability(
    layout: _Layout, components: VarianceComponents, side: int, *, power: float, alpha: float
) -> float | None:
    """The model ability (people's logit scale) whose gap the test detects with `power`, above the
    people (side +1) or below (−1); None when no ability that side reaches it."""
    from scipy import optimize

    intercept = intercept_for(components.baseline, components.person_sd, components.item_sd)
    parts = _moments(intercept, components.person_sd, components.item_sd)
    people_by_item = _WEIGHTS @ _grid(intercept, components.person_sd, components.item_sd)

    def shortfall(ability: float) -> float:
        return _power_of(layout, parts, intercept, components.item_sd, people_by_item, ability, alpha) - power

    # the ability with no gap: a person of mean ability is not the people's mean accuracy (σ is curved)
    level = optimize.brentq(
        lambda ability: _model_parts(intercept, components.item_sd, people_by_item, ability)[0], -40.0, 40.0
    )
    far = level + side * 20.0
    if shortfall(far) < 0:
        return None
    return float(optimize.brentq(shortfall, level, far, xtol=1e-10))


def model_gap(components: VarianceComponents, ability: float) -> float:
    """The population gap (model − people, over the item population) of a model of `ability`."""
    intercept = intercept_for(components.baseline, components.person_sd, components.item_sd)
    people_by_item = _WEIGHTS @ _grid(intercept, components.person_sd, components.item_sd)
    return _model_parts(intercept, components.item_sd, people_by_item, ability)[0]


def _c4(n: float) -> float:
    """E[s]/σ for n normal values (the sample SD's bias)."""
    from scipy import special

    return math.sqrt(2.0 / (n - 1.0)) * math.exp(special.gammaln(n / 2.0) - special.gammaln((n - 1.0) / 2.0))


def _human_half_widths(layout: _Layout, parts: Moments, confidence: float) -> tuple[float, float]:
    people, k, units = layout.people, layout.items, layout.units
    # the participants' accuracies: their own ability, their answers' noise and (across units) their item set
    spread = parts.person + parts.residual / k + (parts.item / k * (units - 1) / units if units > 1 else 0.0)
    quantile = t_quantile(0.5 + confidence / 2.0, people - 1)
    over_people = quantile * _c4(people) * math.sqrt(spread / people)
    # over people and items: the items' spread, the people's and the residual's, with their degrees of freedom
    terms = [
        (parts.item / layout.n_items, max(1.0, layout.n_items - units)),
        (parts.person / people, max(1.0, people - units)),
        (parts.residual / (layout.per_unit * layout.n_items), max(1.0, layout.per_unit * layout.n_items)),
    ]
    variance = sum(term for term, _ in terms)
    df = variance**2 / sum(term**2 / dof for term, dof in terms if term > 0)
    over_items = t_quantile(0.5 + confidence / 2.0, df) * math.sqrt(variance)
    return over_people, over_items


def power_analysis(
    *,
    people: int,
    items_per_person: int,
    components: VarianceComponents,
    units: int = 1,
    power: float = DEFAULT_POWER,
    alpha: float = DEFAULT_ALPHA,
) -> PowerAnalysis:
    """The smallest detectable gap and the human CI's expected half-width for `people` in `units`
    units of `items_per_person` items each (`units` = 1: everyone answers every item)."""
    values: dict[str, Any] = {
        "people": int(people),
        "units": int(units),
        "items_per_person": int(items_per_person),
        "n_items": int(units) * int(items_per_person),
        "baseline": round(float(components.baseline), 6),
        "person_sd": float(components.person_sd),
        "item_sd": float(components.item_sd),
        "power": power,
        "alpha": alpha,
    }
    empty: dict[str, Any] = {
        "detectable_gap": None,
        "detectable_above": None,
        "detectable_below": None,
        "human_half_width": None,
        "human_half_width_items": None,
    }
    if units < 1 or people < 2 * units:
        return PowerAnalysis(**values, **empty, reason="at least two people in every unit are needed for a CI")
    if items_per_person < 2:
        return PowerAnalysis(**values, **empty, reason="at least two items per person are needed for a CI")
    layout = _Layout(float(people), int(units), int(items_per_person))
    above = detectable_ability(layout, components, +1, power=power, alpha=alpha)
    below = detectable_ability(layout, components, -1, power=power, alpha=alpha)
    gaps = [None if ability is None else model_gap(components, ability) for ability in (above, below)]
    known = [abs(gap) for gap in gaps if gap is not None]
    parts = moments(components)
    over_people, over_items = _human_half_widths(layout, parts, 1.0 - alpha)
    reason = None
    if len(known) < 2:
        reason = "no gap on one side is detected with this power: the people are too near 0% or 100%"
    return PowerAnalysis(
        **values,
        detectable_gap=_rounded(max(known) if len(known) == 2 else None),
        detectable_above=_rounded(gaps[0]),
        detectable_below=_rounded(gaps[1]),
        human_half_width=_rounded(over_people),
        human_half_width_items=_rounded(over_items),
        reason=reason,
    )


def _rounded(value: float | None) -> float | None:
    """A figure to a millionth (a ten-thousandth of a point): the root-finders' last digits are noise, and a
    stored analysis should read the same on every machine."""
    return None if value is None else round(value, 6)


def detectable_model_ability(analysis: PowerAnalysis, side: int = +1) -> float | None:
    """The ability of the model at the detectable gap of `analysis` (for simulating it)."""
    components = VarianceComponents(analysis.baseline, analysis.person_sd, analysis.item_sd)
    layout = _Layout(float(analysis.people), analysis.units, analysis.items_per_person)
    return detectable_ability(layout, components, side, power=analysis.power, alpha=analysis.alpha)


# -- the components of a pilot -----------------------------------------------------------------


@dataclass(frozen=True)
class PilotComponents(JsonResult):
    """Variance components measured in a study's answers, and their logistic equivalent."""

    n_people: int
    n_items: int
    n_answers: int
    #: the probability-scale moments measured (ANOVA estimators, as `crossed_gap` makes them)
    mean: float
    person_variance: float
    item_variance: float
    components: VarianceComponents | None
    reason: str | None = None


def pilot_components(
    person: Sequence[int] | np.ndarray,
    item: Sequence[int] | np.ndarray,
    unit: Sequence[int] | np.ndarray,
    correct: Sequence[int] | np.ndarray,
) -> PilotComponents:
    """The components of a study's scored answers (person, item and unit codes, 0/1 outcomes): the
    method-of-moments estimates of `crossed_gap` for the people's part, the items' spread within their
    unit, and the logistic model (baseline, person SD, item SD) that has those moments
    (scipy.optimize.least_squares)."""
    person_codes = np.unique(np.asarray(person), return_inverse=True)[1]
    item_codes = np.unique(np.asarray(item), return_inverse=True)[1]
    unit_of = np.asarray(unit)
    y = np.asarray(correct, dtype=np.float64)
    n_people, n_items = int(person_codes.max(initial=-1)) + 1, int(item_codes.max(initial=-1)) + 1
    base: dict[str, Any] = {"n_people": n_people, "n_items": n_items, "n_answers": int(y.size)}
    if n_items < 2 or n_people < 2:
        return PilotComponents(
            **base, mean=float(y.mean()) if y.size else 0.0, person_variance=0.0, item_variance=0.0,
            components=None, reason="fewer than two people or two items answered",
        )  # fmt: skip
    per_item = np.bincount(item_codes, minlength=n_items).astype(np.float64)
    h = np.bincount(item_codes, y, minlength=n_items) / per_item
    mean = float(h.mean())
    residual = y - h[item_codes]
    per_person = np.bincount(person_codes, minlength=n_people).astype(np.float64)
    person_mean = np.bincount(person_codes, residual, minlength=n_people) / per_person
    item_unit = np.zeros(n_items, dtype=np.int64)
    item_unit[item_codes] = np.unique(unit_of, return_inverse=True)[1]
    person_unit = np.zeros(n_people, dtype=np.int64)
    person_unit[person_codes] = item_unit[item_codes]
    n_units = int(np.count_nonzero(np.bincount(item_unit)))
    people_in_unit = np.bincount(person_unit)
    df_a = n_people - int(np.count_nonzero(people_in_unit))
    df_e = y.size - n_people - n_items + n_units
    if df_a < 1 or df_e < 1 or n_items - n_units < 1:
        return PilotComponents(
            **base, mean=mean, person_variance=0.0, item_variance=0.0, components=None,
            reason="fewer than two people or two items in every unit",
        )  # fmt: skip
    ms_e = float(np.sum((residual - person_mean[person_codes]) ** 2)) / df_e
    share = (people_in_unit[person_unit] - 1) / people_in_unit[person_unit]
    e_weight = float(np.sum(share / per_person)) / df_a
    person_variance = max(0.0, float(np.sum(person_mean**2)) / df_a - e_weight * ms_e)
    # the items' spread: around their unit's mean (its people are shared), less their people's noise
    unit_mean = np.bincount(item_unit, h) / np.maximum(1, np.bincount(item_unit))
    ms_items = float(np.sum((h - unit_mean[item_unit]) ** 2)) / (n_items - n_units)
    item_variance = max(0.0, ms_items - ms_e * float(np.mean(1.0 / per_item)))
    components = logistic_components(mean, person_variance, item_variance)
    return PilotComponents(
        **base, mean=mean, person_variance=person_variance, item_variance=item_variance, components=components
    )


def logistic_components(mean: float, person_variance: float, item_variance: float) -> VarianceComponents:
    """The crossed logistic model whose people's mean accuracy, person variance and item variance
    (probability scale) are those given, as near as the model allows."""
    from scipy import optimize

    mean = min(max(mean, 0.005), 0.995)

    def misfit(values: np.ndarray) -> np.ndarray:
        intercept, person_sd, item_sd = values
        parts = _moments(intercept, person_sd, item_sd)
        return np.array(
            [
                (parts.mean - mean) * 10.0,
                math.sqrt(parts.person) - math.sqrt(person_variance),
                math.sqrt(parts.item) - math.sqrt(item_variance),
            ]
        )

    start = np.array([math.log(mean / (1.0 - mean)), 1.0, 1.0])
    fit = optimize.least_squares(misfit, start, bounds=([-20.0, 0.0, 0.0], [20.0, 8.0, 8.0]))
    _, person_sd, item_sd = (float(value) for value in fit.x)
    return VarianceComponents(baseline=round(mean, 6), person_sd=round(person_sd, 4), item_sd=round(item_sd, 4))


def _points(share: float | None) -> str:
    return "—" if share is None else f"{100 * abs(share):.1f} points"


def describe(analysis: Mapping[str, Any]) -> str:
    """A study's recorded power analysis (`PowerAnalysis.to_dict()` with its `source`) in one or two
    sentences, as the form, the preregistration and the report state it."""
    if not analysis:
        return ""
    people, units, items = analysis.get("people", 0), analysis.get("units", 1), analysis.get("items_per_person", 0)
    layout = (
        f"{people} people answering all {items} items"
        if units == 1
        else f"{people} people in {units} units of {items} items each ({units * items} items)"
    )
    source = analysis.get("source") or {}
    components = source.get("components") or {}
    variance = (
        f" Variance from {source.get('label', 'a stated default')}: people {100 * components['baseline']:.0f}% "
        f"right, a person SD of {components['person_sd']:.2f} and an item SD of {components['item_sd']:.2f} on the "
        "logit scale."
        if components
        else ""
    )
    above, below = analysis.get("detectable_above"), analysis.get("detectable_below")
    if above is None and below is None:
        return f"Power analysis for {layout}: {analysis.get('reason') or 'not computed'}.{variance}"
    power = 100 * float(analysis.get("power", DEFAULT_POWER))
    alpha = float(analysis.get("alpha", DEFAULT_ALPHA))
    gap = analysis.get("detectable_gap")
    if gap is not None:
        detected = (
            f"detects a gap of {_points(gap)} or more either way with {power:.0f}% power "
            f"({_points(above)} for a model above the people, {_points(below)} below)"
        )
    else:
        shown, missing = ("above", "below") if above is not None else ("below", "above")
        detected = (
            f"detects a model {_points(above if above is not None else below)} or more {shown} the people with "
            f"{power:.0f}% power; no model {missing} them is detected with that power (the people are too near "
            f"{'100%' if missing == 'above' else '0%'})"
        )
    return (
        f"Power analysis before launch: with {layout}, the test of the human–model gap over people and items "
        f"(two-sided, α = {alpha:g}) {detected}; the human accuracy's 95% CI is expected to be "
        f"±{_points(analysis.get('human_half_width'))} over participants "
        f"(±{_points(analysis.get('human_half_width_items'))} generalising over items too).{variance}"
    )
