"""What the monitor reads of a running study, in a fixed number of queries whatever its size: its
units, its participants, their answers (and the figures the integrity rules read of them), and its
Prolific study with what the monitor shows of it. Imported participants (a published study's
answers) are left out: they have no real times."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from prolific.currency import currency_or_default
from prolific.monitor import ProlificStanding, RecruitmentMonitor, prolific_standing, recruitment_monitor
from prolific.selectors import prolific_flags_open, prolific_study_of
from studies.models import Participant, Response, Study, Unit
from studies.participants.quality import Answers, answers_by_participant


@dataclass(frozen=True)
class MonitorUnit:
    id: int
    label: str
    category: str
    capacity: int


@dataclass(frozen=True)
class MonitorPerson:
    id: int
    pseudonym: str
    unit_id: int | None
    status: str
    step: str
    excluded: bool
    attention_failures: int
    answered: int
    started_at: datetime
    last_seen_at: datetime
    completed_at: datetime | None
    #: the model-likeness flags kept on the participant (`results.computing.quality`)
    review_signals: dict[str, Any] | None


class AnswerRow(NamedTuple):
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

_PERSON_FIELDS = (
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


@dataclass(frozen=True)
class MonitorData:
    study: Study
    units: list[MonitorUnit]
    #: the participants who entered, oldest first (imported ones aside)
    people: list[MonitorPerson]
    rows: list[AnswerRow]
    #: the answers by participant id, as the integrity rules read them (`studies.participants.quality`)
    answers: dict[int, Answers]
    #: the workspace's currency once Prolific gave it, its default until then
    currency: str
    #: what the monitor shows of the recruitment target and of the study on Prolific (None: none)
    recruitment: RecruitmentMonitor | None
    prolific: ProlificStanding | None
    #: the Prolific flags still open for the reviewer, in words ("" when none)
    prolific_flags: str


def load_monitor_data(study: Study) -> MonitorData:
    units = [
        MonitorUnit(**row)
        for row in Unit.objects.filter(study=study).order_by("position").values("id", "label", "category", "capacity")
    ]
    people = [
        MonitorPerson(**row)
        for row in Participant.objects.filter(study=study, is_imported=False).order_by("pk").values(*_PERSON_FIELDS)
    ]
    answered = Response.objects.filter(participant__study=study, participant__is_imported=False)
    rows = [AnswerRow(*values) for values in answered.values_list(*_ROW_FIELDS)]
    answers = answers_by_participant(answered)
    prolific_study = prolific_study_of(study)
    return MonitorData(
        study=study,
        units=units,
        people=people,
        rows=rows,
        answers=answers,
        currency=currency_or_default(prolific_study.currency if prolific_study is not None else None),
        recruitment=recruitment_monitor(prolific_study),
        prolific=prolific_standing(prolific_study),
        prolific_flags=prolific_flags_open(prolific_study),
    )
