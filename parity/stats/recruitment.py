"""Recruiting until precise: what to do next with a study's places, from where the study stands.

A study may set a target: the 95% confidence sequence of human accuracy no wider than `value`
points ("ci_width"), or `value` completions in every unit ("per_unit"). Places are raised `step` at a time, once every
place is taken (completed or someone working on it), never beyond what the budget pays for nor
beyond the places the study's units hold; the study stops when the target is met, or when no
place can be added and every place is taken.

A "ci_width" target is met by one of two rules, the study's choice (`Target.rule`):

- planned looks (`PLANNED_LOOKS`, the default for a new study): the places go straight to the number
  of kept participants the next of three looks reads, set by the spread of the accuracies so far and
  never by their mean (`parity.stats.looks`); the study stops at the look that says enough, and the
  interval printed is the mean ± half the target (`fixed_width_interval`). It needs 1.14–1.21 times the
  participants a fixed n that knew the variance would, and covers 94.6–96.7% at the stop (for a
  10-point target; docs/results.md, "The price of precision"), but it is valid only if
  the study stops at its looks: never stop it early because the estimate looks good;
- the confidence sequence (`SEQUENCE`), for a study that must be free to stop at any time:

The width is judged on an anytime-valid confidence sequence (`parity.stats.sequences`) over the
participants' accuracies in the order they completed, not on the t-interval: the rule looks after
every completion and stops at the first narrow one, and a t-interval is narrow when the sample std
happens to be small, so at the stop it covers 80–91% instead of 95%. The sequence covers at any
stopping time, and it is the interval the results print for a study recruited this way
(`precision_interval`).

Cost: reward × places. Prolific adds its service fee on top; its share is not fixed here, so a
budget meant to include the fee should be set lower by that share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from parity.stats.bootstrap import Interval
from parity.stats.looks import FIRST_LOOK, LookPlan

CI_WIDTH = "ci_width"
PER_UNIT = "per_unit"
KINDS = (CI_WIDTH, PER_UNIT)
#: how a "ci_width" target is met: planned looks (the default for a new study), or the anytime-valid
#: confidence sequence checked after every completion
PLANNED_LOOKS, SEQUENCE = "planned_looks", "confidence_sequence"
RULES = (PLANNED_LOOKS, SEQUENCE)

WAIT, RAISE, STOP = "wait", "raise", "stop"


@dataclass(frozen=True)
class Standing:
    """Where the study stands now."""

    completed: int  # completed participants, excluded ones too (their places were used and paid)
    working: int  # participants working on a place now
    places: int  # places on Prolific
    ci_width: float | None = None  # points (0-100) of `precision_interval`; None while undefined
    least_per_unit: int = 0  # completed, kept participants in the unit that has fewest
    recruiting: bool = True  # the study is published and not stopped
    kept: int = 0  # completed, kept participants
    #: the planned looks replayed on the kept participants' accuracies (a "planned_looks" rule only)
    looks: LookPlan | None = None


@dataclass(frozen=True)
class Target:
    kind: str
    value: float
    step: int
    max_spend_pence: int
    reward_pence: int
    capacity: int | None = None  # the places the study's units hold (Parity turns away anyone beyond)
    rule: str = SEQUENCE  # how a "ci_width" target is met (PLANNED_LOOKS or SEQUENCE)

    @property
    def by_looks(self) -> bool:
        return self.kind == CI_WIDTH and self.rule == PLANNED_LOOKS


@dataclass(frozen=True)
class Decision:
    action: str  # wait, raise or stop
    places: int  # the places after the decision
    reason: str
    budget_reached: bool = False  # the budget (or the units' capacity) stopped recruitment before the target


def affordable_places(max_spend_pence: int, reward_pence: int) -> int:
    """The most places the budget pays for (reward × places ≤ budget)."""
    return max_spend_pence // reward_pence if reward_pence > 0 else 0


def precision_interval(accuracies: Sequence[float]) -> Interval | None:
    """The 95% interval of human accuracy a "ci_width" target is judged on, and the one printed for a
    study recruited under it: the confidence sequence over the participants' accuracies, given in the
    order they completed, at the last of them. None with fewer than two participants (one says
    nothing of the spread, and the rule would not stop on it)."""
    from parity.stats.sequences import confidence_sequence  # numpy: loaded by those who compute

    return confidence_sequence(accuracies) if len(accuracies) >= 2 else None


def precision_widths(accuracies: Sequence[float]) -> list[float | None]:
    """The width in points of `precision_interval` after each completion, in one pass: entry k is
    `interval_width(precision_interval(accuracies[: k + 1]))` (the sequence at a time uses the values
    up to it only)."""
    from parity.stats.sequences import confidence_sequence_path  # numpy: loaded by those who compute

    low, high = confidence_sequence_path(accuracies)
    return [None if k < 1 else max(float(high[k] - low[k]), 0.0) * 100 for k in range(len(accuracies))]


def interval_width(interval: Interval | None) -> float | None:
    """An interval's width in points (0–100); None for no interval."""
    return (interval.high - interval.low) * 100 if interval is not None else None


