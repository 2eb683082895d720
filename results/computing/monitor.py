"""The monitor's figures for watching a running study (`monitor_of`), from what
`results.loading.monitor` read of it: the page, its fragment and the API read them by attribute.

The rules themselves (3-SD fast completions, fast items, straight-lining, pay, warnings) are pure, in
`parity.stats.quality`. Imported participants (a published study's answers) are left out: they
have no real times.

"Working now" counts active participants seen within the study's reservation timeout; an active
participant silent for longer is counted as timed out, although their row is only marked so when
the next participant enters (`reservations_reclaim`): the monitor reads and never writes.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median

from parity import panels
from parity.stats import quality
from prolific.monitor import ProlificStanding, RecruitmentMonitor
from results.loading.monitor import AnswerRow, MonitorData, MonitorPerson, MonitorUnit
from studies.models import Participant, Study
from studies.participants.quality import FLAGS, Answers, evidence, stored_flags, study_flags

#: answers per minute are counted over this recent window
RATE_WINDOW = timedelta(minutes=5)
Status = Participant.Status


@dataclass(frozen=True)
class Counts:
    arrivals: int
    working: int
    completed: int
    timed_out: int
    returned: int
    declined: int
    screened_out: int
    excluded: int


@dataclass(frozen=True)
class UnitFill:
    label: str
    category: str
    capacity: int
    #: completed and not excluded
    completed: int
    working: int
    excluded: int
    #: completed and not excluded, or working now
    filled: int
    fill_share: float | None


@dataclass(frozen=True)
class CategoryFill:
    category: str
    capacity: int
    completed: int
    working: int
    filled: int
    fill_share: float | None


@dataclass(frozen=True)
class Pay:
    reward_pence: int
    #: the workspace's currency once Prolific gave it, its default until then
    currency: str
    completions: int
    median_minutes: float | None
    hourly_pence: float | None
    minimum_pence: int
    recommended_pence: int
    verdict: str
    too_few_completions: bool


@dataclass(frozen=True)
class Attention:
    checks_per_participant: int
    exclude_at: int
    participants_failing: int
    failures: int


@dataclass(frozen=True)
class Rules:
    """The rules in words, from their parameters."""

    straight_lining: str


@dataclass(frozen=True)
class Flagged:
    id: int
    pseudonym: str
    status: str
    excluded: bool
    flags: list[str]
    reasons: list[str]


@dataclass(frozen=True)
class DropOff:
    position: int
    #: participants shown the item at this position
    reached: int
    #: returned or timed out with this item as their next
    left: int


@dataclass(frozen=True)
class Rate:
    window_minutes: int
    answers: int
    per_minute: float
    last_answer_at: datetime | None


@dataclass(frozen=True)
class TimePoint:
    at: datetime
    arrivals: int
    completions: int


@dataclass(frozen=True)
class Monitor:
    generated_at: datetime
    counts: Counts
    units: list[UnitFill]
    categories: list[CategoryFill]
    pay: Pay
    attention: Attention
    #: every flag of `studies.participants.quality.FLAGS`, with how many participants carry it
    flag_counts: dict[str, int]
    rules: Rules
    flagged: list[Flagged]
    drop_off: list[DropOff]
    items_with_invalid_answers: list[quality.ItemAnswers]
    rate: Rate
    timeline: list[TimePoint]
    #: recruiting until precise on Prolific (`prolific.monitor.recruitment_monitor`); None without a target
    recruitment: RecruitmentMonitor | None
    #: the study on Prolific (`prolific.monitor.prolific_standing`); None when it is not there
    prolific: ProlificStanding | None
    warnings: list[str]


# -- the monitor ------------------------------------------------------------------------------


def _left(person: MonitorPerson, cutoff: datetime) -> bool:
    """Returned or timed out (an active participant silent past the timeout counts as timed out)."""
    return person.status in (Status.RETURNED, Status.TIMED_OUT) or _stale(person, cutoff)


def _stale(person: MonitorPerson, cutoff: datetime) -> bool:
    return person.status == Status.ACTIVE and person.last_seen_at < cutoff


def _counts(people: Sequence[MonitorPerson], cutoff: datetime) -> Counts:
    statuses = Counter(person.status for person in people)
    stale = sum(_stale(person, cutoff) for person in people)
    return Counts(
        arrivals=len(people),
        working=statuses[Status.ACTIVE] - stale,
        completed=statuses[Status.COMPLETED],
        timed_out=statuses[Status.TIMED_OUT] + stale,
        returned=statuses[Status.RETURNED],
        declined=statuses[Status.DECLINED],
        screened_out=statuses[Status.SCREENED_OUT],
        excluded=sum(person.excluded for person in people),
    )


def _units(units: Sequence[MonitorUnit], people: Sequence[MonitorPerson], cutoff: datetime) -> list[UnitFill]:
    rows = []
    for unit in units:
        mine = [person for person in people if person.unit_id == unit.id]
        completed = sum(p.status == Status.COMPLETED and not p.excluded for p in mine)
        working = sum(p.status == Status.ACTIVE and not _stale(p, cutoff) for p in mine)
        rows.append(
            UnitFill(
                label=unit.label,
                category=unit.category,
                capacity=unit.capacity,
                completed=completed,
                working=working,
                excluded=sum(p.excluded for p in mine),
                filled=completed + working,
                fill_share=(completed + working) / unit.capacity if unit.capacity else None,
            )
        )
    return rows


_SUMMED = ("capacity", "completed", "working", "filled")


def _categories(units: Sequence[UnitFill]) -> list[CategoryFill]:
    if not any(unit.category for unit in units):
        return []
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for unit in units:
        totals[unit.category].update({key: getattr(unit, key) for key in _SUMMED})
    return [
        CategoryFill(
            category=name,
            capacity=total["capacity"],
            completed=total["completed"],
            working=total["working"],
            filled=total["filled"],
            fill_share=total["filled"] / total["capacity"] if total["capacity"] else None,
        )
        for name, total in sorted(totals.items())
    ]


def pay_floor(study: Study) -> quality.PayFloor:
    """The rates the study's pay is judged against: its panel's (`parity.panels`); Prolific's as before."""
    if study.panel == panels.PROLIFIC:
        return quality.PROLIFIC_FLOOR
    found = study.recruiting_panel
    least = found.minimum_pay
    return quality.PayFloor(
        panel=found.name,
        minimum=least.minor_per_hour if least else None,
        recommended=least.recommended_per_hour if least else None,
        symbol=panels.SYMBOLS[found.currency],
    )


