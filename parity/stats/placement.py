"""Where models stand among people: each model's ability on the scale of the people population
(0 = its mean, 1 = its SD; `parity.stats.irt`) with its CI, its percentile among this study's
participants and in the population, the items' parameters, the fit's reliabilities, whether the CIs
are calibrated at this size, and the items on which models and people part ways.

Items every respondent (people and models together) got right, or every one got wrong, say
nothing about abilities and are left out of the fit, counted. Only items some person answered
enter: the scale is the people's.

Calibration: by simulation (perf/calibration/irt.py) the ability CIs covered the true ability
93–97% at 20 people (one unit of 20 × 150 items, four units of 5 × 150, items skewed easy or not)
and 200 people × 150 items (2PL); at 5 people × 20 items they were far wider than their level. A
placement on fewer than `CALIBRATED_MIN_PEOPLE` people says so (`calibrated`, `calibration_note`).

Divergent items, a DIF-style test: with the abilities and item parameters of the fit (in the 1PL
each item's difficulty fitted to the people's answers given their abilities), the models' right
answers on an item are a sum of independent Bernoulli draws of their fitted probabilities (a
Poisson-binomial). Its exact two-sided p-value (outcomes no likelier than the one seen) asks
whether the models did better or worse on the item than people *of the same ability* do, which raw
rates cannot tell apart from the models being stronger overall. The statistic reported is the
standardised residual (seen − expected) / sd. The p-values are adjusted over all the items tested
by Benjamini–Hochberg (`parity.stats.distributions.benjamini_hochberg`, what
`scipy.stats.false_discovery_control` computes). The test treats the item's fitted difficulty as
known; from five people's answers it is not, so it is a screen, not a calibrated test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from parity.stats.distributions import benjamini_hochberg, normal_cdf
from parity.stats.results import JsonResult
from parity.stats.table import UNSCORED, RatingTable, first_seen

if TYPE_CHECKING:
    from parity.stats.irt import IrtFit, IrtModel, Responses

# The IRT fit and scipy are imported inside the functions that use them: scipy loads in about a
# second, and this module is reached at every start of Django (docs/performance.md, "Start-up").

#: the divergent items listed (the most significant first)
DIVERGENT_LIMIT = 20
#: the false discovery rate under which a divergent item is flagged
FDR = 0.05
#: the fewest people at which the ability CIs were measured to hold their level (perf/calibration/irt.py:
#: 20 people in one unit or in four units of five; not at 5 people)
CALIBRATED_MIN_PEOPLE = 20
#: a true ability this many people-SDs or more from the people's mean is beyond where the ability CI
#: was measured to hold: at 2 SDs it covered 90.1% (items skewed easy) and 91.3% (200 people, 2PL)
#: in 1,000 replications (perf/calibration/irt.py), 94.5–95.2% at the other layouts; 86.6–88.0%
#: at 1.5–2.5 SDs with items skewed easy in a second set of simulations. A model is marked when its
#: CI reaches that far, not its estimate: an estimate of 1.3 with a CI up to 1.9 may well be a model
#: at 2 SDs, whose CI is the one that under-covers
FAR_FROM_PEOPLE = 1.5
FAR_NOTE = (
    "whose CI reaches more than 1.5 of the people's SDs from their mean: where the true ability lies "
    "that far out, such CIs covered 87–95% in simulation, not 95% (items skewed easy, or 200 people "
    "with a 2PL)"
)


def reaches_far(low: float, high: float) -> bool:
    """Whether a CI of the ability reaches into the region where such CIs under-cover."""
    return high > FAR_FROM_PEOPLE or low < -FAR_FROM_PEOPLE


@dataclass(frozen=True)
class ModelPlacement(JsonResult):
    name: str
    #: in the people population's SDs from its mean (Warm's WLE given the items)
    ability: float
    #: the `confidence` CI of the ability: the fit's (`parity.stats.irt.intervals`): the exact CI of
    #: a standardised mean difference (Steiger & Fouladi's noncentral t on the people's n − 1
    #: degrees of freedom, with the effective number of people), not ± z·se
    ci: list[float]
    #: the whole SE: √(1/n + θ²/2(n − 1)) with n the effective number of people (the same interval's
    #: delta-method width), carrying the model's and the people's measurement and the people's sampling
    se: float
    #: the part of `se` from the model's own answers alone, 1/√I
    se_answers: float
    #: the share (0–100) of this study's participants whose ability estimate is below the model's,
    #: ties counted half: about these people, with no CI
    percentile: float
    #: the share (0–100) of the people population (people like these) below the model, 100·Φ(θ),
    #: with the ability CI carried over (normal abilities assumed, as the fit assumes)
    population_percentile: float
    population_percentile_ci: list[float]
    n_items: int
    #: why this model's CI may cover less than its level ("" when nothing is known against it)
    ci_note: str = ""


@dataclass(frozen=True)
class ItemParameters(JsonResult):
    item: str
    difficulty: float
    difficulty_se: float
    discrimination: float | None


@dataclass(frozen=True)
class DivergentItem(JsonResult):
    item: str
    human_rate: float
    model_rate: float
    #: the models' right answers over what people of their abilities would give, standardised
    statistic: float
    p: float
    p_adjusted: float
    significant: bool


@dataclass(frozen=True)
class Placement(JsonResult):
    model: IrtModel
    people: int
    items_used: int
    items_dropped_all_right: int
    items_dropped_all_wrong: int
    person_reliability: float | None
    item_reliability: float | None
    converged: bool
    confidence: float
    #: whether the layout is one where the ability CIs were measured to cover 93.5–96.5% by
    #: simulation (perf/calibration/irt.py), and if not, why, in words
    calibrated: bool
    calibration_note: str
    #: the 1PL's common discrimination: one people-population SD in logits (None in the 2PL)
    scale_logits: float | None
    models: list[ModelPlacement]
    people_abilities: list[float]
    items: list[ItemParameters]
    n_items_tested: int
    n_divergent: int
    divergent_items: list[DivergentItem] = field(default_factory=list)


def responses_of(
    humans: RatingTable, models: Mapping[str, Mapping[str, float]]
) -> tuple[Responses, list[str], list[str], list[str]]:
    """The scored human answers and the models' item scores in long form (people first, then the
    models in `models`' order), restricted to the items some person answered; with the people's
    names, the models' and the items'."""
    from parity.stats.irt import Responses

    scored = humans.correct != UNSCORED
    person_codes, item_codes = humans.annotator[scored], humans.item[scored]
    people = first_seen(person_codes)
    items = first_seen(item_codes)
    row_of = np.zeros(len(humans.annotators), dtype=np.int64)
    row_of[people] = np.arange(people.size)
    column_of = np.zeros(len(humans.items), dtype=np.int64)
    column_of[items] = np.arange(items.size)
    item_names = [humans.items[i] for i in items.tolist()]
    column = {name: index for index, name in enumerate(item_names)}
    respondent = [row_of[person_codes]]
    item = [column_of[item_codes]]
    score = [humans.correct[scored].astype(np.float64)]
    for number, scores in enumerate(models.values()):
        shared = [(column[key], value) for key, value in scores.items() if key in column]
        respondent.append(np.full(len(shared), people.size + number, dtype=np.int64))
        item.append(np.array([c for c, _ in shared], dtype=np.int64))
        score.append(np.array([float(v) for _, v in shared], dtype=np.float64))
    responses = Responses(
        respondent=np.concatenate(respondent),
        item=np.concatenate(item),
        score=np.concatenate(score),
        n_respondents=people.size + len(models),
        n_items=len(item_names),
    )
    return responses, [humans.annotators[p] for p in people.tolist()], list(models), item_names


def _drop_uninformative(responses: Responses) -> tuple[Responses, np.ndarray, int, int]:
    """The responses to the items some got right and some wrong, renumbered; the kept items'
    former indices; how many items were all right and all wrong."""
    from parity.stats.irt import Responses

    right = np.bincount(responses.item, responses.score, minlength=responses.n_items)
    answered = np.bincount(responses.item, minlength=responses.n_items)
    all_right = (right >= answered) & (answered > 0)
    all_wrong = (right <= 0) & (answered > 0)
    kept = np.flatnonzero(~all_right & ~all_wrong)
    new_index = np.full(responses.n_items, -1, dtype=np.int64)
    new_index[kept] = np.arange(kept.size)
    rows = new_index[responses.item] >= 0
    trimmed = Responses(
        respondent=responses.respondent[rows],
        item=new_index[responses.item[rows]],
        score=responses.score[rows],
        n_respondents=responses.n_respondents,
        n_items=kept.size,
    )
    return trimmed, kept, int(all_right.sum()), int(all_wrong.sum())


def poisson_binomial_p(probabilities: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Per row of `probabilities` (items × draws, NaN where a draw is absent), the exact two-sided
    p-value of `seen` successes: the total probability of the outcomes no likelier than it."""
    n_rows, n_draws = probabilities.shape
    pmf = np.zeros((n_rows, n_draws + 1))
    pmf[:, 0] = 1.0
    for draw in range(n_draws):
        p = probabilities[:, draw]
        present = ~np.isnan(p)
        q = np.where(present, p, 0.0)[:, None]
        shifted = np.zeros_like(pmf)
        shifted[:, 1:] = pmf[:, :-1]
        pmf = np.where(present[:, None], pmf * (1.0 - q) + shifted * q, pmf)
    at_seen = pmf[np.arange(n_rows), seen]
    # scipy's binomtest compares with a relative tolerance too, so equal outcomes count as equal
    return np.minimum(1.0, np.where(pmf <= at_seen[:, None] * (1 + 1e-7), pmf, 0.0).sum(axis=1))


