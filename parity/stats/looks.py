"""Recruiting until precise by planned looks: a fixed-width 95% interval of human accuracy, with the
number of participants set at a few planned looks from the spread of their accuracies alone.

The rule (Stein's two-stage fixed-width interval, "A two-sample test for a linear hypothesis whose
power is independent of the variance", Ann. Math. Statist. 16, 1945, taken to three looks as in
Hall, "Asymptotic theory of triple sampling for sequential estimation of a mean", Ann. Statist. 9,
1981), for a target width W:

- look 1 at `FIRST_LOOK` kept participants: their accuracies' sample SD s₁ asks for
  N₁ = ⌈(2 t₁ s₁ / W)²⌉ participants, t₁ the 98% quantile of Student's t with n₁ − 1 degrees of
  freedom (`LOOK_CONFIDENCE`). If n₁ ≥ N₁ the study stops there;
- look 2 at n₂ = max(n₁ + 1, ⌈`INTERIM_SHARE` · N₁⌉): s₂ (over all n₂) asks for N₂ in the same way,
  with n₂ − 1 degrees of freedom. If n₂ ≥ N₂ the study stops there;
- look 3, the last, at N₂: the study stops.

The interval printed at the stop is the mean accuracy of every kept participant ± W/2: exactly W
points wide, never wider than asked (`fixed_width_interval`).

Why it covers. The looks depend on the accuracies' spread alone, never on their mean: for normal
values the sample mean is independent of every sample variance taken along the way (each is a
function of differences between values), so the mean at the stop is N(μ, σ²/N) whatever N the looks
chose, and a t quantile on the variance's degrees of freedom makes N large enough often enough
(Stein's argument, exact at two looks). Accuracies are not normal, and near the ceiling they are
skewed (a sample that misses the low tail has both a small SD and a high mean), which a stop on the
spread picks up; `perf/calibration/recruitment.py` measures the coverage at the stop at each layout.

Why not α split over the looks. A Bonferroni split of α over five looks, stopping at the first look
whose t-interval at level 1 − α/5 is narrow enough, needs (2.576 / 1.96)² = 1.73 times the
participants of a 95% interval for its quantile alone; its union bound protects against any stop,
the estimate's included, which looks that read the spread alone do not need. What the looks do
risk: a look that stops on its own spread (the first or the second) stops more often when that
spread happens to be small, the selection that made a t-interval checked after each completion
cover 80–91%. With three looks there are only two such chances, the printed interval's width is
the target and not a small SD's, and the looks ask for a 96% t quantile on their degrees of freedom
and wait for 20 people before the first: the margin, measured at 94.6–96.7% coverage at the stop
(docs/results.md, "The price of precision").

Why the estimate must never stop it: a stop taken because the mean looks good (or bad) is not one of
these looks, and nothing above holds for it. Only the anytime-valid confidence sequence
(`parity.stats.sequences`) survives a stop at any time for any reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from parity.stats.bootstrap import DEFAULT_CONFIDENCE, Interval
from parity.stats.distributions import chi2_quantile, t_quantile

#: kept participants at the first look (with fewer, near the ceiling a first look whose SD happened to
#: be small stopped the study too soon)
FIRST_LOOK = 20
#: the looks ask for the n of a t-interval at this level, a little above the 95% printed: the margin
#: against the skew of accuracies near the ceiling (docs/results.md)
LOOK_CONFIDENCE = 0.96
#: the second look comes at this share of what the first look asked for (the rest is decided on the
#: spread of more participants, so the last look's variance has more degrees of freedom)
INTERIM_SHARE = 0.7
#: looks at most: the first, the interim, the last
LOOKS = 3


@dataclass(frozen=True)
class Look:
    """One look: the kept participants it read and what their spread asks for."""

    number: int  # 1, 2, 3
    n: int  # kept participants at the look (the first n in completion order)
    sd: float  # their accuracies' sample SD (n − 1)
    needed: int  # participants the target needs by this look's spread


@dataclass(frozen=True)
class LookPlan:
    """Where the looks stand, replayed from the accuracies in the order the participants completed."""

    width: float  # the target, in points
    looks: tuple[Look, ...]
    #: kept participants the next look reads; None once stopped
    next_n: int | None
    #: kept participants at the look that stopped the study; None while recruiting
    stopped_at: int | None

    @property
    def stopped(self) -> bool:
        return self.stopped_at is not None


@dataclass(frozen=True)
class Forecast:
    """Kept participants the target width is expected to need, from the spread so far, with a 95%
    range from the variance's chi-square interval."""

    kept: int  # kept participants so far
    sd: float
    expected: int
    low: int
    high: int


