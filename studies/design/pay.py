"""What a reward pays per hour, against Prolific's rates (see /work/shared/PROLIFIC.md: minimum
£6 per hour, recommended £9, judged on the median completion time)."""

from __future__ import annotations

from dataclasses import dataclass

PROLIFIC_MINIMUM_PENCE_PER_HOUR = 600
PROLIFIC_RECOMMENDED_PENCE_PER_HOUR = 900


@dataclass(frozen=True)
class HourlyPay:
    pence_per_hour: float

    @property
    def below_minimum(self) -> bool:
        return self.pence_per_hour < PROLIFIC_MINIMUM_PENCE_PER_HOUR

    @property
    def verdict(self) -> str:
        if self.below_minimum:
            return f"below Prolific's £{PROLIFIC_MINIMUM_PENCE_PER_HOUR / 100:.0f}/h minimum"
        if self.pence_per_hour < PROLIFIC_RECOMMENDED_PENCE_PER_HOUR:
            return f"below the recommended £{PROLIFIC_RECOMMENDED_PENCE_PER_HOUR / 100:.0f}/h"
        return "ok"

    def __str__(self) -> str:
        return f"£{self.pence_per_hour / 100:.2f}/h"


def hourly_pay(reward_pence: int, minutes: float) -> HourlyPay:
    return HourlyPay(reward_pence / max(minutes, 1e-9) * 60)


def reward_for(minutes: int, pence_per_hour: int = PROLIFIC_RECOMMENDED_PENCE_PER_HOUR) -> int:
    """The reward in pence that pays `pence_per_hour` for `minutes`, rounded up to the next 5p
    (Prolific's recommended rate by default: its minimum is a floor, not a target)."""
    return -(-minutes * pence_per_hour // 300) * 5
