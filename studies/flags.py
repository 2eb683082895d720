"""Review flags of participants: fast completions, fast items, straight-lining, pasted answers, and
answers like a model's.

The participant admin filters on them and the monitor lists them. The rules themselves are pure,
in `parity.stats.quality`; here they are applied to a study's stored rows. Imported participants
(a published study's answers) are left out of those: they have no real times. The model-likeness
flags (`STORED_FLAGS`) are computed beside the model runs (`results.integrity`, rules in
`parity.stats.likeness`) and kept on the participant (`Participant.review_signals`, with their
figures): they are read here for every participant, imported ones included.
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
    "model_like": "answers agree with a model's far more than with other people's",
    "model_text": "written answers closer to a model's output than to any other person's",
}

#: flags computed in `results.integrity` and stored on the participant, with their figures
STORED_FLAGS = ("model_like", "model_text")

#: the flags that are, on their own, grounds for rejecting a submission on Prolific: very fast
#: completion (3 SD below the mean) is the only speed criterion Prolific allows; every other flag
#: asks for a look at the answers, and may exclude them from the analysis, never reject by itself
PROLIFIC_REJECTABLE = frozenset({"fast_completion"})


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


def stored_flags(signals: dict[str, Any]) -> list[str]:
    """The flags kept in a participant's `review_signals`, in the order of `FLAGS`."""
    return [name for name in FLAGS if name in (signals or {})]


def evidence(name: str, signals: dict[str, Any]) -> str:
    """A flag in words, with its figures when it has any (the stored ones do)."""
    figures = (signals or {}).get(name) or {}
    return f"{FLAGS[name]}: {figures['evidence']}" if figures.get("evidence") else FLAGS[name]


def exclusion_reason(flags: list[str], *, limit: int = 200) -> str:
    """The reason suggested when excluding participants with these flags (at most `limit`
    characters, what `Participant.exclusion_reason` holds), worded for Prolific's rules: only a very
    fast completion may be cited to reject a submission; every other flag is for review."""
    chosen = [name for name in FLAGS if name in flags]
    if not chosen:
        return ""
    rejectable = [name.replace("_", " ") for name in chosen if name in PROLIFIC_REJECTABLE]
    if len(rejectable) == len(chosen):
        clause = " (3 SD below the mean time: a Prolific rejection reason)"
    elif rejectable:
        clause = f"; only {', '.join(rejectable)} is a Prolific rejection reason, the rest are for review"
    else:
        clause = "; for review: not a Prolific rejection reason"
    named = ", ".join(name.replace("_", " ") for name in chosen)
    said = f"excluded from the analysis after review: {named}"
    if len(said) + len(clause) > limit:
        said = f"excluded from the analysis after review of {len(chosen)} flags"
    return f"{said}{clause}"[:limit]


def participant_flags(participants: QuerySet[Participant]) -> dict[int, list[str]]:
    """The review flags of `participants` (ids to flag names), each judged within its own study,
    with the stored ones (`STORED_FLAGS`)."""
    flagged = _behaviour_flags(participants)
    for pk, signals in participants.exclude(review_signals={}).values_list("pk", "review_signals"):
        kept = stored_flags(signals)
        if kept:
            marks = flagged.setdefault(pk, [])
            marks.extend(name for name in kept if name not in marks)
    return flagged


def _behaviour_flags(participants: QuerySet[Participant]) -> dict[int, list[str]]:
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
