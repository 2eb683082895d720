"""Reads for watching a running study: the monitor page and its API (`study_monitor`).

Three queries whatever the size of the study: its units, its participants, its answers. The rules
themselves (3-SD fast completions, fast items, straight-lining, pay, warnings) are pure, in
`parity.stats.quality`. Imported participants (a published study's answers) are left out: they
have no real times.

"Working now" counts active participants seen within the study's reservation timeout; an active
participant silent for longer is counted as timed out, although their row is only marked so when
the next participant enters (`reservations_reclaim`): the monitor reads and never writes.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timedelta
from statistics import median
from typing import Any, NamedTuple

from django.utils import timezone

from parity.stats import quality
from prolific.currency import currency_or_default
from prolific.models import ProlificStudy
from prolific.recruitment import recruitment_monitor
from prolific.selectors import prolific_flags_open, prolific_standing, prolific_study_of
from studies.models import Participant, Response, Study, Unit
from studies.participants.flags import FLAGS, Answers, answers_by_participant, evidence, stored_flags, study_flags

#: answers per minute are counted over this recent window
RATE_WINDOW = timedelta(minutes=5)
Status = Participant.Status


class _Row(NamedTuple):
    """One answer, as the monitor reads it (the fields of `_ROW_FIELDS`, in order)."""

    participant_id: int
    answer: str
    raw_answer: str
    is_attention_check: bool
    duration_ms: int
    item_key: str
    position: int
    valid: bool
    answered_at: datetime


_ROW_FIELDS = (
    "participant_id",
    "answer",
    "raw_answer",
    "is_attention_check",
    "duration_ms",
    "item__key",
    "position",
    "valid",
    "answered_at",
)


# -- the monitor ------------------------------------------------------------------------------


def _left(person: Mapping[str, Any], cutoff: datetime) -> bool:
    """Returned or timed out (an active participant silent past the timeout counts as timed out)."""
    return person["status"] in (Status.RETURNED, Status.TIMED_OUT) or _stale(person, cutoff)


def _stale(person: Mapping[str, Any], cutoff: datetime) -> bool:
    return person["status"] == Status.ACTIVE and person["last_seen_at"] < cutoff


def _counts(people: Sequence[Mapping[str, Any]], cutoff: datetime) -> dict[str, int]:
    statuses = Counter(person["status"] for person in people)
    stale = sum(_stale(person, cutoff) for person in people)
    return {
        "arrivals": len(people),
        "working": statuses[Status.ACTIVE] - stale,
        "completed": statuses[Status.COMPLETED],
        "timed_out": statuses[Status.TIMED_OUT] + stale,
        "returned": statuses[Status.RETURNED],
        "declined": statuses[Status.DECLINED],
        "screened_out": statuses[Status.SCREENED_OUT],
        "excluded": sum(person["excluded"] for person in people),
    }


def _units(
    units: Sequence[Mapping[str, Any]], people: Sequence[Mapping[str, Any]], cutoff: datetime
) -> list[dict[str, Any]]:
    rows = []
    for unit in units:
        mine = [person for person in people if person["unit_id"] == unit["id"]]
        completed = sum(p["status"] == Status.COMPLETED and not p["excluded"] for p in mine)
        working = sum(p["status"] == Status.ACTIVE and not _stale(p, cutoff) for p in mine)
        rows.append(
            {
                "label": unit["label"],
                "category": unit["category"],
                "capacity": unit["capacity"],
                "completed": completed,
                "working": working,
                "excluded": sum(p["excluded"] for p in mine),
                "filled": completed + working,
                "fill_share": (completed + working) / unit["capacity"] if unit["capacity"] else None,
            }
        )
    return rows


def _categories(units: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if not any(unit["category"] for unit in units):
        return []
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for unit in units:
        totals[unit["category"]].update({key: unit[key] for key in ("capacity", "completed", "working", "filled")})
    return [
        {
            "category": name,
            **{key: total[key] for key in ("capacity", "completed", "working", "filled")},
            "fill_share": total["filled"] / total["capacity"] if total["capacity"] else None,
        }
        for name, total in sorted(totals.items())
    ]


def _pay(study: Study, seconds: list[float], prolific_study: ProlificStudy | None) -> dict[str, Any]:
    middle = median(seconds) if seconds else None
    hourly = quality.hourly_pence(study.reward_pence, middle)
    return {
        "reward_pence": study.reward_pence,
        # the workspace's currency once Prolific gave it, its default until then
        "currency": currency_or_default(prolific_study.currency if prolific_study is not None else None),
        "completions": len(seconds),
        "median_minutes": middle / 60 if middle is not None else None,
        "hourly_pence": hourly,
        "minimum_pence": quality.MINIMUM_PENCE_PER_HOUR,
        "recommended_pence": quality.RECOMMENDED_PENCE_PER_HOUR,
        "verdict": quality.pay_verdict(hourly),
        "too_few_completions": 0 < len(seconds) < quality.PAY_MIN_COMPLETIONS,
    }


#: the steps of those who never saw an item (the training's included)
BEFORE_THE_ITEMS = (
    Participant.Step.CONSENT,
    Participant.Step.INSTRUCTIONS,
    Participant.Step.DECLINED,
    Participant.Step.PRACTICE,
    Participant.Step.COMPREHENSION,
    Participant.Step.SCREENED_OUT,
)


def _drop_off(people: Sequence[Mapping[str, Any]], longest: int, cutoff: datetime) -> list[dict[str, Any]]:
    """Per item position: participants who were shown it, and those who left while it was their next."""
    began = [p for p in people if p["step"] not in BEFORE_THE_ITEMS]
    left = Counter(p["answered"] + 1 for p in began if _left(p, cutoff))
    reached = Counter(p["answered"] for p in began)
    rows, still = [], len(began)
    for position in range(1, max(longest, max(left, default=0)) + 1):
        rows.append({"position": position, "reached": still, "left": left[position]})
        still -= reached[position - 1]  # those who answered exactly position - 1 items go no further
    return rows


def _timeline(people: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Cumulative arrivals and completions at each arrival or completion, oldest first."""
    events = sorted(
        [(p["started_at"], 1, 0) for p in people] + [(p["completed_at"], 0, 1) for p in people if p["completed_at"]]
    )
    points, arrived, completed = [], 0, 0
    for at, arrival, completion in events:
        arrived, completed = arrived + arrival, completed + completion
        points.append({"at": at, "arrivals": arrived, "completions": completed})
    return points