def _t_quantile(df: int, confidence: float) -> float:
    return t_quantile(0.5 + confidence / 2.0, df)


def _sd(values: Sequence[float]) -> float:
    n = len(values)
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def needed(sd: float, n: int, width: float, confidence: float = LOOK_CONFIDENCE) -> int:
    """Participants a spread `sd` (of accuracies in 0–1) from `n` of them asks for, for an interval
    `width` points wide: ⌈(2 t_{n−1} sd / W)²⌉."""
    half = width / 200.0
    return math.ceil((_t_quantile(n - 1, confidence) * sd / half) ** 2 - 1e-9)


def _check(width: float, first: int) -> None:
    if not width > 0:
        raise ValueError(f"the target width must be positive, got {width}")
    if first < 2:
        raise ValueError("the first look needs at least two participants")


def planned_looks(
    accuracies: Sequence[float],
    width: float,
    *,
    first: int = FIRST_LOOK,
    share: float = INTERIM_SHARE,
    confidence: float = LOOK_CONFIDENCE,
) -> LookPlan:
    """The looks taken so far on `accuracies` (kept participants, in the order they completed), for
    a target `width` in points. Each look reads the first n of them only, so the plan is the same
    whoever replays it and whenever."""
    _check(width, first)
    looks: list[Look] = []
    at = first
    while len(looks) < LOOKS and len(accuracies) >= at:
        number = len(looks) + 1
        if number == LOOKS:
            looks.append(Look(number, at, _sd(accuracies[:at]), at))
            return LookPlan(width, tuple(looks), None, at)
        sd = _sd(accuracies[:at])
        asks = needed(sd, at, width, confidence)
        looks.append(Look(number, at, sd, asks))
        if at >= asks:
            return LookPlan(width, tuple(looks), None, at)
        at = max(at + 1, math.ceil(share * asks - 1e-9)) if number == 1 else asks
    return LookPlan(width, tuple(looks), at, None)


def fixed_width_interval(accuracies: Sequence[float], width: float) -> Interval | None:
    """The interval printed for a study recruited by planned looks: the mean accuracy ± W/2, cut to
    [0, 1]. None without participants."""
    if not accuracies:
        return None
    mean = sum(accuracies) / len(accuracies)
    half = width / 200.0
    return Interval(low=max(mean - half, 0.0), high=min(mean + half, 1.0))


def forecast(accuracies: Sequence[float], width: float, *, confidence: float = LOOK_CONFIDENCE) -> Forecast | None:
    """Kept participants the target is expected to need, from the spread of those so far: the last
    look's formula at the current SD (never fewer than are already kept), and a 95% range from
    the chi-square interval of the variance; never fewer than the first look reads. None with fewer
    than two participants or no spread (the spread says nothing yet)."""
    n = len(accuracies)
    if n < 2 or not width > 0:
        return None
    sd = _sd(accuracies)
    if sd < 1e-9:  # equal accuracies, up to rounding
        return None
    tail = (1.0 - DEFAULT_CONFIDENCE) / 2.0  # the range: 95%
    low_sd = sd * math.sqrt((n - 1) / chi2_quantile(1.0 - tail, n - 1))
    high_sd = sd * math.sqrt((n - 1) / chi2_quantile(tail, n - 1))
    return Forecast(
        kept=n,
        sd=sd,
        expected=max(n, FIRST_LOOK, needed(sd, n, width, confidence)),
        low=max(n, FIRST_LOOK, needed(low_sd, n, width, confidence)),
        high=max(n, FIRST_LOOK, needed(high_sd, n, width, confidence)),
    )
