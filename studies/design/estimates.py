"""How long a participant takes under a design, the reward that pays for it, and Prolific's floor.

A study's minutes and reward follow its design's estimate until the researcher gives their own
(the form, the API, `create_study` and a draft's edit alike); a reward under Prolific's minimum,
at the typed minutes or at the design's estimate when that is longer, is refused with the figure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from parity import panels
from parity.benchmarks.base import Benchmark
from parity.benchmarks.timing import TimeEstimate, explanations_asked, with_training
from studies.design.pay import (
    PROLIFIC_RECOMMENDED_PENCE_PER_HOUR,
    hourly_pay,
    reward_for,
)

#: Prolific's longest study, and the form's bound on the minutes
MAX_MINUTES = 600


@dataclass(frozen=True)
class DesignEstimate:
    """How long a participant takes under a design, and the reward paying Prolific's recommended
    rate for that time; a new study's time and reward start from it and the form says how it was made."""

    time: TimeEstimate
    pence_per_hour: int = PROLIFIC_RECOMMENDED_PENCE_PER_HOUR

    @property
    def minutes(self) -> int:
        return self.time.minutes

    @property
    def reward_pence(self) -> int:
        return reward_for(self.time.minutes, self.pence_per_hour)

    @property
    def reward(self) -> Decimal:
        return Decimal(self.reward_pence).scaleb(-2)

    def __str__(self) -> str:
        return f"{self.time}; reward at £{self.pence_per_hour / 100:g}/h: £{self.reward:.2f}"


@dataclass(frozen=True)
class Training:
    """What a participant does besides the items, as the estimate counts it: the practice questions,
    the comprehension questions and when the "why?" box is asked (`Study.explanations`)."""

    practice: int = 0
    comprehension: int = 0
    explanations: str = "off"
    explanation_every: int = 5

    @classmethod
    def of_fields(cls, fields: Mapping[str, Any]) -> Training:
        """From a study's fields as `study_create` and the form take them (the questions parsed);
        practice questions to be drawn count as many as are asked for."""
        practice = len(fields.get("practice_questions") or ()) or int(fields.get("practice_drawn") or 0)
        return cls(
            practice=practice,
            comprehension=len(fields.get("comprehension_questions") or ()),
            explanations=fields.get("explanations") or "off",
            explanation_every=int(fields.get("explanation_every") or 5),
        )

    @classmethod
    def of_study(cls, study: Any) -> Training:
        return cls(
            practice=len(study.practice_questions or ()),
            comprehension=len(study.comprehension_questions or ()),
            explanations=study.explanations,
            explanation_every=study.explanation_every,
        )


def estimate_of(
    definition: Benchmark,
    design: Mapping[str, Any],
    units: Sequence[Sized] | None = None,
    training: Training | None = None,
) -> DesignEstimate | None:
    """The estimate for `design`: from the design alone where it says how many answers a participant
    gives, else from the longest of `units` (attention checks added); None when neither tells. The
    training's questions and the explanations are added at their assumed times (`parity.benchmarks.timing`)."""
    try:
        time = definition.time_estimate(design)
        if time is None and units:
            longest = max(len(unit) for unit in units)
            checks = int(design.get("attention_checks", 0) or 0)
            time = definition.time_estimate(design, answers=longest + checks) if longest else None
    except (TypeError, ValueError, KeyError):
        return None
    if time is None:
        return None
    if training is not None:
        explained = explanations_asked(training.explanations, training.explanation_every, time.answers)
        time = with_training(
            time, practice=training.practice, comprehension=training.comprehension, explanations=explained
        )
    return DesignEstimate(time)


def too_long(estimate: DesignEstimate | None) -> str | None:
    """What is wrong with a design that takes one participant longer than Prolific allows."""
    if estimate is None or estimate.minutes <= MAX_MINUTES:
        return None
    return (
        f"One participant would take about {estimate.minutes:,} minutes under this design "
        f"({estimate.time.answers:,} answers); Prolific allows at most {MAX_MINUTES}: make the units smaller."
    )


def pay_refusal(
    reward_pence: int, minutes: int, estimate: DesignEstimate | None, panel: str = panels.PROLIFIC
) -> str | None:
    """Why a reward is refused, with the figure: under the panel's minimum hourly rate (Prolific's
    unless another panel recruits; none for a panel without one) at the typed minutes, or at the
    design's estimate when that is longer (participants are paid on the time they really take, and
    the estimate is the best figure for it before anyone has taken part)."""
    found = panels.get(panel)
    least_rate = found.minimum_pay
    if least_rate is None:
        return None
    symbol = panels.SYMBOLS[least_rate.currency]
    whole = least_rate.minor_per_hour % 100 == 0
    rate = f"{least_rate.minor_per_hour / 100:.0f}" if whole else f"{least_rate.minor_per_hour / 100:.2f}"
    floor = f"{found.name}'s minimum of {symbol}{rate}/h"
    reward = f"{symbol}{reward_pence / 100:.2f}"
    if estimate is not None and estimate.minutes > minutes:
        pay = hourly_pay(reward_pence, estimate.minutes, panel)
        if pay.below_minimum:
            least = reward_for(estimate.minutes, least_rate.minor_per_hour)
            return (
                f"{reward} for this design's estimated {estimate.minutes} minutes is {pay}, below {floor} "
                f"(though {minutes} minutes were given): pay at least {symbol}{least / 100:.2f}, or make the design "
                "shorter."
            )
    pay = hourly_pay(reward_pence, minutes, panel)
    if pay.below_minimum:
        least = reward_for(minutes, least_rate.minor_per_hour)
        return f"{reward} for {minutes} minutes is {pay}, below {floor}: pay at least {symbol}{least / 100:.2f}."
    return None


def followed_pay(estimate: DesignEstimate | None, minutes: int | None, reward_pence: int | None) -> tuple[int, int]:
    """The minutes and reward of a study given none, one or both: those given are kept; a missing
    time is the design's estimate (without one: 30 minutes), a missing reward pays the recommended
    rate for the time."""
    if minutes is None:
        minutes = estimate.minutes if estimate is not None else 30
    if reward_pence is None:
        reward_pence = reward_for(minutes)
    return minutes, reward_pence
