"""A study's training as the researcher sets it: the practice and comprehension questions written or
drawn from the benchmark's practice split, checked as they are stored (`parity.training`); how many
tries the comprehension check allows. The participant's side is `studies.participants.training`."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from annotation.models import Item
from parity import benchmarks
from parity.training import MAX_QUESTIONS, TrainingQuestion, parse, written
from studies.errors import StudyError

#: Prolific asks for two tries; more than a few turns a check into guessing
MAX_TRIES = 5


def training_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` with the practice and comprehension questions as stored: a researcher's text is parsed
    (`parity.training`), a list of questions checked the same way; StudyError says what is wrong."""
    problems = []
    for name, feedback in (("practice_questions", True), ("comprehension_questions", False)):
        value = fields.get(name)
        if value is None:
            continue
        text = value if isinstance(value, str) else written([TrainingQuestion.from_json(q) for q in value])
        parsed = parse(text, feedback=feedback)
        problems += [f"{name.replace('_', ' ')}: {error}" for error in parsed.errors]
        fields[name] = [question.as_json() for question in parsed.questions]
    tries = fields.get("comprehension_tries")
    if tries is not None and not 1 <= int(tries) <= MAX_TRIES:
        problems.append(f"comprehension tries: give 1 to {MAX_TRIES}")
    if problems:
        raise StudyError("; ".join(problems))
    return fields


def practice_drawn(*, benchmark: str, design: Mapping[str, Any], size: int, seed: int) -> list[dict[str, Any]]:
    """`size` practice questions drawn with `seed` from the benchmark's practice split (implicature: its
    dev set, never the study's own items), each as its page shows it with the right answer; StudyError
    when the benchmark has no such split or too few of its items were imported."""
    definition = benchmarks.get(benchmark)
    split = definition.practice_split(design)
    if split is None:
        raise StudyError(f"{definition.title} has no split of its own to draw practice questions from")
    if not 1 <= size <= MAX_QUESTIONS:
        raise StudyError(f"practice questions drawn: give 1 to {MAX_QUESTIONS}")
    rows = Item.objects.filter(benchmark=benchmark, split=split, is_attention_check=False).order_by("key")
    questions = [
        question
        for prompt, gold in rows.values_list("prompt", "gold")
        if (question := definition.practice_question(prompt, gold, design)) is not None
    ]
    if len(questions) < size:
        raise StudyError(f"{size} practice questions asked for, but the {split} split holds {len(questions)}")
    return [question.as_json() for question in random.Random(seed).sample(questions, size)]
