from __future__ import annotations

import pytest

from parity.stats import Rating, human_majority, model_vs_humans

GOLD = {"i1": "Y", "i2": "N", "i3": "Y", "i4": "N"}


def _rate(annotator: str, item: str, answer: str | None) -> Rating:
    return Rating(annotator, item, answer, None if answer is None else answer == GOLD[item])


HUMANS = [
    # i1: Y Y N → majority Y (2/3); shares correct 2/3.
    _rate("H1", "i1", "Y"),
    _rate("H2", "i1", "Y"),
    _rate("H3", "i1", "N"),
    # i2: N N N → majority N; share correct 1.
    _rate("H1", "i2", "N"),
    _rate("H2", "i2", "N"),
    _rate("H3", "i2", "N"),
    # i3: Y N, H3 missing → a tie; share correct 1/2.
    _rate("H1", "i3", "Y"),
    _rate("H2", "i3", "N"),
    _rate("H3", "i3", None),
    # i4: Y Y N → majority Y (2/3); share correct 1/3.
    _rate("H1", "i4", "Y"),
    _rate("H2", "i4", "Y"),
    _rate("H3", "i4", "N"),
]
MODEL = [
    _rate("gpt", "i1", "Y"),
    _rate("gpt", "i2", "Y"),
    _rate("gpt", "i3", "Y"),
    _rate("gpt", "i4", "N"),
]


def test_the_majority_needs_strictly_more_votes() -> None:
    majority = human_majority(HUMANS)
    assert (majority["i1"].answer, majority["i1"].share) == ("Y", pytest.approx(2 / 3))
    assert (majority["i3"].answer, majority["i3"].share, majority["i3"].n_answers) == (
        None,
        None,
        2,
    )


def test_it_puts_the_model_beside_the_humans() -> None:
    result = model_vs_humans(MODEL, HUMANS)
    assert result.model == "gpt"
    assert result.n_items == 4
    # Model 3/4 right; humans (2/3 + 1 + 1/2 + 1/3) / 4 = 5/8; gap 1/8.
    assert result.model_accuracy == 0.75
    assert result.human_accuracy == pytest.approx(0.625)
    assert result.gap == pytest.approx(0.125)
    # Per-item differences 1/3, −1, 1/2, 2/3 bound every resampled mean.
    assert -1.0 <= result.gap_ci_low < result.gap < result.gap_ci_high <= 2 / 3


def test_it_measures_agreement_with_the_human_majority_without_ties() -> None:
    result = model_vs_humans(MODEL, HUMANS)
    # Tied i3 left out. Model Y Y N vs majority Y N Y: p_o = 1/3, both say Y 2/3 of the time
    # → p_e = 4/9 + 1/9 = 5/9; κ = (1/3 − 5/9)/(4/9) = −1/2.
    assert result.tied_items == ["i3"]
    assert result.n_items_majority == 3
    assert result.kappa_vs_majority == pytest.approx(-0.5)
    assert result.agreement_with_majority == pytest.approx(1 / 3)
    assert [(d.item, d.model_answer, d.majority_answer, d.model_correct) for d in result.disagreements] == [
        ("i2", "Y", "N", False),
        ("i4", "N", "Y", True),
    ]


def test_it_rejects_two_model_answers_for_one_item() -> None:
    with pytest.raises(ValueError):
        model_vs_humans([*MODEL, _rate("gpt", "i1", "N")], HUMANS)


def test_without_shared_items_everything_is_undefined() -> None:
    result = model_vs_humans([], HUMANS)
    assert (result.n_items, result.gap, result.gap_ci_low, result.kappa_vs_majority) == (
        0,
        None,
        None,
        None,
    )
