"""The human band: a model's kappa with each person against the people's kappas with each other."""

from __future__ import annotations

import numpy as np
import pytest

from parity.stats import Rating, cohen_kappa, label_matrix
from parity.stats.band import kappas_with_each, model_in_band, people_band


def _ratings(seed: int) -> list[Rating]:
    """Two units of 6 people on 40 items each; people agree with a gold answer 85% of the time,
    some leave an item out."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(["yes", "no"], 80)
    rows = []
    for person in range(12):
        unit = person % 2
        for item in range(unit * 40, unit * 40 + 40):
            if rng.random() < 0.05:
                continue
            answer = gold[item] if rng.random() < 0.85 else ("no" if gold[item] == "yes" else "yes")
            rows.append(Rating(f"P{person}", f"i{item}", answer, None, f"u{unit}"))
    return rows


def test_the_kappa_with_each_person_is_cohens_kappa_on_the_shared_items() -> None:
    ratings = _ratings(0)
    matrix = label_matrix(ratings)
    rng = np.random.default_rng(1)
    model = {f"i{j}": str(rng.choice(["yes", "no", "maybe"], p=[0.5, 0.45, 0.05])) for j in range(80) if j % 7}
    kappas = kappas_with_each(matrix, model)
    for index, person in enumerate(matrix.annotators):
        theirs = {r.item: r.answer for r in ratings if r.annotator == person}
        shared = [item for item in theirs if item in model]
        expected = cohen_kappa([theirs[i] for i in shared], [model[i] for i in shared])
        assert kappas[index] == pytest.approx(expected, rel=1e-12)


def test_a_kappa_with_no_variation_is_undefined() -> None:
    matrix = label_matrix([Rating("P", "a", "yes"), Rating("P", "b", "yes"), Rating("Q", "c", "no")])
    kappas = kappas_with_each(matrix, {"a": "yes", "b": "yes", "c": "yes"})
    # P and the model said "yes" throughout: 0/0; Q shares one item, two labels: κ = 0 (chance)
    assert np.isnan(kappas[0]) and kappas[1] == pytest.approx(0.0)


def test_the_band_is_the_spread_of_each_persons_mean_kappa() -> None:
    ratings = _ratings(2)
    matrix = label_matrix(ratings)
    band = people_band(matrix)
    assert band is not None
    # 6 people per unit: 15 pairs in each of the two units (people of different units share no item)
    assert band.n_pairs == 30 and band.n_people == 12
    means = []
    for person in matrix.annotators:
        theirs = {r.item: r.answer for r in ratings if r.annotator == person}
        values = []
        for other in matrix.annotators:
            answers = {r.item: r.answer for r in ratings if r.annotator == other}
            shared = [i for i in theirs if i in answers]
            if other != person and shared:
                values.append(cohen_kappa([theirs[i] for i in shared], [answers[i] for i in shared]))
        means.append(np.mean(values))
    assert band.median == pytest.approx(np.median(means))
    assert (band.low, band.high) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])))


def test_a_model_that_answers_like_a_person_is_within_and_one_that_guesses_is_below() -> None:
    ratings = _ratings(3)
    matrix = label_matrix(ratings)
    band = people_band(matrix)
    assert band is not None
    rng = np.random.default_rng(4)
    gold = {r.item: r.answer for r in ratings if r.annotator in ("P0", "P1")}  # close to the gold answers
    person_like = {item: answer if rng.random() < 0.87 else "no" for item, answer in gold.items()}
    guesser = {item: str(rng.choice(["yes", "no"])) for item in gold}
    within = model_in_band(matrix, band, person_like)
    below = model_in_band(matrix, band, guesser)
    assert within is not None and within.verdict == "within" and within.n_people == 12
    assert below is not None and below.verdict == "below" and below.model_kappa < band.low
    assert model_in_band(matrix, band, {"nowhere": "yes"}) is None
