"""The joint IRT fit: parameter recovery on simulated people and models, and its edges."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import special, stats

from parity.stats import Rating
from parity.stats.irt import Responses, fit, percentile_among, separation_reliability
from parity.stats.placement import FAR_NOTE, joint_placement, poisson_binomial_p
from parity.stats.table import rating_table

PEOPLE, MODELS, ITEMS = 50, 5, 200


def _simulate(seed: int, *, two_pl: bool) -> tuple[Responses, np.ndarray, np.ndarray]:
    """50 people and 5 models (abilities N(0, 1)) answering all 200 items (difficulties N(0, 1),
    discriminations log-normal around 1 in the 2PL)."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(0.0, 1.0, PEOPLE + MODELS)
    difficulty = rng.normal(0.0, 1.0, ITEMS)
    discrimination = np.exp(rng.normal(0.0, 0.3, ITEMS)) if two_pl else np.ones(ITEMS)
    respondent = np.repeat(np.arange(PEOPLE + MODELS), ITEMS)
    item = np.tile(np.arange(ITEMS), PEOPLE + MODELS)
    chance = special.expit(discrimination[item] * (ability[respondent] - difficulty[item]))
    score = (rng.random(respondent.size) < chance).astype(np.float64)
    return Responses(respondent, item, score, PEOPLE + MODELS, ITEMS), ability, difficulty


SEEDS = range(1, 6)


@pytest.mark.parametrize("model", ["1pl", "2pl"])
def test_abilities_and_model_percentiles_are_recovered(model: str) -> None:
    errors, covered = [], 0
    for seed in SEEDS:
        responses, truth, _ = _simulate(seed, two_pl=model == "2pl")
        result = fit(responses, model=model)  # type: ignore[arg-type]
        assert result.converged
        assert np.corrcoef(result.ability, truth)[0, 1] >= 0.95
        estimated = percentile_among(result.ability[PEOPLE:], result.ability[:PEOPLE])
        true = percentile_among(truth[PEOPLE:], truth[:PEOPLE])
        errors.append(np.abs(estimated - true))
        # the span of percentiles a model's 95% ability CI covers holds its true percentile (one
        # person's width, 2 points, of slack for the people's own estimation error)
        low, high = (
            percentile_among(
                result.ability[PEOPLE:] + sign * 1.96 * result.ability_se[PEOPLE:], result.ability[:PEOPLE]
            )
            for sign in (-1, 1)
        )
        covered += int(np.sum((low - 2.0 <= true) & (true <= high + 2.0)))
        if model == "2pl":
            assert result.discrimination is not None and result.discrimination.min() > 0
    # over 25 models: with 200 items an ability is known to about ±0.17, which is 3–4 people's
    # width among 50 near the centre, so a percentile cannot be pinned closer than a few points
    assert np.mean(errors) <= 5.0, np.round(errors, 1)
    # for 23 of the 25 models at least (95% CIs: about one miss in 20 is expected)
    assert covered >= 23, covered


def test_difficulties_are_recovered_and_the_fit_is_reliable() -> None:
    responses, _, difficulty = _simulate(7, two_pl=False)
    result = fit(responses, model="1pl")
    assert np.corrcoef(result.difficulty, difficulty)[0, 1] >= 0.9
    reliability = separation_reliability(result.ability[:PEOPLE], result.ability_se[:PEOPLE])
    # 200 items and people spread N(0, 1): a person's SE is about 0.17, the reliability near 0.97
    assert reliability is not None and 0.9 <= reliability <= 1.0


def test_a_perfect_score_gets_a_finite_ability_above_everyone() -> None:
    responses, _, _ = _simulate(4, two_pl=False)
    perfect = responses.respondent == PEOPLE  # the first model answers everything right
    score = np.where(perfect, 1.0, responses.score)
    result = fit(Responses(responses.respondent, responses.item, score, responses.n_respondents, ITEMS), model="1pl")
    assert np.isfinite(result.ability).all()
    assert result.ability[PEOPLE] == result.ability.max()
    assert percentile_among(result.ability[PEOPLE : PEOPLE + 1], result.ability[:PEOPLE])[0] == 100.0


def test_the_percentile_counts_ties_half() -> None:
    assert percentile_among(np.array([2.0, 0.0, 9.0]), np.array([1.0, 2.0, 3.0, 4.0])).tolist() == [37.5, 0.0, 100.0]


