"""Review flags of participants: fast completions, fast items, straight-lining, pasted answers.

The participant admin filters on them and the monitor lists them. The rules themselves are pure,
in `parity.stats.quality`; here they are applied to a study's stored rows. Imported participants
(a published study's answers) are left out: they have no real times.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from parity.stats import quality
from studies.models import Participant, Response

#: the flags a participant can carry, with the words the pages and the admin show
FLAGS: dict[str, str] = {
    "fast_completion": "fast completion (over 3 SD below the mean time)",
    "fast_items": f"fast items (median under {quality.ITEM_TIME_FLOOR_MS / 1000:g} s per item)",
    "straight_lining": "the same answer throughout",
    "pasted": "pasted a written answer",
}


@dataclass
class Answers:
    """One participant's answers to study items (attention checks left out), as the rules read them."""

    durations: list[int] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    pasted: bool = False

    def add(self, *, answer: str, raw_answer: str, is_check: bool, duration_ms: int, extra: dict) -> None:
        self.pasted = self.pasted or bool((extra or {}).get("pasted"))
        if not is_check:
            self.durations.append(duration_ms)
            self.answers.append(answer or raw_answer.strip().lower())


def study_flags(completion_seconds: dict[int, float], answers: dict[int, Answers]) -> dict[int, list[str]]:
    """Flags per participant id, for the participants of one study (the 3-SD rule compares them)."""
    fast = quality.fast_completions(completion_seconds)
    quick = quality.fast_items({pk: a.durations for pk, a in answers.items()})
    flagged: dict[int, list[str]] = {}
    for pk in set(completion_seconds) | set(answers):
        given = answers.get(pk, Answers())
        marks = [
            name
            for name, on in (
                ("fast_completion", pk in fast),
                ("fast_items", pk in quick),
                ("straight_lining", quality.straight_lining(given.answers)),
                ("pasted", given.pasted),
            )
            if on
        ]
        if marks:
            flagged[pk] = marks
    return flagged


def answers_by_participant(rows: Any) -> dict[int, Answers]:
    answers: dict[int, Answers] = defaultdict(Answers)
    for pk, answer, raw, is_check, duration, extra in rows:
        answers[pk].add(answer=answer, raw_answer=raw, is_check=is_check, duration_ms=duration, extra=extra)
    return answers


def participant_flags(participants: QuerySet[Participant]) -> dict[int, list[str]]:
    """The review flags of `participants` (ids to flag names), each judged within its own study."""
    chosen = participants.filter(is_imported=False)
    completions = Participant.objects.filter(
        study__in=chosen.values("study_id"), completed_at__isnull=False, is_imported=False
    ).values_list("pk", "study_id", "started_at", "completed_at")
    by_study: dict[int, dict[int, float]] = defaultdict(dict)
    study_of: dict[int, int] = {}
    for pk, study_id, started, completed in completions:
        by_study[study_id][pk] = (completed - started).total_seconds()
        study_of[pk] = study_id
    answers = answers_by_participant(
        Response.objects.filter(participant__in=chosen.values("pk")).values_list(
            "participant_id", "answer", "raw_answer", "is_attention_check", "duration_ms", "extra"
        )
    )
    answers_by_study: dict[int | None, dict[int, Answers]] = defaultdict(dict)
    for pk, given in answers.items():
        answers_by_study[study_of.get(pk)][pk] = given
    flagged: dict[int, list[str]] = {}
    for study_id in set(by_study) | set(answers_by_study):
        flagged.update(study_flags(by_study.get(study_id, {}) if study_id else {}, answers_by_study.get(study_id, {})))
    wanted = set(chosen.values_list("pk", flat=True))
    return {pk: marks for pk, marks in flagged.items() if pk in wanted}


def participants_flagged(participants: QuerySet[Participant], flag: str) -> QuerySet[Participant]:
    """`participants` narrowed to those carrying `flag` (one of `FLAGS`)."""
    return participants.filter(pk__in=[pk for pk, marks in participant_flags(participants).items() if flag in marks])
