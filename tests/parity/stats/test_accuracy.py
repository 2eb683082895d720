from __future__ import annotations

import numpy as np
import pytest

from parity.stats import (
    Rating,
    accuracy_across_units,
    accuracy_by_unit,
    accuracy_summary,
    bootstrap_mean_ci,
    bootstrap_means,
    participant_accuracy,
)
from parity.stats.results import mean_std


def _ratings() -> list[Rating]:
    rows = []
    # Unit u1: A1 3/4 = 0.75, A2 1/4 = 0.25.
    for annotator, outcomes in {"A1": [1, 1, 1, 0], "A2": [1, 0, 0, 0]}.items():
        for index, ok in enumerate(outcomes):
            rows.append(Rating(annotator, f"i{index}", "Yes", bool(ok), "u1"))
    # Unit u2: B1 2/2 = 1.0, B2 1/2 = 0.5, B3 1/1 = 1.0 (its second item is unscored).
    for annotator, outcomes in {"B1": [1, 1], "B2": [0, 1], "B3": [1, None]}.items():
        for index, ok in enumerate(outcomes):
            rows.append(
                Rating(
                    annotator,
                    f"j{index}",
                    None if ok is None else "No",
                    None if ok is None else bool(ok),
                    "u2",
                )
            )
    return rows


def test_it_scores_each_participant_on_their_scored_answers_only() -> None:
    by_name = {p.annotator: p for p in participant_accuracy(_ratings())}
    assert by_name["A1"].accuracy == 0.75
    assert (by_name["B3"].n_scored, by_name["B3"].n_correct, by_name["B3"].accuracy) == (1, 1, 1.0)
    assert by_name["B3"].unit == "u2"


def test_it_accepts_mappings_as_rows() -> None:
    rows = [
        {"annotator": "A", "item": "1", "answer": "Yes", "correct": True, "extra": 1},
        {"annotator": "A", "item": "2", "answer": "No", "correct": False},
    ]
    assert participant_accuracy(rows)[0].accuracy == 0.5


def test_it_refuses_text_outcomes() -> None:
    with pytest.raises(TypeError):
        participant_accuracy([{"annotator": "A", "item": "1", "correct": "False"}])


def test_it_summarises_a_unit_with_mean_best_worst_std_and_ci() -> None:
    u1 = accuracy_by_unit(_ratings())[0]
    # Accuracies 0.75 and 0.25: mean 0.5, population std 0.25, sample std 0.25·√2.
    assert (u1.unit, u1.mean, u1.best, u1.worst, u1.std) == ("u1", 0.5, 0.75, 0.25, 0.25)
    # t-interval: 0.5 ± t(0.975, 1) · 0.25·√2 / √2 = 0.5 ± 12.71 · 0.25, cut to [0, 1].
    assert (u1.ci_low, u1.ci_high) == (0.0, 1.0)
    # The percentile bootstrap, on request: resampling two values gives means 0.25 / 0.5 / 0.75 with
    # probability ¼ / ½ / ¼, so the 2.5th and 97.5th percentiles of 10 000 resamples are 0.25 and 0.75.
    boot = accuracy_by_unit(_ratings(), ci_method="percentile_bootstrap")[0]
    assert (boot.ci_low, boot.ci_high, boot.ci_method) == (0.25, 0.75, "percentile_bootstrap")
    sample = accuracy_by_unit(_ratings(), ddof=1)[0]
    assert sample.std == pytest.approx(0.25 * 2**0.5)


def test_it_pools_all_units_for_the_overall_summary() -> None:
    overall = accuracy_summary(_ratings())
    # 0.75, 0.25, 1.0, 0.5, 1.0 → mean 3.5 / 5.
    assert overall.n_participants == 5
    assert overall.mean == pytest.approx(0.7)
    assert (overall.best, overall.worst) == (1.0, 0.25)
    assert overall.ci_low <= overall.mean <= overall.ci_high


