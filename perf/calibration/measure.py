"""One line of the calibration table: what was measured, against which target, and how often it hit."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Row:
    layout: str
    #: the figure as the results print it, e.g. "gap CI (people and items)"
    figure: str
    #: "coverage" (an interval contains its target) or "rejection" (a test rejects a true null)
    kind: str
    #: the truth it is measured against, in words
    target: str
    reps: int
    hits: int
    #: 0.95 for a 95% interval's coverage, 0.05 for a test at α = 0.05
    nominal: float
    #: the mean width of the interval (None for a test), in `unit`
    width: float | None = None
    #: anything else worth printing (bias, the share of draws with no figure, …)
    extra: str = ""
    #: "share" (a proportion, printed in points) or the scale's own unit ("SD")
    unit: str = "share"

    @property
    def rate(self) -> float:
        return self.hits / self.reps if self.reps else float("nan")

    @property
    def mc_se(self) -> float:
        return math.sqrt(self.rate * (1.0 - self.rate) / self.reps) if self.reps else float("nan")

    def within(self, tolerance: float) -> bool:
        return abs(self.rate - self.nominal) <= tolerance

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "rate": self.rate, "mc_se": self.mc_se}
