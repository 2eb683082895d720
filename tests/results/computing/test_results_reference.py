"""The results of the published implicature study (Ruis et al.'s human evaluation, imported) with two
model runs beside it, computed twice: by the app, which reads the answers as columns and computes
every annotator pair at once, and by the reference below, the computation the app did before, kept
here and nowhere else: one `Rating` object per answer, scikit-learn's `cohen_kappa_score` for each
annotator pair, dictionaries per item and per annotator, every bootstrap's int64 indices drawn at
once. Every number the reference computes must be the app's to 1e-12."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter, defaultdict
from typing import Any

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

from parity.stats import Rating
from results.computing.assemble import N_BOOT, SEED, study_results_tree
from results.computing.rows import model_item_scores, model_ratings
from results.loading.selectors import load_study_data
from results.loading.study_data import StudyData
from studies.models import Study
from tests.parity.stats.dictionary_reference import item_counts, pair_agreement
from tests.results.conftest import FLIP, model_run

pytestmark = pytest.mark.django_db
TOLERANCE = 1e-12


# -- the reference ---------------------------------------------------------------------------------


def finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def mean_std(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    data = np.asarray(values, dtype=float)
    return float(data.mean()), float(data.std()) if data.size > 1 else None


def kappa(a: list[str], b: list[str]) -> float | None:
    if not a or len(set(a) | set(b)) < 2:
        return None
    return finite(cohen_kappa_score(a, b))


def by_annotator(ratings: list[Rating]) -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = defaultdict(dict)
    for r in ratings:
        if r.answer is not None:
            table[r.annotator][r.item] = r.answer
    return dict(table)


def mean_pairwise_kappa(ratings: list[Rating]) -> float | None:
    table = by_annotator(ratings)
    kappas = []
    for first, second in itertools.combinations(table, 2):
        shared = [item for item in table[first] if item in table[second]]
        if shared:
            kappas.append(kappa([table[first][i] for i in shared], [table[second][i] for i in shared]))
    return mean_std([k for k in kappas if k is not None])[0]


def percent_agreement(ratings: list[Rating]) -> float | None:
    return mean_std([pair_agreement(c) for c in item_counts(ratings)])[0]


def fleiss(ratings: list[Rating]) -> float | None:
    items = item_counts(ratings)
    if not items:
        return None
    p_bar = float(np.mean([pair_agreement(c) for c in items]))
    totals: Counter[str] = Counter()
    for counts in items:
        totals.update(counts)
    p_e = sum((n / totals.total()) ** 2 for n in totals.values())
    return None if np.isclose(p_e, 1.0) else (p_bar - p_e) / (1.0 - p_e)


def alpha(ratings: list[Rating]) -> float | None:
    table = by_annotator(ratings)
    items = sorted({item for answers in table.values() for item in answers})
    if len(table) < 2 or not items:
        return None
    column = {item: i for i, item in enumerate(items)}
    codes = {a: float(i) for i, a in enumerate(sorted({a for answers in table.values() for a in answers.values()}))}
    data = np.full((len(table), len(items)), np.nan)
    for row, answers in enumerate(table.values()):
        for item, answer in answers.items():
            data[row, column[item]] = codes[answer]
    try:
        return finite(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    except ValueError:
        return None


def ci(values: list[float]) -> list[float] | None:
    if len(values) < 2:
        return None
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(SEED)
    means = data[rng.integers(0, data.size, size=(N_BOOT, data.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return [float(low), float(high)]


def t_ci(values: list[float]) -> list[float] | None:
    """The humans' CI: Student's t over annotators, cut to [0, 1] (the results' rule for few people)."""
    if len(values) < 2:
        return None
    data = np.asarray(values, dtype=float)
    half = float(scipy_stats.t.ppf(0.975, data.size - 1)) * float(data.std(ddof=1)) / math.sqrt(data.size)
    return [max(0.0, float(data.mean()) - half), min(1.0, float(data.mean()) + half)]


def accuracy(ratings: list[Rating]) -> dict[str, Any]:
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for r in ratings:
        listed = outcomes.setdefault(r.annotator, [])  # annotators in first-seen order, scored or not
        if r.correct is not None:
            listed.append(r.correct)
    values = [sum(o) / len(o) for o in outcomes.values() if o]
    mean, std = mean_std(values)
    return {
        "n": len(values),
        "mean": mean,
        "best": max(values, default=None),
        "worst": min(values, default=None),
        "std": std,
        "ci95": t_ci(values),
        "per_annotator": [(name, len(o), sum(o) / len(o) if o else None) for name, o in outcomes.items()],
    }


def majority(ratings: list[Rating]) -> dict[str, tuple[str | None, float | None]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for r in ratings:
        if r.answer is not None:
            counts[r.item][r.answer] += 1
    out = {}
    for item, answers in counts.items():
        ranked = answers.most_common()
        tied = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
        out[item] = (None, None) if tied else (ranked[0][0], ranked[0][1] / answers.total())
    return out


def crossed_ci(scores: dict[str, float], ratings: list[Rating]) -> list[float] | None:
    """The gap's CI over people and items (variance components of the people × items design,
    Satterthwaite t), one answer and one person at a time."""
    answers: dict[str, list[tuple[str, float]]] = defaultdict(list)
    unit_of: dict[str, str | None] = {}
    for r in ratings:
        if r.correct is not None and r.item in scores:
            answers[r.item].append((r.annotator, float(r.correct)))
            unit_of.setdefault(r.item, r.unit)
            unit_of.setdefault("person:" + r.annotator, r.unit)
    items = list(answers)
    n = len(items)
    share = {item: float(np.mean([y for _, y in answers[item]])) for item in items}
    d = {item: scores[item] - share[item] for item in items}
    by_unit: dict[str | None, list[str]] = defaultdict(list)
    for item in items:
        by_unit[unit_of[item]].append(item)
    ms_t = sum((d[i] - np.mean([d[j] for j in group])) ** 2 for group in by_unit.values() for i in group) / (
        n - len(by_unit)
    )
    residuals: dict[str, list[float]] = defaultdict(list)
    weight: dict[str, float] = defaultdict(float)
    for item in items:
        for person, y in answers[item]:
            residuals[person].append(y - share[item])
            weight[person] += 1.0 / (n * len(answers[item]))
    people_of: Counter = Counter(unit_of["person:" + person] for person in residuals)
    rows = sum(len(values) for values in residuals.values())
    df_a = len(residuals) - len(people_of)
    df_e = rows - len(residuals) - n + len(by_unit)
    mean_of = {person: float(np.mean(values)) for person, values in residuals.items()}
    ms_e = sum((value - mean_of[p]) ** 2 for p, values in residuals.items() for value in values) / df_e
    ms_a = sum(value**2 for value in mean_of.values()) / df_a
    per_df = (
        sum(
            (people_of[unit_of["person:" + p]] - 1) / people_of[unit_of["person:" + p]] / len(residuals[p])
            for p in residuals
        )
        / df_a
    )
    c_a = sum(w**2 for w in weight.values())
    sigma_a = ms_a - per_df * ms_e
    terms = [(ms_t / n, n - len(by_unit))]
    if sigma_a > 0:
        terms += [(c_a * ms_a, df_a), (c_a * per_df * ms_e, df_e)]
    variance = ms_t / n + max(0.0, sigma_a) * c_a
    df = variance**2 / sum(term**2 / dof for term, dof in terms)
    half = scipy_stats.t.ppf(0.975, df) * math.sqrt(variance)
    gap = float(np.mean(list(d.values())))
    return [max(-1.0, gap - half), min(1.0, gap + half)]


def reference(data: StudyData) -> dict[str, Any]:
    """The numbers of the results JSON, computed as the app computed them before."""
    humans = [h for h in data.humans if h.in_results and not h.is_attention_check]
    ratings = [
        Rating(h.annotator, h.item_key, data.label(h.answer), h.correct if h.gold else None, h.unit) for h in humans
    ]
    units: dict[str, list[Rating]] = defaultdict(list)
    for r in ratings:
        units[r.unit].append(r)
    overall = accuracy(ratings)
    unit_kappas = [mean_pairwise_kappa(rows) for rows in units.values()]
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for r in ratings:
        if r.correct is not None:
            outcomes[r.item].append(r.correct)
    verdicts = majority(ratings)
    models = []
    for run in data.runs:
        rows = data.answers_by_run[run.id]
        scores = model_item_scores(data, rows)
        shared = [item for item in scores if outcomes.get(item)]
        differences = [scores[item] - float(np.mean(outcomes[item])) for item in shared]
        mine, theirs = [], []
        for rating in model_ratings(data, run, rows):
            answer, share = verdicts.get(rating.item, (None, None))
            if rating.answer is not None and answer is not None:
                mine.append(rating.answer)
                theirs.append(answer)
        models.append(
            {
                "accuracy": mean_std(list(scores.values()))[0],
                "accuracy_ci95": ci(list(scores.values())),
                "n_items_same": len(shared),
                "accuracy_same_items": mean_std([scores[item] for item in shared])[0],
                "human_accuracy_same_items": mean_std([float(np.mean(outcomes[item])) for item in shared])[0],
                "gap_to_humans": mean_std(differences)[0],
                "gap_ci95": crossed_ci(scores, ratings),
                "kappa_vs_human_majority": kappa(mine, theirs),
                "n_items_with_majority": len(mine),
            }
        )
    return {
        "human": {
            "n_annotators": overall["n"],
            "n_answers": len(ratings),
            "accuracy": {key: overall[key] for key in ("mean", "best", "worst", "std", "ci95")},
            "per_annotator": overall["per_annotator"],
            "cohen_kappa_mean_pairwise": mean_std([k for k in unit_kappas if k is not None])[0],
            "cohen_kappa_std_across_units": mean_std([k for k in unit_kappas if k is not None])[1],
            "fleiss_kappa": fleiss(ratings),
            "krippendorff_alpha": alpha(ratings),
            "percent_agreement": percent_agreement(ratings),
        },
        "units": [
            {
                "unit": unit,
                "accuracy": {key: accuracy(rows)[key] for key in ("mean", "best", "worst", "std", "ci95")},
                "cohen_kappa_mean_pairwise": mean_pairwise_kappa(rows),
                "fleiss_kappa": fleiss(rows),
                "krippendorff_alpha": alpha(rows),
                "percent_agreement": percent_agreement(rows),
            }
            for unit, rows in units.items()
        ],
        "models": models,
    }


def the_apps(results: dict[str, Any]) -> dict[str, Any]:
    """The same numbers, read from the app's results JSON."""
    human = results["human"]
    return {
        "human": {
            "n_annotators": human["n_annotators"],
            "n_answers": human["n_answers"],
            "accuracy": {key: human["accuracy"][key] for key in ("mean", "best", "worst", "std")}
            | {"ci95": human["accuracy"]["ci95"]},
            "per_annotator": [(p["annotator"], p["n"], p["accuracy"]) for p in human["accuracy"]["per_annotator"]],
            **{
                key: human[key]
                for key in (
                    "cohen_kappa_mean_pairwise",
                    "cohen_kappa_std_across_units",
                    "fleiss_kappa",
                    "krippendorff_alpha",
                    "percent_agreement",
                )
            },
        },
        "units": [
            {
                "unit": unit["unit"],
                "accuracy": {key: unit[f"accuracy_{key}"] for key in ("mean", "best", "worst", "std", "ci95")},
                **{
                    key: unit[key]
                    for key in ("cohen_kappa_mean_pairwise", "fleiss_kappa", "krippendorff_alpha", "percent_agreement")
                },
            }
            for unit in results["units"]
        ],
        "models": [
            {
                key: model[key]
                for key in (
                    "accuracy",
                    "accuracy_ci95",
                    "n_items_same",
                    "accuracy_same_items",
                    "human_accuracy_same_items",
                    "gap_to_humans",
                    "gap_ci95",
                    "kappa_vs_human_majority",
                    "n_items_with_majority",
                )
            }
            for model in results["models"]
        ],
    }


def assert_close(ours: Any, theirs: Any, where: str = "") -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), where
        for key in theirs:
            assert_close(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(theirs, list | tuple):
        assert isinstance(ours, list | tuple) and len(ours) == len(theirs), where
        for index, (mine, reference) in enumerate(zip(ours, theirs)):
            assert_close(mine, reference, f"{where}[{index}]")
    elif isinstance(theirs, float) and not isinstance(ours, bool):
        assert ours is not None and abs(ours - theirs) <= TOLERANCE, f"{where}: {ours} != {theirs}"
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


# -- the test --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def published(baseline) -> Study:
    """The imported study, with two runs: one right but on every seventh item, one guessing."""
    from annotation.models import Item

    study = Study.objects.get(pk=baseline.study_id)
    golds = dict(Item.objects.filter(unititem__unit__study=study).values_list("key", "gold"))
    rng = random.Random(0)
    setting = {"variant": "ranking", "k": 0, "seed": 0}
    model_run(
        study,
        "tiny-lm",
        {**setting, "template": 1},
        {k: FLIP[g] if n % 7 == 0 else g for n, (k, g) in enumerate(golds.items())},
    )
    model_run(study, "tiny-lm", {**setting, "template": 2}, {k: rng.choice(["yes", "no"]) for k in golds})
    return study


def test_the_published_study_has_the_numbers_of_the_per_pair_computation(published: Study) -> None:
    data = load_study_data(published)
    results = study_results_tree(data).to_json()
    assert results["human"]["n_answers"] == 3000 and len(results["models"]) == 2
    assert_close(the_apps(results), reference(data))


def test_every_filter_of_the_published_study_reads_the_same_rows(published: Study) -> None:
    """A unit's results are the unit's row of the whole study's results."""
    from results.loading.filters import ResultFilters

    data = load_study_data(published)
    whole = study_results_tree(data, n_boot=200).to_json()
    for unit in whole["units"]:
        alone = study_results_tree(data, ResultFilters(unit=unit["unit"]), n_boot=200).to_json()
        assert alone["units"] == [unit]
        assert alone["human"]["cohen_kappa_mean_pairwise"] == unit["cohen_kappa_mean_pairwise"]