def test_the_placement_drops_items_all_right_or_all_wrong_and_counts_them() -> None:
    rng = np.random.default_rng(0)
    ratings = []
    for person in range(12):
        for item in range(30):
            right = True if item == 0 else False if item == 1 else bool(rng.random() < 0.2 + person / 20)
            ratings.append(Rating(f"P{person}", f"i{item}", "x", right))
    model = {f"i{item}": float(item != 1 and item % 3 != 2) for item in range(30)}
    placement = joint_placement(rating_table(ratings), {"m": model}, model="1pl")
    assert placement is not None
    assert (placement.items_dropped_all_right, placement.items_dropped_all_wrong) == (1, 1)
    assert placement.items_used == 28 and placement.people == 12 and len(placement.people_abilities) == 12
    assert {item.item for item in placement.items}.isdisjoint({"i0", "i1"})
    (entry,) = placement.models
    assert entry.ci[0] < entry.ability < entry.ci[1] and 0.0 <= entry.percentile <= 100.0
    assert placement.n_items_tested == 28
    adjusted = [item.p_adjusted for item in placement.divergent_items]
    assert all(item.p <= item.p_adjusted <= 1.0 for item in placement.divergent_items)
    assert adjusted == sorted(adjusted)
    json.dumps(placement.to_dict(), allow_nan=False)


def test_without_two_people_there_is_no_placement() -> None:
    ratings = [Rating("P", f"i{n}", "x", n % 2 == 0) for n in range(10)]
    assert joint_placement(rating_table(ratings), {"m": {"i0": 1.0}}) is None


def test_a_model_wrong_on_items_easy_for_everyone_is_flagged_divergent() -> None:
    """Items 0–9 are easy for people; the model (strong elsewhere) gets them wrong."""
    rng = np.random.default_rng(3)
    ratings = []
    ability = rng.normal(0, 1, 80)
    difficulty = np.concatenate([np.full(10, -3.0), rng.normal(0, 1, 90)])
    for person in range(80):
        right = rng.random(100) < special.expit(ability[person] - difficulty)
        ratings += [Rating(f"P{person}", f"i{j}", "x", bool(right[j])) for j in range(100)]
    models = {
        name: {f"i{j}": float(j >= 10 and rng.random() < special.expit(1.0 - difficulty[j])) for j in range(100)}
        for name in ("m1", "m2", "m3")
    }
    placement = joint_placement(rating_table(ratings), models, model="1pl")
    assert placement is not None
    flagged = {item.item for item in placement.divergent_items if item.significant}
    assert flagged and flagged <= {f"i{j}" for j in range(10)}
    first = placement.divergent_items[0]
    assert first.model_rate == 0.0 and first.human_rate > 0.85 and first.statistic < 0


def test_the_poisson_binomial_p_value_is_the_exact_binomial_one_with_equal_chances() -> None:
    chances = np.full((3, 6), 0.3)
    seen = np.array([0, 2, 5])
    expected = [stats.binomtest(int(k), 6, 0.3).pvalue for k in seen]
    assert poisson_binomial_p(chances, seen) == pytest.approx(expected, rel=1e-9)