def _items(rows: list[_Row]) -> list[quality.ItemAnswers]:
    per_item = Counter((row.item_key, row.valid) for row in rows)
    return [
        quality.ItemAnswers(key, per_item[(key, True)] + per_item[(key, False)], per_item[(key, False)])
        for key in sorted({row.item_key for row in rows})
    ]


def _rate(rows: list[_Row], now: datetime) -> dict[str, Any]:
    recent = sum(row.answered_at >= now - RATE_WINDOW for row in rows)
    minutes = RATE_WINDOW.total_seconds() / 60
    return {
        "window_minutes": int(minutes),
        "answers": recent,
        "per_minute": recent / minutes,
        "last_answer_at": max((row.answered_at for row in rows), default=None),
    }


def _flagged(
    people: Sequence[Mapping[str, Any]], computed: dict[int, list[str]], answers: dict[int, Answers]
) -> list[dict[str, Any]]:
    """Each flagged participant with their flags, those computed here and those kept on them
    (model-likeness, `results.computing.integrity`), and each flag's evidence in words, with its figures
    (those of the page's behaviour from the participant's `answers`)."""
    rows = []
    for p in people:
        signals = p["review_signals"] or {}
        flags = [*computed.get(p["id"], []), *(n for n in stored_flags(signals) if n not in computed.get(p["id"], []))]
        if flags:
            given = answers.get(p["id"])
            figures = given.evidence() if given is not None else {}
            rows.append(
                {
                    "id": p["id"],
                    "pseudonym": p["pseudonym"],
                    "status": p["status"],
                    "excluded": p["excluded"],
                    "flags": flags,
                    "reasons": [evidence(name, signals, figures) for name in flags],
                }
            )
    return rows


