"""How long one participant takes, estimated from a study's design (pure Python: no Django import).

A benchmark says how many answers one participant gives under a design
(`Benchmark.answers_per_participant`) and how long one answer takes (`Benchmark.answer_time`, with
where the figure comes from); reading the consent and the instructions adds `SETUP_SECONDS`.
Prolific judges the pay on the *median* completion time, so the figures lean long: a study
estimated too short pays less than the hourly rate it promises.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: reading the consent form and the instructions, and the first clicks: two minutes (AmbiBench's
#: participants took 4-8 minutes for a 20-sentence episode, consent and instructions included)
SETUP_SECONDS = 120


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

    @property
    def minutes(self) -> int:
        """Whole minutes, rounded up: Prolific takes the time in minutes."""
        return max(1, math.ceil((self.answers * self.seconds_per_answer + self.setup_seconds) / 60))

    def __str__(self) -> str:
        setup = self.setup_seconds / 60
        return (
            f"{self.answers} answer{'s' if self.answers != 1 else ''} × ~{self.seconds_per_answer} s"
            f" + {setup:g} min consent and instructions ≈ {self.minutes} min"
        )


def time_estimate(answers: int, answer_time: AnswerTime) -> TimeEstimate:
    return TimeEstimate(answers=answers, seconds_per_answer=answer_time.seconds, source=answer_time.source)
