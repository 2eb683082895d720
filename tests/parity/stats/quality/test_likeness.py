"""The model-likeness rules (`parity.stats.quality.likeness`) against hand-checked figures."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from parity.stats.quality.likeness import (
    MARGIN,
    HumanBand,
    LikenessRule,
    gwet_ac1,
    human_band,
    is_model_like,
    model_likeness,
    pairwise_ac1,
    text_likeness,
)


def reference_ac1(a: list[str], b: list[str], labels=("no", "yes")) -> float:
    """Gwet's AC1 spelled out (Gwet 2008, two raters): (pa - pe) / (1 - pe), pe = Σ π(1 - π) / (q - 1)."""
    pa = sum(x == y for x, y in zip(a, b)) / len(a)
    pi = {label: (a.count(label) + b.count(label)) / (2 * len(a)) for label in labels}
    pe = sum(p * (1 - p) for p in pi.values()) / (len(labels) - 1)
    return (pa - pe) / (1 - pe)


def test_ac1_by_hand_and_where_kappa_says_nothing():
    # a model that says "no" to everything, and someone who copies it but for one item in ten
    model, copier = ["no"] * 10, ["no"] * 9 + ["yes"]
    # pa = 0.9; π_no = 19/20, π_yes = 1/20; pe = 2 · 0.95 · 0.05 = 0.095; (0.9 − 0.095) / 0.905
    assert gwet_ac1(copier, model, n_labels=2) == pytest.approx(0.805 / 0.905)
    assert cohen_kappa_score(copier, model) == 0.0, "kappa: no agreement beyond chance, copier or not"
    # half "no", half "yes" against the same model: pa = 0.5, π_no = 0.75, pe = 0.375
    half = ["no"] * 5 + ["yes"] * 5
    assert gwet_ac1(half, model, n_labels=2) == pytest.approx(0.125 / 0.625)
    assert gwet_ac1([], [], n_labels=2) is None
    with pytest.raises(ValueError):
        gwet_ac1(["no"], [], n_labels=2)


BAND = HumanBand(n_pairs=10, low=0.4, median=0.6, high=0.8)
RULE = LikenessRule()


def test_the_rule_needs_every_condition():
    def flagged(**changes):
        figures = {"n_items": 20, "agreement_model": 0.9, "agreement_people": 0.9 - MARGIN, "band": BAND, "rule": RULE}
        return is_model_like(**{**figures, **changes})

    assert flagged(), "20 items, above the band's median, the margin exactly over their own kappa"
    assert not flagged(n_items=19), "too few items shared with the model"
    assert not flagged(agreement_people=0.9 - MARGIN + 0.01), "not enough above their agreement with people"
    assert not flagged(agreement_model=0.6, agreement_people=0.3), "not above how well two people typically agree"
    assert flagged(agreement_model=0.61, agreement_people=0.3)
    assert not flagged(band=HumanBand(4, 0.4, 0.6, 0.8)), "a band of four pairs says little"
    assert not flagged(agreement_people=None), "no one to compare the person with"
    assert not flagged(agreement_model=None), "kappa undefined (one label throughout)"


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


def test_every_pair_at_once_is_each_pairs_ac1():
    people, _model = _people_and_model()
    people["part"] = dict(itertools.islice(people["P0"].items(), 25))
    table = pairwise_ac1(people, n_labels=2)
    assert table.first.size == 28
    for a, b, n, value in zip(table.first, table.second, table.n_items, table.ac1):
        first, second = people[table.annotators[a]], people[table.annotators[b]]
        items = [item for item in first if item in second]
        assert n == len(items)
        assert value == pytest.approx(reference_ac1([first[i] for i in items], [second[i] for i in items]))


def test_figures_are_each_pairs_ac1_and_only_the_copier_is_flagged():
    people, model = _people_and_model()
    rows = {row.annotator: row for row in model_likeness(people, {"m": model})}
    assert set(rows) == set(people)
    items = sorted(model)
    for name, answers in people.items():
        expected = reference_ac1([answers[i] for i in items], [model[i] for i in items])
        assert rows[name].agreement_model == pytest.approx(expected) and rows[name].n_items == 40
        others = [
            reference_ac1([answers[i] for i in items], [theirs[i] for i in items])
            for other, theirs in people.items()
            if other != name
        ]
        assert rows[name].agreement_people == pytest.approx(np.mean(others)) and rows[name].n_people == 6
    pairs = [
        reference_ac1([people[a][i] for i in items], [people[b][i] for i in items])
        for a, b in itertools.combinations(people, 2)
    ]
    band = rows["P0"].band
    assert band.n_pairs == 21 and band.median == pytest.approx(np.percentile(pairs, 50))
    assert [name for name, row in rows.items() if row.flagged] == ["copier"]
    copier = rows["copier"]
    assert copier.agreement_model > 0.6 and copier.agreement_model - copier.agreement_people > MARGIN
    assert "AC1" in copier.evidence() and "with m over 40 items" in copier.evidence()


def test_pairs_sharing_too_few_items_stay_out_of_the_band_and_the_own_mean():
    people, model = _people_and_model()
    # a newcomer who answered 10 items only: no pair of theirs counts, so nothing to compare them with
    people["late"] = dict(itertools.islice(model.items(), 10))
    rows = {row.annotator: row for row in model_likeness(people, {"m": model})}
    assert rows["late"].n_items == 10 and rows["late"].agreement_people is None and not rows["late"].flagged
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