def test_it_averages_units_like_table_7() -> None:
    spread = accuracy_across_units(accuracy_by_unit(_ratings()))
    # Unit means 0.5 and 5/6; bests 0.75 and 1; worsts 0.25 and 0.5.
    assert spread.mean == pytest.approx((0.5 + 5 / 6) / 2)
    assert spread.mean_std == pytest.approx((5 / 6 - 0.5) / 2)
    assert (spread.best, spread.best_std) == pytest.approx((0.875, 0.125))
    assert (spread.worst, spread.worst_std) == pytest.approx((0.375, 0.125))
    # Within-unit stds: 0.25 and std(1, 0.5, 1) = √(1/18) ≈ 0.2357.
    assert spread.mean_within_unit_std == pytest.approx((0.25 + (1 / 18) ** 0.5) / 2)


def test_a_single_participant_has_no_ci_and_no_sample_std() -> None:
    rows = [Rating("A", "1", "Yes", True), Rating("A", "2", "No", False)]
    summary = accuracy_summary(rows, ddof=1)
    assert (summary.mean, summary.std, summary.ci_low, summary.ci_high) == (0.5, None, None, None)


def test_the_bootstrap_is_seeded_and_sensitive_to_the_seed() -> None:
    values = [0.6, 0.7, 0.75, 0.8, 0.9, 0.95, 0.55]
    assert bootstrap_mean_ci(values, seed=3) == bootstrap_mean_ci(values, seed=3)
    assert np.array_equal(bootstrap_means(values, seed=3), bootstrap_means(values, seed=3))
    assert not np.array_equal(bootstrap_means(values, seed=3), bootstrap_means(values, seed=4))


def test_the_bootstrap_ci_narrows_with_more_participants() -> None:
    few = bootstrap_mean_ci([0.0, 1.0] * 5)
    many = bootstrap_mean_ci([0.0, 1.0] * 500)
    assert few is not None and many is not None
    # Standard error of a mean of 0/1 values: 0.5 / √n → width ≈ 4 × 0.5 / √n.
    assert many.high - many.low == pytest.approx(4 * 0.5 / 1000**0.5, rel=0.1)
    assert many.high - many.low < few.high - few.low


def test_the_bootstrap_handles_large_inputs_in_chunks() -> None:
    # 10 000 resamples of 5 000 values = 50 M draws, more than one chunk.
    interval = bootstrap_mean_ci([0.0, 1.0] * 2500, n_boot=10_000)
    assert interval is not None and interval.low < 0.5 < interval.high


def test_one_value_has_a_mean_and_no_spread() -> None:
    # one template's accuracy, one participant, one unit: a population std of 0.0 would print "± 0.0"
    assert mean_std([0.467]) == (0.467, None)
    assert mean_std([0.467], ddof=1) == (0.467, None)
    assert mean_std([0.4, 0.6]) == pytest.approx((0.5, 0.1))
    alone = accuracy_summary([Rating("A", "1", "Yes", True), Rating("A", "2", "No", False)])
    assert (alone.mean, alone.std) == (0.5, None)


def test_the_mean_over_units_says_when_it_can_differ_from_the_mean_over_participants() -> None:
    # u1: one annotator at 0.7; u2: three at 0.3 each. Mean over units (0.7 + 0.3) / 2 = 0.5;
    # mean over participants (0.7 + 3 · 0.3) / 4 = 0.4.
    rows = [Rating("A1", f"i{n}", "Yes", n < 7, "u1") for n in range(10)]
    rows += [Rating(name, f"j{n}", "Yes", n < 3, "u2") for name in ("B1", "B2", "B3") for n in range(10)]
    across = accuracy_across_units(accuracy_by_unit(rows))
    assert across.mean == pytest.approx(0.5) and accuracy_summary(rows).mean == pytest.approx(0.4)
    assert (across.fewest_participants, across.most_participants) == (1, 3)
    # within-unit stds: none in u1 (one annotator), 0.0 in u2: the mean of the one there is
    assert across.mean_within_unit_std == 0.0
    balanced = accuracy_across_units(accuracy_by_unit(_ratings()))
    assert (balanced.fewest_participants, balanced.most_participants) == (2, 3)