def _pay(study: Study, seconds: list[float], currency: str) -> Pay:
    middle = median(seconds) if seconds else None
    hourly = quality.hourly_pence(study.reward_pence, middle)
    floor = pay_floor(study)
    return Pay(
        reward_pence=study.reward_pence,
        # a panel of its own currency (Connect, MTurk: US dollars) pays in it; Prolific's is its workspace's
        currency=currency if study.panel == panels.PROLIFIC else study.recruiting_panel.currency,
        completions=len(seconds),
        median_minutes=middle / 60 if middle is not None else None,
        hourly_pence=hourly,
        minimum_pence=floor.minimum or 0,
        recommended_pence=floor.recommended or 0,
        verdict=quality.pay_verdict(hourly, floor.minimum, floor.recommended),
        too_few_completions=0 < len(seconds) < quality.PAY_MIN_COMPLETIONS,
    )


#: the steps of those who never saw an item (the training's included)
BEFORE_THE_ITEMS = (
    Participant.Step.CONSENT,
    Participant.Step.INSTRUCTIONS,
    Participant.Step.DECLINED,
    Participant.Step.PRACTICE,
    Participant.Step.COMPREHENSION,
    Participant.Step.SCREENED_OUT,
)


def _drop_off(people: Sequence[MonitorPerson], longest: int, cutoff: datetime) -> list[DropOff]:
    """Per item position: participants who were shown it, and those who left while it was their next."""
    began = [p for p in people if p.step not in BEFORE_THE_ITEMS]
    left = Counter(p.answered + 1 for p in began if _left(p, cutoff))
    reached = Counter(p.answered for p in began)
    rows, still = [], len(began)
    for position in range(1, max(longest, max(left, default=0)) + 1):
        rows.append(DropOff(position=position, reached=still, left=left[position]))
        still -= reached[position - 1]  # those who answered exactly position - 1 items go no further
    return rows


def _timeline(people: Sequence[MonitorPerson]) -> list[TimePoint]:
    """Cumulative arrivals and completions at each arrival or completion, oldest first."""
    events = sorted([(p.started_at, 1, 0) for p in people] + [(p.completed_at, 0, 1) for p in people if p.completed_at])
    points, arrived, completed = [], 0, 0
    for at, arrival, completion in events:
        arrived, completed = arrived + arrival, completed + completion
        points.append(TimePoint(at=at, arrivals=arrived, completions=completed))
    return points


