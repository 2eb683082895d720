"""How long one participant takes, estimated from a study's design (pure Python: no Django import).

A benchmark says how many answers one participant gives under a design
(`Benchmark.answers_per_participant`) and how long one answer takes (`Benchmark.answer_time`, with
where the figure comes from); reading the consent and the instructions adds `SETUP_SECONDS`, and
the training before the items and the "why?" boxes add their own time (`with_training`), at the
planning figures below: no paper measured them, so they are assumptions, stated as such.
Prolific judges the pay on the *median* completion time, so the figures lean long: a study
estimated too short pays less than the hourly rate it promises.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

#: reading the consent form and the instructions, and the first clicks: two minutes (AmbiBench's
#: participants took 4-8 minutes for a 20-sentence episode, consent and instructions included)
SETUP_SECONDS = 120
#: assumed: a practice question takes an answer's time plus reading its right answer and the lines
#: written after it (a sentence or two, some 30 words: ~8 s at 240 words a minute)
PRACTICE_FEEDBACK_SECONDS = 8
#: assumed: a comprehension question is a short question on the instructions answered with a choice
COMPREHENSION_SECONDS = 10
#: assumed: an explanation is a sentence typed into the "why?" box (~10 words at ~40 words a
#: minute, with the thought before it); the box is optional, but the estimate counts every box written
EXPLANATION_SECONDS = 20


@dataclass(frozen=True)
class AnswerTime:
    """The seconds one answer takes, and where that figure comes from (shown to the researcher)."""

    seconds: int
    source: str


@dataclass(frozen=True)
class TimeEstimate:
    answers: int
    seconds_per_answer: int
    source: str
    setup_seconds: int = SETUP_SECONDS
    practice: int = 0
    comprehension: int = 0
    explanations: int = 0

    @property
    def practice_seconds(self) -> int:
        return self.seconds_per_answer + PRACTICE_FEEDBACK_SECONDS

    @property
    def seconds(self) -> int:
        return (
            self.answers * self.seconds_per_answer
            + self.practice * self.practice_seconds
            + self.comprehension * COMPREHENSION_SECONDS
            + self.explanations * EXPLANATION_SECONDS
            + self.setup_seconds
        )

    @property
    def minutes(self) -> int:
        """Whole minutes, rounded up: Prolific takes the time in minutes."""
        return max(1, math.ceil(self.seconds / 60))

    @property
    def assumed(self) -> str:
        """The assumed figures this estimate uses, in words ("" when it uses none)."""
        parts = []
        if self.practice:
            parts.append(f"a practice question ~{PRACTICE_FEEDBACK_SECONDS} s more than an answer, for its feedback")
        if self.comprehension:
            parts.append(f"a comprehension question ~{COMPREHENSION_SECONDS} s")
        if self.explanations:
            parts.append(f"an explanation ~{EXPLANATION_SECONDS} s (every box written)")
        return "; ".join(parts)

    def __str__(self) -> str:
        setup = self.setup_seconds / 60
        parts = [f"{self.answers} answer{'s' if self.answers != 1 else ''} × ~{self.seconds_per_answer} s"]
        for count, one, many, seconds in (
            (self.practice, "practice question", "practice questions", self.practice_seconds),
            (self.comprehension, "comprehension question", "comprehension questions", COMPREHENSION_SECONDS),
            (self.explanations, "explanation", "explanations", EXPLANATION_SECONDS),
        ):
            if count:
                parts.append(f"{count} {one if count == 1 else many} × ~{seconds} s")
        return f"{' + '.join(parts)} + {setup:g} min consent and instructions ≈ {self.minutes} min"


def time_estimate(answers: int, answer_time: AnswerTime) -> TimeEstimate:
    return TimeEstimate(answers=answers, seconds_per_answer=answer_time.seconds, source=answer_time.source)


def explanations_asked(mode: str, every: int, answers: int) -> int:
    """How many "why?" boxes a participant of `answers` answers meets: one per answer ("every"),
    one per `every`th ("nth"), one after the last ("end") or none ("off")."""
    if mode == "every":
        return answers
    if mode == "nth":
        return answers // max(every, 1)
    return 1 if mode == "end" else 0


def with_training(estimate: TimeEstimate, *, practice: int, comprehension: int, explanations: int) -> TimeEstimate:
    """`estimate` with the practice questions, comprehension questions and explanations added."""
    return replace(estimate, practice=practice, comprehension=comprehension, explanations=explanations)
