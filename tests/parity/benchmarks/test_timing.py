"""How long a participant takes, from the design: the answers one participant gives, the time of
one answer (with where the figure comes from), and consent and instructions."""

from __future__ import annotations

import pytest

from parity import benchmarks
from parity.benchmarks.timing import SETUP_SECONDS, AnswerTime, TimeEstimate, time_estimate


def test_the_minutes_are_the_answers_times_their_seconds_plus_setup_rounded_up() -> None:
    estimate = time_estimate(20, AnswerTime(18, "a paper"))
    assert SETUP_SECONDS == 120
    assert estimate.minutes == 8  # 20 × 18 s = 6 min, + 2 min
    assert str(estimate) == "20 answers × ~18 s + 2 min consent and instructions ≈ 8 min"
    assert TimeEstimate(answers=153, seconds_per_answer=12, source="").minutes == 33  # 30.6 + 2, rounded up
    assert str(time_estimate(1, AnswerTime(60, ""))) == "1 answer × ~60 s + 2 min consent and instructions ≈ 3 min"


@pytest.mark.parametrize(
    "name, design, answers, seconds, minutes",
    [
        # the paper's designs: 150 items and 3 attention checks a participant
        ("implicature", {}, 153, 12, 33),
        ("implicature", {"unit_size": 10, "attention_checks": 0}, 10, 12, 4),
        # a 20-sentence episode; Tamkin et al.'s participants took 4-8 minutes
        ("ambibench", {}, 20, 18, 8),
        ("ambibench", {"split": "instruction"}, 1, 60, 3),
        ("miqa", {}, 300, 10, 52),
        ("miqa_rating", {}, 50, 30, 27),
        ("instruction_induction", {}, 6, 90, 11),
        ("custom", {"unit_size": 12, "attention_checks": 2}, 14, 15, 6),
    ],
)
def test_each_benchmark_estimates_from_its_design(name, design, answers, seconds, minutes) -> None:
    definition = benchmarks.get(name)
    estimate = definition.time_estimate(definition.design(design))
    assert estimate is not None
    assert (estimate.answers, estimate.seconds_per_answer, estimate.minutes) == (answers, seconds, minutes)
    assert estimate.source  # the form says where the figure comes from


def test_a_design_that_does_not_say_its_answers_is_estimated_from_a_count_given() -> None:
    custom = benchmarks.get("custom")
    design = custom.design({"item_set": "mine"})  # unit_size 0: every item of the set
    assert custom.time_estimate(design) is None
    estimate = custom.time_estimate(design, answers=8)
    assert estimate is not None and (estimate.answers, estimate.minutes) == (8, 4)
