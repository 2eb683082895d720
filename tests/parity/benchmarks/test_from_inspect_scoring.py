"""A person's written answer scored by the rule of the task's Inspect scorer, held answer by answer
to Inspect's own `match`, `includes` and `exact` scorers (inspect_ai.scorer, run on a TaskState whose output
is the answer) over every location, case and numeric option."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import CORRECT, Target, exact, includes, match
from inspect_ai.solver import TaskState

from parity.benchmarks.from_inspect import scoring

ANSWERS = [
    "42",
    "The answer is 42.",
    "42.0",
    "(42)",
    "$1,000",
    "1000",
    "1,000.",
    "-3.5",
    "3.50",
    "answer: 7 or 8",
    "forty-two",
    "1e3",
    "Paris",
    "paris!",
    "I think Paris",
    "Paris is it",
    "",
    "  PARIS  ",
    "Rome, Italy",
]
TARGETS = ["42", "Paris", "1000", "-3.5", "8", "paris.", "1,000", "Rome"]


def inspect_says(scorer: Any, answer: str, target: str) -> bool:
    state = TaskState(
        model="person", sample_id="s", epoch=1, input="", messages=[], output=ModelOutput.from_content("p", answer)
    )
    return asyncio.run(scorer(state, Target([target]))).value == CORRECT


@pytest.mark.parametrize(
    ("location", "ignore_case", "numeric"),
    itertools.product(["begin", "end", "any", "exact"], [True, False], [True, False]),
)
def test_match_scores_every_answer_as_inspects_match(location: str, ignore_case: bool, numeric: bool) -> None:
    options = {"location": location, "ignore_case": ignore_case, "numeric": numeric}
    spec, reference = scoring.scorer_spec("match", options), match(**options)
    differ = [
        (answer, target)
        for answer, target in itertools.product(ANSWERS, TARGETS)
        if scoring.score_typed(spec, answer, [target]) != inspect_says(reference, answer, target)
    ]
    assert differ == []


@pytest.mark.parametrize("ignore_case", [True, False])
def test_includes_scores_every_answer_as_inspects_includes(ignore_case: bool) -> None:
    spec, reference = scoring.scorer_spec("includes", {"ignore_case": ignore_case}), includes(ignore_case=ignore_case)
    differ = [
        (answer, target)
        for answer, target in itertools.product(ANSWERS, TARGETS)
        if scoring.score_typed(spec, answer, [target]) != inspect_says(reference, answer, target)
    ]
    assert differ == []


def test_exact_scores_every_answer_as_inspects_exact() -> None:
    spec, reference = scoring.scorer_spec("exact", {}), exact()
    answers = [*ANSWERS, "the Paris", "PARIS.", "42.00", "a", "Rome-Italy", "rome italy", "(3.14)", "3.14."]
    targets = [*TARGETS, "3.14", "Rome Italy", "the", "-"]
    differ = [
        (answer, target)
        for answer, target in itertools.product(answers, targets)
        if scoring.score_typed(spec, answer, [target]) != inspect_says(reference, answer, target)
    ]
    assert differ == []


def test_any_target_counts_and_other_scorers_are_not_taken() -> None:
    spec = scoring.scorer_spec("match", {})
    assert scoring.score_typed(spec, "It is Roma", ["Rome", "Roma"])
    assert not scoring.score_typed(spec, "It is Milan", ["Rome", "Roma"])
    with pytest.raises(ValueError, match="match or includes or exact only"):
        scoring.read_spec(scoring.scorer_spec("model_graded_qa", {}))
    with pytest.raises(ValueError, match="location is one of"):
        scoring.read_spec(scoring.scorer_spec("match", {"location": "middle"}))
