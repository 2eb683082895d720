"""The statistics computed for all annotators at once (matrix products, index arrays) against the
one-pair-at-a-time computations they replace: scikit-learn's `cohen_kappa_score` for every pair,
per-item dictionaries for Fleiss' kappa and the percent agreement, and the bootstrap as one draw of
int64 indices. Random tables and the edge cases: constant raters, missing answers, one label,
annotators who share no item."""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from parity.stats import (
    Rating,
    accuracy_by_unit,
    agreement_summary,
    bootstrap_means,
    cohen_kappa,
    fleiss_kappa,
    human_majority,
    label_matrix,
    pairwise_kappa_table,
    pairwise_kappas,
    participant_accuracy,
    percent_agreement,
)
from parity.stats.bootstrap import shared_resamples
from parity.stats.table import rating_table
from tests.parity.stats.dictionary_reference import item_counts, pair_agreement

TOLERANCE = 1e-12


# -- the one-pair-at-a-time computations ---------------------------------------------------------


def sklearn_pairs(ratings: list[Rating]) -> list[tuple[str, str, int, float | None]]:
    table: dict[str, dict[str, str]] = defaultdict(dict)
    for rating in ratings:
        if rating.answer is not None:
            table[rating.annotator][rating.item] = rating.answer
    pairs = []
    for first, second in itertools.combinations(table, 2):
        shared = [item for item in table[first] if item in table[second]]
        if not shared:
            continue
        a = [table[first][item] for item in shared]
        b = [table[second][item] for item in shared]
        kappa = None if len(set(a) | set(b)) < 2 else float(cohen_kappa_score(a, b))
        pairs.append((first, second, len(shared), kappa))
    return pairs


def dictionary_fleiss(ratings: list[Rating]) -> float | None:
    items = item_counts(ratings)
    if not items:
        return None
    p_bar = float(np.mean([pair_agreement(c) for c in items]))
    totals: Counter[str] = Counter()
    for counts in items:
        totals.update(counts)
    p_e = sum((n / totals.total()) ** 2 for n in totals.values())
    return None if np.isclose(p_e, 1.0) else (p_bar - p_e) / (1.0 - p_e)


