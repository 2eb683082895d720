"""Data-quality rules for a running study: fast responders, straight-lining, pay, and the warnings a
researcher should read within a minute of a problem appearing.

Pure: plain numbers in, plain numbers and sentences out.

The rules, as the monitor and the admin apply them:

- **Fast completion** (Prolific's only allowed speed criterion): a completion time more than 3
  standard deviations (sample SD) below the mean completion time of the study's completed
  participants. With one fast participant among n, their distance from the mean is at most
  (n-1)/sqrt(n) SDs, so the rule cannot flag anyone before 11 completions.
- **Fast items**: the participant's median time per item (study items, attention checks left out)
  is under `ITEM_TIME_FLOOR_MS`, over at least `MIN_ITEM_ANSWERS` answers. Half their answers took
  less than the time it takes to read a short item and press a key.
- **Straight-lining**: one answer to at least `STRAIGHT_SHARE` of at least `MIN_STRAIGHT_ANSWERS`
  study items, where the gold of those same items gives that answer to fewer than `STRAIGHT_SHARE`
  of them. Near-constant answering, not only an unbroken run: "yes" to 14 of 15 items is the same
  behaviour as to 15 of 15. The gold guards the other way: items whose right answers are themselves
  near-constant would flag someone answering them right, so those are left alone.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import mean, median, stdev
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

#: Prolific's floor and recommendation, in pence per hour (GBP), judged on the median completion time
MINIMUM_PENCE_PER_HOUR = 600
RECOMMENDED_PENCE_PER_HOUR = 900
#: the median of fewer completions says little about the pay (one test run of 6 s makes £378/h)
PAY_MIN_COMPLETIONS = 5
FAST_SD = 3.0
ITEM_TIME_FLOOR_MS = 1500
MIN_ITEM_ANSWERS = 3
MIN_STRAIGHT_ANSWERS = 5
STRAIGHT_SHARE = 0.9

#: an item is reported as broken when at least this many answers came and this share of them were invalid
BROKEN_ITEM_MIN_ANSWERS = 3
BROKEN_ITEM_INVALID_SHARE = 0.5
#: a position is reported when at least this many left there and this share of those who reached it
DROP_OFF_MIN_LEFT = 3
DROP_OFF_SHARE = 0.25
#: a unit is reported as not filling when the study is at least this full and the unit under half its share
LAGGING_STUDY_FILL = 0.25


def fast_completions(seconds: Mapping[K, float], *, sd_limit: float = FAST_SD) -> set[K]:
    """Who completed more than `sd_limit` sample SDs faster than the mean of everyone given."""
    if len(seconds) < 3:
        return set()
    values = list(seconds.values())
    spread = stdev(values)
    if spread == 0:
        return set()
    limit = mean(values) - sd_limit * spread
    return {key for key, value in seconds.items() if value < limit}


def fast_items(
    durations_ms: Mapping[K, Sequence[int]], *, floor_ms: int = ITEM_TIME_FLOOR_MS, min_answers: int = MIN_ITEM_ANSWERS
) -> set[K]:
    """Who took under `floor_ms` per item at the median, over at least `min_answers` answers."""
    return {key for key, values in durations_ms.items() if len(values) >= min_answers and median(values) < floor_ms}


@dataclass(frozen=True)
class ModalAnswer:
    """A participant's most frequent answer to study items: given `count` times of `of`, and the
    gold answer of `gold_count` of those same items."""

    answer: str
    count: int
    of: int
    gold_count: int


def modal_answer(answers: Sequence[str], golds: Sequence[str] | None = None) -> ModalAnswer | None:
    """The most frequent of `answers` (None when there is none); `golds`, when given, the items'
    gold answers in the same order (an empty gold, an item without one, never matches)."""
    if not answers:
        return None
    answer, count = Counter(answers).most_common(1)[0]
    gold_count = sum(1 for gold in golds or () if gold and gold == answer)
    return ModalAnswer(answer, count, len(answers), gold_count)


def straight_lining(
    answers: Sequence[str],
    golds: Sequence[str] | None = None,
    *,
    min_answers: int = MIN_STRAIGHT_ANSWERS,
    share: float = STRAIGHT_SHARE,
) -> bool:
    """One answer to at least `share` of at least `min_answers` study items, where `golds` (the
    same items' gold answers) give that answer to fewer than `share` of them."""
    modal = modal_answer(answers, golds)
    if modal is None or modal.of < min_answers:
        return False
    # in whole answers: 0.9 × 10 must be 9, not 9.000000000000002
    needed = math.ceil(round(share * modal.of, 9))
    return modal.count >= needed and modal.gold_count < needed


def straight_lining_rule(*, min_answers: int = MIN_STRAIGHT_ANSWERS, share: float = STRAIGHT_SHARE) -> str:
    """`straight_lining`'s rule in words, from its parameters."""
    return (
        f"one answer to {share:.0%} or more of {min_answers} or more study items (unless it is also "
        f"the gold answer of {share:.0%} or more of them)"
    )


def hourly_pence(reward_pence: int, median_seconds: float | None) -> float | None:
    """The pay per hour a reward makes at the median completion time (None before any completion)."""
    if not median_seconds or median_seconds <= 0:
        return None
    return reward_pence * 3600 / median_seconds


def pay_verdict(
    pence_per_hour: float | None,
    minimum: int | None = MINIMUM_PENCE_PER_HOUR,
    recommended: int | None = RECOMMENDED_PENCE_PER_HOUR,
) -> str:
    """ "below_minimum", "below_recommended", "ok", "no_minimum" (a panel that sets none), or
    "unknown" before any completion; against Prolific's rates unless another panel's are given."""
    if pence_per_hour is None:
        return "unknown"
    if minimum is None:
        return "no_minimum"
    if pence_per_hour < minimum:
        return "below_minimum"
    if recommended is not None and pence_per_hour < recommended:
        return "below_recommended"
    return "ok"


@dataclass(frozen=True)
class PayFloor:
    """Whose rates pay is judged against: the panel's name, its minimum and recommended rates per
    hour in minor units, and its currency's symbol (Prolific's by default)."""

    panel: str = "Prolific"
    minimum: int | None = MINIMUM_PENCE_PER_HOUR
    recommended: int | None = RECOMMENDED_PENCE_PER_HOUR
    symbol: str = "£"


PROLIFIC_FLOOR = PayFloor()


@dataclass(frozen=True)
class ItemAnswers:
    key: str
    answers: int
    invalid: int


@dataclass(frozen=True)
class PositionDropOff:
    position: int
    reached: int
    left: int


@dataclass(frozen=True)
class UnitFill:
    label: str
    capacity: int
    filled: int  # completed and kept, or working now


def broken_items(items: Iterable[ItemAnswers]) -> list[ItemAnswers]:
    return [
        item
        for item in items
        if item.answers >= BROKEN_ITEM_MIN_ANSWERS and item.invalid / item.answers >= BROKEN_ITEM_INVALID_SHARE
    ]


def drop_off_positions(positions: Iterable[PositionDropOff]) -> list[PositionDropOff]:
    return [
        row
        for row in positions
        if row.left >= DROP_OFF_MIN_LEFT and row.reached and row.left / row.reached >= DROP_OFF_SHARE
    ]


def lagging_units(units: Sequence[UnitFill]) -> list[UnitFill]:
    """Units under half the study's fill, once the study is a quarter full (and not full)."""
    capacity = sum(unit.capacity for unit in units)
    if not capacity or len(units) < 2:
        return []
    study_fill = sum(min(unit.filled, unit.capacity) for unit in units) / capacity
    if study_fill < LAGGING_STUDY_FILL or study_fill >= 1:
        return []
    return [unit for unit in units if unit.capacity and unit.filled / unit.capacity < study_fill / 2]


def warnings(
    *,
    items: Sequence[ItemAnswers],
    positions: Sequence[PositionDropOff],
    units: Sequence[UnitFill],
    pence_per_hour: float | None,
    median_minutes: float | None,
    fast: int,
    straight: int,
    pasted: int,
    failing_attention: int,
    finished: int,
    left_tab: int = 0,
    canary: int = 0,
    bots: int = 0,
    floor: PayFloor = PROLIFIC_FLOOR,
) -> list[str]:
    """What a researcher should look at now, in words, the most urgent first; pay against the
    recruiting panel's rates (`floor`: Prolific's unless given)."""
    said: list[str] = []
    if pence_per_hour is not None and median_minutes is not None and floor.minimum is not None:

        def money(amount: float) -> str:
            return f"{floor.symbol}{amount / 100:.2f}"

        rate = f"{money(pence_per_hour)}/h at the median completion time of {median_minutes:.1f} min"
        if pence_per_hour < floor.minimum:
            said.append(
                f"Pay is below {floor.panel}'s minimum: {rate} (minimum {money(floor.minimum)}/h). "
                "Raise the reward or shorten the study."
            )
        elif floor.recommended is not None and pence_per_hour < floor.recommended:
            said.append(
                f"Pay is below {floor.panel}'s recommended rate: {rate} (recommended {money(floor.recommended)}/h)."
            )
    for item in broken_items(items):
        said.append(f"Item {item.key} may be broken: {item.invalid} of {item.answers} answers to it are invalid.")
    for row in drop_off_positions(positions):
        said.append(
            f"Participants leave at item position {row.position}: {row.left} of the {row.reached} who "
            "reached it left there."
        )
    for unit in lagging_units(units):
        said.append(
            f"Unit {unit.label} is not filling: {unit.filled} of {unit.capacity} places taken while the "
            "other units fill."
        )
    if finished and failing_attention / finished >= 0.2:
        said.append(
            f"{failing_attention} of {finished} participants failed an attention check: check that the "
            "checks read clearly."
        )
    flagged = [
        f"{count} {what}"
        for count, what in (
            (fast, "fast"),
            (straight, "straight-lining"),
            (pasted, "pasting"),
            (left_tab, "leaving the tab"),
            (canary, "carrying the canary word"),
            (bots, "bot-like (hidden field or no-script speed)"),
        )
        if count
    ]
    if flagged:
        said.append(f"Flagged for review: {', '.join(flagged)} (see the list below).")
    return said