def target_met(standing: Standing, target: Target) -> bool:
    if target.by_looks:
        return standing.looks is not None and standing.looks.stopped
    if target.kind == CI_WIDTH:
        return standing.ci_width is not None and standing.ci_width <= target.value
    return standing.least_per_unit >= target.value


def describe(target: Target) -> str:
    if target.by_looks:
        return f"95% interval of human accuracy {target.value:g} points wide, by planned looks"
    if target.kind == CI_WIDTH:
        return f"95% confidence sequence of human accuracy at most {target.value:g} points wide"
    return f"{target.value:g} completions in every unit"


def next_action(standing: Standing, target: Target) -> Decision:
    """Wait, raise the places to N, or stop (target met, or budget reached)."""
    if target.kind not in KINDS:
        raise ValueError(f"unknown target kind {target.kind!r}: use one of {', '.join(KINDS)}")
    if target.rule not in RULES:
        raise ValueError(f"unknown rule {target.rule!r}: use one of {', '.join(RULES)}")
    places = standing.places
    if not standing.recruiting:
        return Decision(WAIT, places, "the study is not recruiting on Prolific")
    if target_met(standing, target):
        if target.by_looks and standing.looks is not None:
            look = standing.looks.looks[-1]
            return Decision(
                STOP, places, f"target met: {describe(target)} (look {look.number} at {look.n} kept participants)"
            )
        return Decision(STOP, places, f"target met: {describe(target)}")
    taken = standing.completed + standing.working
    if taken < places:
        return Decision(WAIT, places, f"{places - taken} of {places} {'place' if places == 1 else 'places'} still open")
    ceiling = affordable_places(target.max_spend_pence, target.reward_pence)
    limit = "budget"
    if target.capacity is not None and target.capacity < ceiling:
        ceiling, limit = target.capacity, "units' capacity"
    if places >= ceiling:
        spent = places * target.reward_pence
        return Decision(
            STOP,
            places,
            f"{limit} reached before the target ({describe(target)}): {places} places, "
            f"£{spent / 100:.2f} of £{target.max_spend_pence / 100:.2f}",
            budget_reached=True,
        )
    if target.by_looks:
        # straight to the places the next look needs: those working may still complete, and an
        # excluded participant's place was used
        plan = standing.looks
        wanted = plan.next_n if plan is not None and plan.next_n is not None else FIRST_LOOK
        number = len(plan.looks) + 1 if plan is not None else 1
        if standing.kept + standing.working >= wanted:
            return Decision(
                WAIT, places, f"look {number} reads {wanted} kept participants: {standing.working} still working"
            )
        asked = places + wanted - standing.kept - standing.working
        raised = min(asked, ceiling)
        capped = f" (the {limit} allows no more)" if raised < asked else ""
        return Decision(
            RAISE,
            raised,
            f"every place taken; look {number} reads {wanted} kept participants ({standing.kept} so far): "
            f"raise to {raised}{capped}",
        )
    raised = min(places + max(target.step, 1), ceiling)
    capped = f" (the {limit} allows no more)" if raised < places + target.step else ""
    return Decision(RAISE, raised, f"every place taken, target not met: raise to {raised}{capped}")
