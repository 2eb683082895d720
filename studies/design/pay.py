"""What a reward pays per hour, against the recruiting panel's rates (`parity.panels`): Prolific's
by default (see /work/shared/PROLIFIC.md: minimum £6 per hour, recommended £9, judged on the median
completion time), CloudResearch Connect's $7.50 and $10; a panel without a minimum (MTurk, SONA, a
lab's own link) is judged against none."""

from __future__ import annotations

from dataclasses import dataclass

from parity import panels

PROLIFIC_MINIMUM_PENCE_PER_HOUR = 600
PROLIFIC_RECOMMENDED_PENCE_PER_HOUR = 900


def _amount(minor: float, currency: str, digits: int = 2) -> str:
    return f"{panels.SYMBOLS.get(currency, '')}{minor / 100:.{digits}f}"


@dataclass(frozen=True)
class HourlyPay:
    pence_per_hour: float
    #: the panel whose rates it is judged against
    panel: str = panels.PROLIFIC

    @property
    def floor(self) -> panels.MinimumPay | None:
        return panels.get(self.panel).minimum_pay

    @property
    def currency(self) -> str:
        return panels.get(self.panel).currency

    @property
    def below_minimum(self) -> bool:
        return self.floor is not None and self.pence_per_hour < self.floor.minor_per_hour

    @property
    def verdict(self) -> str:
        floor = self.floor
        if floor is None:
            return f"{panels.get(self.panel).name} sets no minimum"
        name = panels.get(self.panel).name
        if self.below_minimum:
            digits = 0 if floor.minor_per_hour % 100 == 0 else 2
            return f"below {name}'s {_amount(floor.minor_per_hour, floor.currency, digits)}/h minimum"
        if self.pence_per_hour < floor.recommended_per_hour:
            digits = 0 if floor.recommended_per_hour % 100 == 0 else 2
            return f"below the recommended {_amount(floor.recommended_per_hour, floor.currency, digits)}/h"
        return "ok"

    def __str__(self) -> str:
        return f"{_amount(self.pence_per_hour, self.currency)}/h"


def hourly_pay(reward_pence: int, minutes: float, panel: str = panels.PROLIFIC) -> HourlyPay:
    return HourlyPay(reward_pence / max(minutes, 1e-9) * 60, panel)


def reward_for(minutes: int, pence_per_hour: int = PROLIFIC_RECOMMENDED_PENCE_PER_HOUR) -> int:
    """The reward in pence that pays `pence_per_hour` for `minutes`, rounded up to the next 5p
    (Prolific's recommended rate by default: its minimum is a floor, not a target)."""
    return -(-minutes * pence_per_hour // 300) * 5