def _significant(values: np.ndarray, digits: int = 12) -> np.ndarray:
    """`values` rounded to `digits` significant digits."""
    return np.array([float(f"{value:.{digits - 1}e}") for value in values.tolist()])


def _divergent(
    responses: Responses, result: IrtFit, people: int, item_names: Sequence[str]
) -> tuple[int, int, list[DivergentItem]]:
    """How many items were tested and found divergent, and the most divergent ones."""
    from_model = responses.respondent >= people
    if not from_model.any():
        return 0, 0, []
    n_models = responses.n_respondents - people
    item, respondent = responses.item[from_model], responses.respondent[from_model] - people
    probability = result.probabilities(responses.respondent[from_model], item)
    table = np.full((responses.n_items, n_models), np.nan)
    table[item, respondent] = probability
    tested = np.flatnonzero(np.bincount(item, minlength=responses.n_items) > 0)
    # a fractional score (variants' mean) counts as its nearest whole number of right answers
    seen = np.rint(np.bincount(item, responses.score[from_model], minlength=responses.n_items)).astype(np.int64)
    expected = np.nansum(table, axis=1)
    variance = np.nansum(table * (1.0 - table), axis=1)
    # items with the same answers tie: their p and z differ in the last bits only, by the fit's
    # rounding, so they are compared (and listed) to 12 significant digits and keep the items'
    # order among them
    p = _significant(poisson_binomial_p(table[tested], seen[tested]))
    adjusted = benjamini_hochberg(p)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (seen[tested] - expected[tested]) / np.sqrt(variance[tested])
    z = np.where(np.isfinite(z), z, 0.0)
    from_people = ~from_model
    human_rate = np.bincount(
        responses.item[from_people], responses.score[from_people], minlength=responses.n_items
    ) / np.maximum(1, np.bincount(responses.item[from_people], minlength=responses.n_items))
    model_rate = np.bincount(item, responses.score[from_model], minlength=responses.n_items) / np.maximum(
        1, np.bincount(item, minlength=responses.n_items)
    )
    order = np.lexsort((-_significant(np.abs(z)), p))[:DIVERGENT_LIMIT]
    listed = [
        DivergentItem(
            item=item_names[tested[k]],
            human_rate=float(human_rate[tested[k]]),
            model_rate=float(model_rate[tested[k]]),
            statistic=float(z[k]),
            p=float(p[k]),
            p_adjusted=float(adjusted[k]),
            significant=bool(adjusted[k] < FDR),
        )
        for k in order.tolist()
    ]
    return int(tested.size), int((adjusted < FDR).sum()), listed