def one_draw_bootstrap(values: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """The bootstrap as it was: every resample's int64 indices drawn at once."""
    rng = np.random.default_rng(seed)
    return values[rng.integers(0, values.size, size=(n_boot, values.size))].mean(axis=1)


# -- tables ----------------------------------------------------------------------------------------


def random_table(seed: int) -> list[Rating]:
    rng = random.Random(seed)
    labels = ["yes", "no", "maybe", "x"][: rng.choice([1, 2, 2, 3, 4])]
    missing = rng.choice([0.0, 0.2, 0.6])
    annotators, items = rng.randint(1, 12), rng.randint(1, 15)
    ratings = []
    for a in range(annotators):
        constant = rng.random() < 0.2  # some raters give one label to everything
        for i in range(items):
            answer = None if rng.random() < missing else labels[0] if constant else rng.choice(labels)
            correct = None if answer is None else answer == labels[0]
            ratings.append(Rating(f"a{a}", f"i{i}", answer, correct, f"u{a % 2}"))
    rng.shuffle(ratings)
    return ratings


EDGES = {
    "constant raters, the same label": {"A": ["Y", "Y", "Y"], "B": ["Y", "Y", "Y"], "C": ["N", "Y", "N"]},
    "constant raters, different labels": {"A": ["Y", "Y", "Y"], "B": ["N", "N", "N"]},
    "missing answers": {"A": ["Y", None, "N", "Y"], "B": [None, "N", "N", None], "C": ["Y", "Y", None, None]},
    "one label in all the data": {"A": ["Y", "Y"], "B": ["Y", "Y"], "C": ["Y", None]},
    "no item shared": {"A": ["Y", "N", None, None], "B": [None, None, "Y", "N"]},
    "one annotator": {"A": ["Y", "N", "Y"]},
    "nobody answered": {"A": [None, None], "B": [None, None]},
}


def edge_table(rows: dict[str, list[str | None]]) -> list[Rating]:
    return [Rating(a, f"i{i}", answer) for a, answers in rows.items() for i, answer in enumerate(answers)]


TABLES = [pytest.param(random_table(seed), id=f"random-{seed}") for seed in range(60)] + [
    pytest.param(edge_table(rows), id=name) for name, rows in EDGES.items()
]


# -- the tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize("ratings", TABLES)
def test_every_pair_has_scikit_learns_kappa(ratings: list[Rating]) -> None:
    ours = [(p.annotator_a, p.annotator_b, p.n_items, p.kappa) for p in pairwise_kappas(ratings)]
    theirs = sklearn_pairs(ratings)
    assert [pair[:3] for pair in ours] == [pair[:3] for pair in theirs]
    for (*_, mine), (*_, reference) in zip(ours, theirs):
        assert (mine is None) == (reference is None)
        if mine is not None:
            assert abs(mine - reference) <= TOLERANCE


@pytest.mark.parametrize("ratings", TABLES)
def test_the_mean_and_the_counts_are_those_of_the_pairs(ratings: list[Rating]) -> None:
    defined = [kappa for *_, kappa in sklearn_pairs(ratings) if kappa is not None]
    table = pairwise_kappa_table(ratings)
    summary = agreement_summary(ratings, with_pairs=False)
    assert (summary.n_pairs, summary.n_pairs_undefined) == (len(sklearn_pairs(ratings)), table.n_undefined)
    assert summary.pairs == []
    if defined:
        assert abs(summary.mean_pairwise_kappa - float(np.mean(defined))) <= TOLERANCE
    else:
        assert summary.mean_pairwise_kappa is None


def test_two_labels_give_scikit_learns_kappa_to_the_last_bit() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        ratings = [
            Rating(f"a{a}", f"i{i}", rng.choice(["yes", "no"]) if rng.random() < 0.9 else None)
            for a in range(8)
            for i in range(30)
        ]
        ours = [pair.kappa for pair in pairwise_kappas(ratings)]
        assert ours == [kappa for *_, kappa in sklearn_pairs(ratings)]


@pytest.mark.parametrize("ratings", TABLES)
def test_fleiss_and_percent_agreement_match_the_per_item_dictionaries(ratings: list[Rating]) -> None:
    items = item_counts(ratings)
    expected_percent = float(np.mean([pair_agreement(c) for c in items])) if items else None
    assert percent_agreement(ratings) == pytest.approx(expected_percent, abs=TOLERANCE)
    assert fleiss_kappa(ratings) == pytest.approx(dictionary_fleiss(ratings), abs=TOLERANCE)


@pytest.mark.parametrize("ratings", TABLES)
def test_a_table_reads_like_its_ratings(ratings: list[Rating]) -> None:
    table = rating_table(ratings)
    assert table.ratings() == ratings
    assert participant_accuracy(table) == participant_accuracy(ratings)
    assert human_majority(table) == human_majority(ratings)


def test_one_model_pair_is_scikit_learns_kappa_with_any_number_of_labels() -> None:
    rng = random.Random(7)
    for labels in (["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d", "e"]):
        a = [rng.choice(labels) for _ in range(50)]
        b = [rng.choice(labels) for _ in range(50)]
        assert cohen_kappa(a, b) == float(cohen_kappa_score(a, b))


def test_a_repeated_answer_is_refused() -> None:
    with pytest.raises(ValueError, match="answered item 'i1' twice"):
        label_matrix([Rating("A", "i1", "Y"), Rating("A", "i2", "N"), Rating("A", "i1", "N")])


def test_units_are_summarised_in_the_order_they_first_appear() -> None:
    ratings = [
        Rating("A", "i1", "Y", True, "u2"),
        Rating("B", "i1", "N", False, "u1"),
        Rating("C", "i1", "Y", True, "u2"),
    ]
    assert [s.unit for s in accuracy_by_unit(ratings, n_boot=10)] == ["u2", "u1"]


@pytest.mark.parametrize("n", [1, 2, 7, 174, 600, 1001, 2500])
def test_the_bootstrap_draws_what_one_draw_of_int64_indices_drew(n: int) -> None:
    values = np.random.default_rng(n).random(n)
    expected = one_draw_bootstrap(values, 2_000, seed=n)
    assert np.array_equal(bootstrap_means(values, n_boot=2_000, seed=n), expected)
    with shared_resamples():
        first = bootstrap_means(values, n_boot=2_000, seed=n)
        again = bootstrap_means(values[::-1].copy(), n_boot=2_000, seed=n)
    assert np.array_equal(first, expected)
    assert np.array_equal(again, one_draw_bootstrap(values[::-1].copy(), 2_000, seed=n))


def test_shared_resamples_are_forgotten_after_the_block() -> None:
    values = np.arange(10.0)
    with shared_resamples():
        inside = bootstrap_means(values, n_boot=100, seed=1)
    assert np.array_equal(bootstrap_means(values, n_boot=100, seed=1), inside)
    assert not np.array_equal(bootstrap_means(values, n_boot=100, seed=2), inside)
