"""What the live monitor shows of a study on Prolific: its standing there beside Parity's own status
(`prolific_standing`), and its recruitment target with the budget, the steps taken and, under planned
looks, the looks and the forecast (`recruitment_monitor`). Typed, for the results' monitor to carry."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from parity.stats.looks import forecast, planned_looks
from parity.stats.recruitment import CI_WIDTH, Target, affordable_places, describe
from prolific.currency import currency_or_default, money
from prolific.models import ProlificFlag, ProlificStudy
from prolific.recruitment import kept_accuracies, recruitment_target
from prolific.selectors import prolific_follow


@dataclass(frozen=True)
class ProlificStanding:
    """The study on Prolific beside Parity's own status, as the monitor shows it."""

    parity_status: str  # Parity's status, in words
    status: str
    status_label: str
    status_at: datetime | None
    synced_at: datetime | None
    places: int
    follow: str  # the move that would follow Parity's status there, in words ("" when none)


def prolific_standing(found: ProlificStudy | None) -> ProlificStanding | None:
    """What the monitor shows of the study on Prolific beside Parity's own status: Prolific's status as
    last given (read back, a transition's answer, a webhook), when, the last pull, and the move that
    would follow Parity's status there (`prolific_follow`). None when the study is not on Prolific."""
    if found is None:
        return None
    follow = prolific_follow(found)
    return ProlificStanding(
        parity_status=found.study.get_status_display(),
        status=found.status,
        status_label=found.get_status_display(),
        status_at=found.status_at,
        synced_at=found.synced_at,
        places=found.places,
        follow=follow.preview if follow is not None else "",
    )


@dataclass(frozen=True)
class SpendAmounts:
    """The budget, what the places commit and what is left, written in the workspace's currency."""

    max_spend: str
    committed: str
    remaining: str


@dataclass(frozen=True)
class PointRow:
    """One recruitment step as the monitor lists it (`RecruitmentPoint`)."""

    at: datetime
    completed: int
    kept: int
    ci_width: float | None
    places: int
    action: str
    reason: str


@dataclass(frozen=True)
class LookRow:
    number: int
    n: int
    needed: int


@dataclass(frozen=True)
class LooksForecast:
    """`parity.stats.looks.Forecast` with what it would cost in rewards."""

    kept: int
    sd: float
    expected: int
    low: int
    high: int
    more: int
    reward_pence: int
    cost: str
    cost_low: str
    cost_high: str
    cost_more: str


@dataclass(frozen=True)
class LooksMonitor:
    """The planned looks so far and the forecast of what the target will take."""

    kept: int
    looks: tuple[LookRow, ...]
    next_look: int | None
    stopped_at: int | None
    forecast: LooksForecast | None


@dataclass(frozen=True)
class RecruitmentMonitor:
    """What the monitor shows of a study's recruitment target, its budget and its steps."""

    target: str  # the target, in words
    rule: str  # the CI-width target's rule; "" for a completions target
    kind: str
    value: float
    step: int
    currency: str
    amounts: SpendAmounts
    places: int
    max_spend_pence: int
    committed_pence: int
    remaining_pence: int
    affordable_places: int
    budget_reached: bool
    points: tuple[PointRow, ...]
    #: under planned looks only (`Target.by_looks`)
    planned: LooksMonitor | None


def recruitment_monitor(prolific_study: ProlificStudy | None) -> RecruitmentMonitor | None:
    """What the monitor shows of a study's recruitment target: None when it has none (or the study is
    not on Prolific)."""
    if prolific_study is None or not prolific_study.target_kind:
        return None
    target = recruitment_target(prolific_study)
    committed = prolific_study.places * target.reward_pence
    remaining = max(target.max_spend_pence - committed, 0)
    return RecruitmentMonitor(
        target=describe(target),
        rule=target.rule if target.kind == CI_WIDTH else "",
        kind=target.kind,
        value=target.value,
        step=target.step,
        currency=currency_or_default(prolific_study.currency),
        amounts=SpendAmounts(
            max_spend=money(target.max_spend_pence, prolific_study.currency),
            committed=money(committed, prolific_study.currency),
            remaining=money(remaining, prolific_study.currency),
        ),
        places=prolific_study.places,
        max_spend_pence=target.max_spend_pence,
        committed_pence=committed,
        remaining_pence=remaining,
        affordable_places=affordable_places(target.max_spend_pence, target.reward_pence),
        budget_reached=prolific_study.flags.filter(kind=ProlificFlag.Kind.BUDGET_REACHED).exists(),
        points=tuple(
            PointRow(
                at=p.at,
                completed=p.completed,
                kept=p.kept,
                ci_width=p.ci_width,
                places=p.places,
                action=p.action,
                reason=p.reason,
            )
            for p in prolific_study.recruitment_points.all()
        ),
        planned=looks_monitor(prolific_study, target) if target.by_looks else None,
    )


def looks_monitor(prolific_study: ProlificStudy, target: Target) -> LooksMonitor:
    """The planned looks so far and the forecast of what the target will take, from the spread of the
    kept participants' accuracies alone: the monitor shows no estimate of accuracy for such a study,
    since a stop taken on it would void the interval (`parity.stats.looks`)."""
    accuracies = kept_accuracies(prolific_study.study_id)
    plan = planned_looks(accuracies, target.value)
    ahead = None if plan.stopped else forecast(accuracies, target.value)
    currency = prolific_study.currency
    return LooksMonitor(
        kept=len(accuracies),
        looks=tuple(LookRow(number=look.number, n=look.n, needed=look.needed) for look in plan.looks),
        next_look=plan.next_n,
        stopped_at=plan.stopped_at,
        forecast=None
        if ahead is None
        else LooksForecast(
            kept=ahead.kept,
            sd=ahead.sd,
            expected=ahead.expected,
            low=ahead.low,
            high=ahead.high,
            more=ahead.expected - ahead.kept,
            reward_pence=target.reward_pence,
            cost=money(ahead.expected * target.reward_pence, currency),
            cost_low=money(ahead.low * target.reward_pence, currency),
            cost_high=money(ahead.high * target.reward_pence, currency),
            cost_more=money((ahead.expected - ahead.kept) * target.reward_pence, currency),
        ),
    )
