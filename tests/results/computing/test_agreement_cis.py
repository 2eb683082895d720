"""The results show Fleiss' κ and Krippendorff's α with their bootstrap CIs and the sentence on how
they covered in simulation (`parity.stats.agreement_ci`), from plain rows (no database)."""

from __future__ import annotations

import numpy as np

from parity.stats import Rating
from parity.stats.agreement_ci import agreement_intervals, calibration_note, pairwise_kappa_interval
from results.computing.assemble import study_results_tree
from results.presenting.display import summary_cards
from tests.results.computing.test_comparison_numbers import _data, _human


def _study(n_items: int):
    rng = np.random.default_rng(5)
    right = rng.random((3, n_items)) < np.where(rng.random(n_items) < 0.7, 0.9, 0.4)
    humans = [_human(f"P{p}", n, bool(right[p, n])) for p in range(3) for n in range(n_items)]
    ratings = [Rating(annotator=h.annotator, item=h.item_key, answer=h.answer) for h in humans]
    return study_results_tree(_data(humans, ["U1"], n_items=n_items), n_boot=200), ratings


def test_the_agreement_cards_show_the_bootstrap_cis_and_their_calibration() -> None:
    tree, ratings = _study(40)
    expected = agreement_intervals(ratings)
    human = tree.human
    assert expected.fleiss_kappa_ci95 is not None and expected.krippendorff_alpha_ci95 is not None
    assert (human.fleiss_kappa_ci95, human.krippendorff_alpha_ci95) == (
        expected.fleiss_kappa_ci95,
        expected.krippendorff_alpha_ci95,
    )
    assert human.agreement_ci_note == calibration_note()
    json = tree.to_json()["human"]
    assert json["fleiss_kappa_ci95"] == expected.fleiss_kappa_ci95
    assert json["agreement_ci_note"] == calibration_note()
    cards = {card.label: card for card in summary_cards(tree)}
    low, high = expected.fleiss_kappa_ci95
    assert cards["Fleiss' κ"].note == f"95% CI [{low:.2f}, {high:.2f}] · {calibration_note()}"
    low, high = expected.krippendorff_alpha_ci95
    assert cards["Krippendorff's α (nominal)"].note == f"95% CI [{low:.2f}, {high:.2f}] · {calibration_note()}"


def test_too_few_items_show_the_reason_instead_of_an_interval() -> None:
    tree, ratings = _study(12)
    assert tree.human.fleiss_kappa_ci95 is None
    reason = agreement_intervals(ratings).note
    assert reason is not None and tree.human.agreement_ci_note == reason
    cards = {card.label: card for card in summary_cards(tree)}
    assert cards["Fleiss' κ"].note == reason


def test_the_mean_pairwise_kappa_card_and_json_show_its_interval() -> None:
    tree, ratings = _study(40)
    expected = pairwise_kappa_interval(ratings)
    assert expected.mean_pairwise_kappa_ci95 is not None
    human = tree.human
    assert human.cohen_kappa_mean_pairwise_ci95 == expected.mean_pairwise_kappa_ci95
    assert human.cohen_kappa_ci_note == calibration_note()
    json = tree.to_json()["human"]
    assert json["cohen_kappa_mean_pairwise_ci95"] == expected.mean_pairwise_kappa_ci95
    assert json["cohen_kappa_ci_note"] == calibration_note()
    assert "icc2k_ci95" not in json and "icc_ci_note" not in json  # a rating study's only
    low, high = expected.mean_pairwise_kappa_ci95
    card = {card.label: card for card in summary_cards(tree)}["Mean pairwise Cohen's κ (per unit, averaged)"]
    assert card.note == f"95% CI [{low:.2f}, {high:.2f}] · {calibration_note()}"


def test_the_mean_pairwise_kappa_card_gives_the_reason_when_there_is_no_interval() -> None:
    tree, ratings = _study(12)
    reason = pairwise_kappa_interval(ratings).note
    assert tree.human.cohen_kappa_mean_pairwise_ci95 is None and reason is not None
    assert tree.to_json()["human"]["cohen_kappa_ci_note"] == reason
    card = {card.label: card for card in summary_cards(tree)}["Mean pairwise Cohen's κ (per unit, averaged)"]
    assert card.note == reason