def _items(rows: list[AnswerRow]) -> list[quality.ItemAnswers]:
    per_item = Counter((row.item_key, row.valid) for row in rows)
    return [
        quality.ItemAnswers(key, per_item[(key, True)] + per_item[(key, False)], per_item[(key, False)])
        for key in sorted({row.item_key for row in rows})
    ]


def _rate(rows: list[AnswerRow], now: datetime) -> Rate:
    recent = sum(row.answered_at >= now - RATE_WINDOW for row in rows)
    minutes = RATE_WINDOW.total_seconds() / 60
    return Rate(
        window_minutes=int(minutes),
        answers=recent,
        per_minute=recent / minutes,
        last_answer_at=max((row.answered_at for row in rows), default=None),
    )


def _flagged(
    people: Sequence[MonitorPerson], computed: dict[int, list[str]], answers: dict[int, Answers]
) -> list[Flagged]:
    """Each flagged participant with their flags, those computed here and those kept on them
    (model-likeness, `results.computing.quality`), and each flag's evidence in words, with its figures
    (those of the page's behaviour from the participant's `answers`)."""
    rows = []
    for p in people:
        signals = p.review_signals or {}
        flags = [*computed.get(p.id, []), *(n for n in stored_flags(signals) if n not in computed.get(p.id, []))]
        if flags:
            given = answers.get(p.id)
            figures = given.evidence() if given is not None else {}
            rows.append(
                Flagged(
                    id=p.id,
                    pseudonym=p.pseudonym,
                    status=p.status,
                    excluded=p.excluded,
                    flags=flags,
                    reasons=[evidence(name, signals, figures) for name in flags],
                )
            )
    return rows


def monitor_of(data: MonitorData, *, now: datetime) -> Monitor:
    """Everything the monitor shows of the study of `data` at `now`."""
    study, people, rows = data.study, data.people, data.rows
    cutoff = now - timedelta(minutes=study.reservation_timeout_minutes)
    completion_seconds = {
        p.id: (p.completed_at - p.started_at).total_seconds()
        for p in people
        if p.completed_at and p.status == Status.COMPLETED
    }
    flagged = _flagged(people, study_flags(completion_seconds, data.answers), data.answers)
    counted = Counter(flag for row in flagged for flag in row.flags)
    items = _items(rows)
    unit_rows = _units(data.units, people, cutoff)
    positions = _drop_off(people, max((row.position for row in rows), default=0), cutoff)
    pay = _pay(study, list(completion_seconds.values()), data.currency)
    finished = [p for p in people if p.status == Status.COMPLETED]
    return Monitor(
        generated_at=now,
        counts=_counts(people, cutoff),
        units=unit_rows,
        categories=_categories(unit_rows),
        pay=pay,
        attention=Attention(
            checks_per_participant=study.attention_checks,
            exclude_at=study.exclude_at,
            participants_failing=sum(p.attention_failures > 0 for p in people),
            failures=sum(p.attention_failures for p in people),
        ),
        flag_counts={name: counted[name] for name in FLAGS},
        rules=Rules(straight_lining=quality.straight_lining_rule()),
        flagged=flagged,
        drop_off=positions,
        items_with_invalid_answers=[item for item in sorted(items, key=lambda i: (-i.invalid, i.key)) if item.invalid],
        rate=_rate(rows, now),
        timeline=_timeline(people),
        recruitment=data.recruitment,
        prolific=data.prolific,
        warnings=[
            *quality.warnings(
                items=items,
                positions=[quality.PositionDropOff(row.position, row.reached, row.left) for row in positions],
                units=[quality.UnitFill(u.label, u.capacity, u.filled) for u in unit_rows],
                pence_per_hour=pay.hourly_pence,
                median_minutes=pay.median_minutes,
                fast=sum(1 for row in flagged if {"fast_completion", "fast_items"} & set(row.flags)),
                straight=counted["straight_lining"],
                pasted=counted["pasted"],
                left_tab=counted["left_tab"],
                canary=counted["canary"],
                bots=sum(1 for row in flagged if {"honeypot", "bot_speed"} & set(row.flags)),
                failing_attention=sum(p.attention_failures > 0 for p in finished),
                finished=len(finished),
                floor=pay_floor(study),
            ),
            *filter(None, [data.prolific_flags]),
        ],
    )
