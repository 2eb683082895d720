"""What an export reads of a study besides its answers (`StudyData`): the participants' review flags
and their figures, the explanations written with the answers, the identity strings withheld from
free text, and the participants themselves (the participants' export), each read only for the
formats that show it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from results.loading.study_data import StudyData
from studies.design.explanations_given import explanations_by_answer
from studies.models import Participant
from studies.participants.quality import participant_evidence, participant_flags
from studies.participants.withholding import Withholder, study_withholder
from studies.selectors import participants_in_order

#: the formats of one row per answer, and of one row per participant
LONG_FORMATS = frozenset({"csv", "jsonl", "parquet"})
PARTICIPANT_FORMATS = frozenset({"participants-csv"})
WITHHOLDING_FORMATS = LONG_FORMATS | PARTICIPANT_FORMATS | {"wide-csv"}


@dataclass(frozen=True)
class ParticipantRecord:
    """One participant as the participants' export shows them (never their Prolific identity)."""

    participant_id: int
    pseudonym: str
    #: their unit's label ("" before they were given one)
    unit: str
    status: str
    excluded: bool
    attention_failures: int
    answered: int
    duration_seconds: float | None
    closing_answered: bool
    closing_answers: Mapping[str, Any]
    review_signals: dict[str, Any]


@dataclass(frozen=True)
class ExportRecords:
    #: the review flags of the study's participants (participant id -> flag names)
    flags: dict[int, list[str]] = field(default_factory=dict)
    #: replaces the study's identity strings in free text
    withholder: Withholder = field(default_factory=lambda: Withholder.of(set()))
    #: the explanations written with the answers, by (participant id, item id)
    explanations: dict[tuple[int, int], str] = field(default_factory=dict)
    #: the figures behind each participant's flags (participant id -> {flag: figures})
    evidence: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)
    #: the study's participants, oldest first
    participants: list[ParticipantRecord] = field(default_factory=list)


def load_export_records(data: StudyData, fmt: str) -> ExportRecords:
    """What the export in `fmt` shows besides the answers (nothing for the paper tables' formats)."""
    study = data.study
    flags = (
        participant_flags(Participant.objects.filter(study=study)) if fmt in LONG_FORMATS | PARTICIPANT_FORMATS else {}
    )
    evidence = participant_evidence(Participant.objects.filter(study=study)) if fmt in PARTICIPANT_FORMATS else {}
    withholder = study_withholder(study) if fmt in WITHHOLDING_FORMATS else Withholder.of(set())
    explanations = explanations_by_answer(study) if fmt in LONG_FORMATS else {}
    participants = [_record(p) for p in participants_in_order(study)] if fmt in PARTICIPANT_FORMATS else []
    return ExportRecords(
        flags=flags, withholder=withholder, explanations=explanations, evidence=evidence, participants=participants
    )


def _record(participant: Participant) -> ParticipantRecord:
    return ParticipantRecord(
        participant_id=participant.pk,
        pseudonym=participant.pseudonym,
        unit=participant.unit.label if participant.unit else "",
        status=participant.status,
        excluded=participant.excluded,
        attention_failures=participant.attention_failures,
        answered=participant.answered,
        duration_seconds=participant.duration_seconds,
        closing_answered=participant.closing_answered_at is not None,
        closing_answers=participant.closing_answers,
        review_signals=participant.review_signals,
    )
