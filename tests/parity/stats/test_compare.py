from __future__ import annotations

import pytest

from parity.stats import Rating, human_majority, model_vs_humans, paired_gap

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
    # a t-interval over people and items, cut to the gap's range
    assert -1.0 <= result.gap_ci_low < result.gap < result.gap_ci_high <= 1.0


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


def test_the_gap_is_taken_on_the_items_both_answered_and_is_the_difference_of_their_accuracies() -> None:
    # 320 items; one person answered the first 20 (14 right), the model all 320 (160 right: the
    # even ones). On the 20 shared items the model has 10 right: 50% vs the person's 70%.
    person = [Rating("P1", f"i{n}", "Y", n not in (1, 2, 4, 7, 9, 13)) for n in range(20)]
    model = {f"i{n}": float(n % 2 == 0) for n in range(320)}
    paired = paired_gap(model, person)
    assert paired.n_items == 20
    assert (paired.model_accuracy, paired.human_accuracy) == pytest.approx((0.5, 0.7))
    assert paired.gap == pytest.approx(paired.model_accuracy - paired.human_accuracy)
    # one person: how another person would differ cannot be estimated, so no CI about people
    assert (paired.gap_ci_low, paired.gap_ci_high) == (None, None)
    # the same through model_vs_humans: its accuracies are on the shared items too
    versus = model_vs_humans([Rating("m", key, "Y", bool(score)) for key, score in model.items()], person)
    assert (versus.n_items, versus.model_accuracy, versus.gap) == (20, 0.5, pytest.approx(-0.2))


def test_a_model_scored_per_variant_enters_the_gap_with_its_mean_per_item() -> None:
    # i1: model 1/2 over its two orders, humans 2/3; i2: model 1, humans 1; i9: the humans did not answer
    paired = paired_gap({"i1": 0.5, "i2": 1.0, "i9": 0.0}, HUMANS)
    assert paired.n_items == 2
    assert (paired.model_accuracy, paired.human_accuracy) == pytest.approx((0.75, (2 / 3 + 1) / 2))
    assert paired.gap == pytest.approx(0.75 - 5 / 6)
    single = paired_gap({"i2": 1.0}, HUMANS)
    assert (single.n_items, single.gap, single.gap_ci_low) == (1, 0.0, None)