def _crossed(
    seed: int, people: int, items: int, *, units: int = 1, easy: float = 0.0
) -> tuple[Responses, np.ndarray, np.ndarray]:
    """`units` groups of `people` people answering their own `items` items (1PL, abilities N(0, 1),
    difficulties N(−easy, 1)), as long-form responses; the people's true abilities; the items'."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(0.0, 1.0, units * people)
    difficulty = rng.normal(-easy, 1.0, units * items)
    respondent, item = [], []
    for unit in range(units):
        r, j = np.meshgrid(np.arange(people) + unit * people, np.arange(items) + unit * items, indexing="ij")
        respondent.append(r.ravel())
        item.append(j.ravel())
    r, j = np.concatenate(respondent), np.concatenate(item)
    score = (rng.random(r.size) < special.expit(ability[r] - difficulty[j])).astype(np.float64)
    return Responses(r, j, score, units * people, units * items), ability, difficulty


def test_the_conditional_fit_equals_statsmodels_conditional_logit() -> None:
    """The 1PL's abilities are a conditional logistic regression with the items as strata: the
    differences between respondents equal statsmodels' `ConditionalLogit` (our ridge, 1/25 per
    ability, moves them by far less than their SEs)."""
    from statsmodels.discrete.conditional_models import ConditionalLogit

    from parity.stats.irt.conditional import fit_conditional

    responses, _, _ = _crossed(11, 8, 120)
    result = fit_conditional(responses.respondent, responses.item, responses.score, 8, 120)
    dummies = np.zeros((responses.respondent.size, 7))
    rows = responses.respondent > 0
    dummies[rows, responses.respondent[rows] - 1] = 1.0
    with pytest.warns(Warning):  # statsmodels drops the items all got right or all wrong, and says so
        reference = ConditionalLogit(responses.score, dummies, groups=responses.item).fit(disp=0)
    difference = result.ability[1:] - result.ability[0]
    assert difference == pytest.approx(reference.params, abs=0.02)
    contrast = np.hstack([-np.ones((7, 1)), np.eye(7)])
    se = np.sqrt(np.diag(contrast @ result.covariance @ contrast.T))
    assert se == pytest.approx(reference.bse, rel=0.02)


def test_the_origin_is_the_peoples_mean_and_the_unit_their_sd() -> None:
    """Items easy for everyone (the implicature study's case) leave 0 at the average person: the
    people's abilities have mean 0 and, less their measurement error, SD 1; a model is placed
    against them, not shrunk towards them."""
    responses, truth, difficulty = _crossed(5, 5, 150, units=4, easy=1.5)
    rng = np.random.default_rng(5)
    ratings = [
        Rating(f"P{r}", f"i{j}", "x", bool(y))
        for r, j, y in zip(
            responses.respondent.tolist(), responses.item.tolist(), responses.score.tolist(), strict=True
        )
    ]
    model = {f"i{j}": float(rng.random() < special.expit(2.0 - difficulty[j])) for j in range(600)}
    placement = joint_placement(rating_table(ratings), {"m": model}, model="1pl")
    assert placement is not None and placement.calibrated and placement.calibration_note == ""
    people = np.asarray(placement.people_abilities)
    assert abs(people.mean()) < 1e-9
    assert 1.0 <= people.std(ddof=1) <= 1.15
    # the four units' people are linked through the model's answers, so each unit carries its
    # link's error (the model's ability from 150 items)
    assert np.corrcoef(people, truth)[0, 1] > 0.85
    assert placement.scale_logits is not None and 0.5 < placement.scale_logits < 2.0
    (entry,) = placement.models
    assert entry.ci[0] < entry.ability < entry.ci[1] and entry.se > entry.se_answers
    assert entry.population_percentile_ci[0] < entry.population_percentile < entry.population_percentile_ci[1]


def test_a_placement_on_five_people_says_it_is_not_calibrated() -> None:
    responses, _, _ = _crossed(2, 5, 20)
    ratings = [
        Rating(f"P{r}", f"i{j}", "x", bool(y))
        for r, j, y in zip(
            responses.respondent.tolist(), responses.item.tolist(), responses.score.tolist(), strict=True
        )
    ]
    placement = joint_placement(rating_table(ratings), {"m": {f"i{j}": float(j % 2) for j in range(20)}})
    assert placement is not None and not placement.calibrated
    assert "5 people" in placement.calibration_note


@pytest.mark.parametrize("layout, at_least", [("implicature", 90), ("easy", 85)])
def test_the_ability_cis_cover_and_the_origin_is_the_average_person(layout: str, at_least: int) -> None:
    """A fast run of the calibration (perf/calibration/irt.py): 25 simulated studies of 4 units ×
    5 people × 150 items (the implicature study's layout; then with items skewed easy), four
    models of known ability in each, placed by `joint_placement` as the results page does. Of the
    100 95% CIs ~5 miss. The joint MAP fit these replace covered 86 and 0 of them at this seed:
    on easy items its origin sat 1.1 SD above the average person."""
    from perf.calibration.irt import rows
    from perf.calibration.truth import LAYOUTS

    table = rows(LAYOUTS[layout], reps=25, seed=3)
    coverage = [row for row in table if row.kind == "coverage" and "variants" not in row.figure]
    (variants,) = [row for row in table if "variants" in row.figure]
    assert variants.reps == 25 and variants.hits >= 21, variants
    assert sum(row.reps for row in coverage) == 100
    hits = [(row.figure, row.hits) for row in coverage]
    assert sum(row.hits for row in coverage) >= at_least, hits
    assert all(row.hits >= 18 for row in coverage), hits
    (origin,) = [row for row in table if row.figure.startswith("people's mean ability")]
    mean_error = float(origin.extra.split()[2])
    assert abs(mean_error) < 0.2, origin.extra


def test_a_model_whose_ci_reaches_far_from_the_people_carries_a_note_on_it() -> None:
    """Far from the people the ability CI covered 87–95% (perf/calibration): a model whose CI reaches
    past 1.5 people-SDs says so, whatever its estimate (a model with an estimate of 1.0 and a CI up
    to 1.5 had no note, when the note was the estimate's); one whose CI stays near says nothing."""
    rng = np.random.default_rng(4)
    people, items = 30, 120
    ability = rng.normal(0.0, 1.0, people)
    difficulty = rng.normal(0.0, 1.0, items)
    ratings = [
        Rating(f"P{p}", f"i{j}", "x", bool(rng.random() < special.expit(ability[p] - difficulty[j])), "u")
        for p in range(people)
        for j in range(items)
    ]
    models = {
        name: {f"i{j}": float(rng.random() < special.expit(theta - difficulty[j])) for j in range(items)}
        for name, theta in (("near", 0.0), ("edge", 0.8), ("far", 3.5))
    }
    placement = joint_placement(rating_table(ratings), models)
    by_name = {m.name: m for m in placement.models}
    assert by_name["far"].ability > 1.5 and by_name["far"].ci_note == FAR_NOTE
    edge = by_name["edge"]
    assert edge.ability < 1.5 < edge.ci[1] and edge.ci_note == FAR_NOTE
    near = by_name["near"]
    assert -1.5 < near.ci[0] and near.ci[1] < 1.5 and near.ci_note == ""