def calibration(people: int) -> tuple[bool, str]:
    """Whether the ability CIs hold their level at this layout, as measured by simulation
    (perf/calibration/irt.py; docs/results.md, "Calibration"), and why not in words."""
    if people < CALIBRATED_MIN_PEOPLE:
        return False, (
            f"with {people} people the people population's mean and SD rest on too few people; below "
            f"{CALIBRATED_MIN_PEOPLE} people the ability CI's coverage was not measured within 93.5–96.5% "
            "(at 5 people × 20 items it covered 94–99%, wider than its level, and the ability of a model far "
            "above the people came out biased)"
        )
    return True, ""


def joint_placement(
    humans: RatingTable,
    models: Mapping[str, Mapping[str, float]],
    *,
    model: IrtModel | None = None,
    confidence: float = 0.95,
) -> Placement | None:
    """The items fitted to the people of `humans` (their scored answers) by MML, then each person
    and each of `models` (name → item → score in [0, 1]) placed on the people population's scale;
    `model` None chooses the 1PL or 2PL (`irt.choose_model`). None without two people or an item
    some got right and some wrong."""
    from parity.stats.irt import choose_model, fit, intervals, percentile_among, separation_reliability

    responses, people, names, item_names = responses_of(humans, models)
    trimmed, kept, all_right, all_wrong = _drop_uninformative(responses)
    n_people = len(people)
    if n_people < 2 or trimmed.n_items == 0:
        return None
    chosen = model or choose_model(trimmed, n_people)
    result = fit(trimmed, model=chosen, people=n_people)
    low, high = intervals(result, confidence, np.arange(n_people, trimmed.n_respondents))
    person_ability = result.ability[:n_people]
    model_ability = result.ability[n_people:]
    percentile = percentile_among(model_ability, person_ability)
    n_items_of = np.bincount(trimmed.respondent, minlength=trimmed.n_respondents)
    calibrated, note = calibration(n_people)
    kept_names = [item_names[k] for k in kept.tolist()]
    tested, significant, divergent = _divergent(trimmed, result, n_people, kept_names)

    def share(theta: float) -> float:
        return 100.0 * normal_cdf(theta)

    return Placement(
        model=chosen,
        people=n_people,
        items_used=trimmed.n_items,
        items_dropped_all_right=all_right,
        items_dropped_all_wrong=all_wrong,
        person_reliability=separation_reliability(person_ability, result.ability_se[:n_people]),
        item_reliability=separation_reliability(result.difficulty, result.difficulty_se),
        converged=result.converged,
        confidence=confidence,
        calibrated=calibrated,
        calibration_note=note,
        scale_logits=result.scale_logits,
        models=[
            ModelPlacement(
                name=name,
                ability=float(model_ability[k]),
                ci=[float(low[k]), float(high[k])],
                se=float(result.ability_se_total[n_people + k]),
                se_answers=float(result.ability_se[n_people + k]),
                percentile=float(percentile[k]),
                population_percentile=share(float(model_ability[k])),
                population_percentile_ci=[share(float(low[k])), share(float(high[k]))],
                n_items=int(n_items_of[n_people + k]),
                ci_note=FAR_NOTE if reaches_far(float(low[k]), float(high[k])) else "",
            )
            for k, name in enumerate(names)
        ],
        people_abilities=[float(value) for value in person_ability],
        items=[
            ItemParameters(
                item=kept_names[j],
                difficulty=float(result.difficulty[j]),
                difficulty_se=float(result.difficulty_se[j]),
                discrimination=None if result.discrimination is None else float(result.discrimination[j]),
            )
            for j in range(trimmed.n_items)
        ],
        n_items_tested=tested,
        n_divergent=significant,
        divergent_items=divergent,
    )
