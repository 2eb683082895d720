"""The model-likeness rules (`parity.stats.likeness`) against hand-checked figures."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from parity.stats.likeness import (
    MARGIN,
    HumanBand,
    LikenessRule,
    human_band,
    is_model_like,
    model_likeness,
    text_likeness,
)

BAND = HumanBand(n_pairs=10, low=0.4, median=0.6, high=0.8)
RULE = LikenessRule()


def test_the_rule_needs_every_condition():
    def flagged(**changes):
        figures = {"n_items": 20, "kappa_model": 0.9, "kappa_people": 0.9 - MARGIN, "band": BAND, "rule": RULE}
        return is_model_like(**{**figures, **changes})

    assert flagged(), "20 items, above the band's median, the margin exactly over their own kappa"
    assert not flagged(n_items=19), "too few items shared with the model"
    assert not flagged(kappa_people=0.9 - MARGIN + 0.01), "not enough above their agreement with people"
    assert not flagged(kappa_model=0.6, kappa_people=0.3), "not above how well two people typically agree"
    assert flagged(kappa_model=0.61, kappa_people=0.3)
    assert not flagged(band=HumanBand(4, 0.4, 0.6, 0.8)), "a band of four pairs says little"
    assert not flagged(kappa_people=None), "no one to compare the person with"
    assert not flagged(kappa_model=None), "kappa undefined (one label throughout)"


def test_the_band_is_the_percentiles_of_the_defined_kappas():
    band = human_band([0.1, 0.2, 0.3, 0.4, 0.5, float("nan")])
    assert band.n_pairs == 5 and band.median == pytest.approx(0.3)
    assert band.low == pytest.approx(0.1 + 0.05 * 4 * 0.1) and band.high == pytest.approx(0.5 - 0.05 * 4 * 0.1)
    assert human_band([]) == HumanBand(0, None, None, None)


def _people_and_model(seed: int = 3):
    """Six people answering 40 yes/no items with 10% slips; a model whose answers depart from
    people's on half of the items; one more person who copies the model with 10% slips."""
    rng = random.Random(seed)
    items = [f"i{n}" for n in range(40)]
    truth = {item: rng.choice(["yes", "no"]) for item in items}
    flip = {"yes": "no", "no": "yes"}

    def noisy(answers, share=0.1):
        return {item: flip[a] if rng.random() < share else a for item, a in answers.items()}

    people = {f"P{n}": noisy(truth) for n in range(6)}
    model = {item: flip[a] if n % 2 else a for n, (item, a) in enumerate(truth.items())}
    people["copier"] = noisy(model)
    return people, model


def test_figures_are_each_pairs_cohen_kappa_and_only_the_copier_is_flagged():
    people, model = _people_and_model()
    rows = {row.annotator: row for row in model_likeness(people, {"m": model})}
    assert set(rows) == set(people)
    items = sorted(model)
    for name, answers in people.items():
        expected = cohen_kappa_score([answers[i] for i in items], [model[i] for i in items])
        assert rows[name].kappa_model == pytest.approx(expected) and rows[name].n_items == 40
        others = [
            cohen_kappa_score([answers[i] for i in items], [theirs[i] for i in items])
            for other, theirs in people.items()
            if other != name
        ]
        assert rows[name].kappa_people == pytest.approx(np.mean(others)) and rows[name].n_people == 6
    pairs = [
        cohen_kappa_score([people[a][i] for i in items], [people[b][i] for i in items])
        for a, b in itertools.combinations(people, 2)
    ]
    band = rows["P0"].band
    assert band.n_pairs == 21 and band.median == pytest.approx(np.percentile(pairs, 50))
    assert [name for name, row in rows.items() if row.flagged] == ["copier"]
    copier = rows["copier"]
    assert copier.kappa_model > 0.6 and copier.kappa_model - copier.kappa_people > MARGIN
    assert "kappa" in copier.evidence() and "with m over 40 items" in copier.evidence()


def test_pairs_sharing_too_few_items_stay_out_of_the_band_and_the_own_mean():
    people, model = _people_and_model()
    # a newcomer who answered 10 items only: no pair of theirs counts, so nothing to compare them with
    people["late"] = dict(itertools.islice(model.items(), 10))
    rows = {row.annotator: row for row in model_likeness(people, {"m": model})}
    assert rows["late"].n_items == 10 and rows["late"].kappa_people is None and not rows["late"].flagged
    assert rows["P0"].band.n_pairs == 21


def _unit(angle: float) -> list[float]:
    return [float(np.cos(angle)), float(np.sin(angle))]


def test_a_text_closer_to_the_model_than_to_every_person_counts_on_each_item():
    # per item: the model writes at angle 0; A copies it (0.05), B and C write their own (1.0, 1.2)
    items = [f"t{n}" for n in range(5)]
    vectors = {}
    people: dict[str, dict[str, str]] = {"A": {}, "B": {}, "C": {}}
    model = {}
    for item in items:
        for name, angle in (("A", 0.05), ("B", 1.0), ("C", 1.2)):
            text = f"{name} {item}"
            people[name][item] = text
            vectors[text] = _unit(angle)
        model[item] = f"model {item}"
        vectors[model[item]] = _unit(0.0)
    rows = {row.annotator: row for row in text_likeness(people, {"m": model}, vectors)}
    a, b = rows["A"], rows["B"]
    assert a.n_items == 5 and a.n_closest_to_model == 5 and a.share == 1.0 and a.flagged
    assert a.similarity_model == pytest.approx(np.cos(0.05)) and a.similarity_people == pytest.approx(np.cos(0.95))
    assert b.n_closest_to_model == 0 and not b.flagged and b.similarity_people == pytest.approx(np.cos(0.2))
    assert "on 5 of 5 items (100%)" in a.evidence()


def test_too_few_written_items_flag_no_one():
    vectors = {"a": _unit(0.0), "b": _unit(1.0), "m": _unit(0.0)}
    rows = text_likeness({"A": {"x": "a"}, "B": {"x": "b"}}, {"m": {"x": "m"}}, vectors)
    assert {row.annotator: row.n_closest_to_model for row in rows} == {"A": 1, "B": 0}
    assert not any(row.flagged for row in rows)
    alone = text_likeness({"A": {"x": "a"}}, {"m": {"x": "m"}}, vectors)
    assert alone == [], "no other person answered: nothing to be closer than"