def study_monitor(study: Study, *, now: datetime | None = None) -> dict[str, Any]:
    """Everything the monitor shows, as plain data (the page, its fragment and the API read it)."""
    now = now or timezone.now()
    cutoff = now - timedelta(minutes=study.reservation_timeout_minutes)
    units = list(Unit.objects.filter(study=study).order_by("position").values("id", "label", "category", "capacity"))
    people = list(
        Participant.objects.filter(study=study, is_imported=False)
        .order_by("pk")
        .values(
            "id",
            "pseudonym",
            "unit_id",
            "status",
            "step",
            "excluded",
            "attention_failures",
            "answered",
            "started_at",
            "last_seen_at",
            "completed_at",
            "review_signals",
        )
    )
    answered = Response.objects.filter(participant__study=study, participant__is_imported=False)
    rows = [_Row(*values) for values in answered.values_list(*_ROW_FIELDS)]
    completion_seconds = {
        p["id"]: (p["completed_at"] - p["started_at"]).total_seconds()
        for p in people
        if p["completed_at"] and p["status"] == Status.COMPLETED
    }
    answers = answers_by_participant(answered)
    flagged = _flagged(people, study_flags(completion_seconds, answers), answers)
    counted = Counter(flag for row in flagged for flag in row["flags"])
    items = _items(rows)
    unit_rows = _units(units, people, cutoff)
    positions = _drop_off(people, max((row.position for row in rows), default=0), cutoff)
    prolific_study = prolific_study_of(study)
    pay = _pay(study, list(completion_seconds.values()), prolific_study)
    finished = [p for p in people if p["status"] == Status.COMPLETED]
    return {
        "generated_at": now,
        "counts": _counts(people, cutoff),
        "units": unit_rows,
        "categories": _categories(unit_rows),
        "pay": pay,
        "attention": {
            "checks_per_participant": study.attention_checks,
            "exclude_at": study.exclude_at,
            "participants_failing": sum(p["attention_failures"] > 0 for p in people),
            "failures": sum(p["attention_failures"] for p in people),
        },
        "flag_counts": {name: counted[name] for name in FLAGS},
        # the rules in words, from their parameters
        "rules": {"straight_lining": quality.straight_lining_rule()},
        "flagged": flagged,
        "drop_off": positions,
        "items_with_invalid_answers": [
            asdict(item) for item in sorted(items, key=lambda i: (-i.invalid, i.key)) if item.invalid
        ],
        "rate": _rate(rows, now),
        "timeline": _timeline(people),
        "recruitment": recruitment_monitor(prolific_study),
        "prolific": prolific_standing(prolific_study),
        "warnings": [
            *quality.warnings(
                items=items,
                positions=[quality.PositionDropOff(**row) for row in positions],
                units=[quality.UnitFill(u["label"], u["capacity"], u["filled"]) for u in unit_rows],
                pence_per_hour=pay["hourly_pence"],
                median_minutes=pay["median_minutes"],
                fast=sum(1 for row in flagged if {"fast_completion", "fast_items"} & set(row["flags"])),
                straight=counted["straight_lining"],
                pasted=counted["pasted"],
                left_tab=counted["left_tab"],
                canary=counted["canary"],
                bots=sum(1 for row in flagged if {"honeypot", "bot_speed"} & set(row["flags"])),
                failing_attention=sum(p["attention_failures"] > 0 for p in finished),
                finished=len(finished),
            ),
            *filter(None, [prolific_flags_open(prolific_study)]),
        ],
    }
