"""Reads for a reviewer: one participant's answers in context, their flags with their figures and
their Prolific submission; the written answers waiting for a verifier's mark, and the two
verifiers' agreement."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from annotation.models import BenchmarkAsset, Item
from annotation.selectors import item_data
from parity.stats import cohen_kappa
from parity.stats.quality.behaviour import INVALID, NONE, RECORDED
from prolific.currency import money
from prolific.models import BonusLine, ProlificSubmission
from studies.design.explanations_given import closing_explanation
from studies.models import Participant, Response, Study, VerificationMark
from studies.participants.quality import (
    INFORMATION,
    evidence,
    exclusion_reason,
    participant_evidence,
    participant_flags,
)
from studies.participants.withholding import Withholder
from studies.selectors import ParticipantScore, score_of, verifiable_responses, with_scores

#: an item's text on the review page is cut at this many characters
ITEM_TEXT_CHARACTERS = 400


# -- one participant ------------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerRow:
    position: int
    item_key: str
    item_text: str
    gold: str
    answer: str
    #: "right", "wrong", "invalid", or for a written answer verified by hand its mark: "right",
    #: "wrong" or "unverified"
    outcome: str
    is_attention_check: bool
    seconds: float
    evidence: list[str]
    #: what the participant wrote in the item's "why?" box ("" when asked none or left empty)
    explanation: str = ""


@dataclass(frozen=True)
class SubmissionView:
    status: str
    study_code: str
    decision: str
    decision_reason: str
    decided_at: Any
    decision_sent_at: Any


@dataclass(frozen=True)
class ParticipantReview:
    participant: Participant
    answers: list[AnswerRow]
    #: each flag in words with its figures, and what is noted without being a flag
    flags: list[str]
    notes: list[str]
    submissions: list[SubmissionView]
    bonus: str | None
    verifies_by_hand: bool
    #: the reason suggested for an exclusion, from the flags, worded for Prolific's rules
    suggested_reason: str
    #: the study items scored so far, as the participant list shows them
    score: ParticipantScore
    #: why the participant was excluded, as the viewer may read it ("" when included)
    exclusion_reason: str = ""
    #: what the participant wrote when asked why at the end of the study ("" when not asked or nothing)
    closing_explanation: str = ""


def item_text(prompt: Mapping[str, Any]) -> str:
    """An item's words, whatever the benchmark's prompt fields: its texts joined, in field order
    (instruction induction: the demonstrations, one pair a line)."""
    demonstrations = prompt.get("demonstrations")
    if isinstance(demonstrations, list) and demonstrations:
        text = "\n".join(f"{pair[0]} → {pair[1]}" for pair in demonstrations if len(pair) == 2)
    else:
        text = " / ".join(value.strip() for value in prompt.values() if isinstance(value, str) and value.strip())
    return text if len(text) <= ITEM_TEXT_CHARACTERS else text[: ITEM_TEXT_CHARACTERS - 1] + "…"


def answer_evidence(extra: Mapping[str, Any] | None, duration_ms: int) -> list[str]:
    """What one answer's stored integrity record says, in words (an empty list: nothing to note)."""
    extra = extra or {}
    said: list[str] = []
    record = extra.get("behaviour")
    if isinstance(record, dict):
        status = record.get("status")
        if status == RECORDED:
            if record.get("pastes"):
                said.append(f"pasted {record['pastes']}×")
            if record.get("hidden"):
                said.append(f"page hidden {record['hidden']}× for {(record.get('hidden_ms') or 0) / 1000:.1f} s")
            if record.get("blurs"):
                said.append(f"{record['blurs']} focus losses")
            if record.get("keys") is not None:
                said.append(f"{record['keys']} keys for {record.get('chars') or 0} characters")
        elif status == NONE:
            floor = extra.get("reading_floor_ms")
            if floor and duration_ms < floor:
                said.append(f"sent without the page's script, sooner than its reading floor ({floor / 1000:.1f} s)")
            else:
                said.append("sent without the page's script")
        elif status == INVALID:
            said.append("behaviour figures that cannot be true (dropped)")
    if extra.get("pasted") and not any(text.startswith("pasted") for text in said):
        said.append("pasted")
    if extra.get("canary"):
        said.append("carries the canary word")
    if extra.get("honeypot"):
        said.append("hidden field filled (a program)")
    return said


def _verified(response: Response) -> str:
    if response.verified_correct is None:
        return "unverified"
    return "right" if response.verified_correct else "wrong"


def _outcome(response: Response, by_hand: bool) -> str:
    if not response.valid:
        return "invalid"
    if by_hand and not response.is_attention_check:
        return _verified(response)
    return "right" if response.correct else "wrong"


def participant_review(participant: Participant, withholder: Withholder | None = None) -> ParticipantReview:
    """Everything the review page shows of one participant, in a handful of queries; with a
    `withholder` (a viewer without the identity permission), every text a person typed (the answers,
    their explanations, the exclusion's and the decisions' reasons) with the study's identities
    withheld. `participant` as `participant_for_review` reads them, their score with them."""
    shown = withholder.text if withholder is not None else str
    study = participant.study
    by_hand = study.definition.manual_verification
    chosen = Participant.objects.filter(pk=participant.pk)
    names = participant_flags(chosen).get(participant.pk, [])
    figures = participant_evidence(chosen).get(participant.pk, {})
    answers = [
        AnswerRow(
            position=response.position,
            item_key=response.item.key,
            item_text=item_text(response.item.prompt),
            gold=response.item.gold,
            answer=shown(response.raw_answer),
            outcome=_outcome(response, by_hand),
            is_attention_check=response.is_attention_check,
            seconds=response.duration_ms / 1000,
            evidence=answer_evidence(response.extra, response.duration_ms),
            explanation=shown(response.explanation),
        )
        for response in Response.objects.filter(participant=participant).select_related("item").order_by("position")
    ]
    submissions = [
        SubmissionView(s.status, s.study_code, s.decision, shown(s.decision_reason), s.decided_at, s.decision_sent_at)
        for s in ProlificSubmission.objects.filter(participant=participant).order_by("pk")
    ]
    line = BonusLine.objects.filter(participant=participant).select_related("batch__prolific_study").first()
    bonus = (
        f"{money(line.amount_pence, line.batch.prolific_study.currency)} ({line.batch.get_state_display()})"
        if line is not None
        else None
    )
    return ParticipantReview(
        participant=participant,
        answers=answers,
        flags=[evidence(name, participant.review_signals, figures) for name in names],
        notes=[f"{INFORMATION[name]}: {figures[name]['detail']}" for name in INFORMATION if name in figures],
        submissions=submissions,
        bonus=bonus,
        verifies_by_hand=by_hand,
        suggested_reason=exclusion_reason(names),
        exclusion_reason=shown(participant.exclusion_reason),
        closing_explanation=shown(closing_explanation(participant)),
        score=score_of(participant),
    )


def participant_for_review(study: Study, participant_id: int) -> Participant | None:
    """The participant with their score (`studies.selectors.with_scores`), as `participant_review` reads them."""
    return with_scores(
        Participant.objects.filter(study=study, pk=participant_id)
        .select_related("study", "unit")
        .defer(*Participant.IDENTITY_FIELDS)
    ).first()


def next_flagged(participant: Participant) -> Participant | None:
    """The next participant of the same study carrying a flag, after this one (the first one again
    after the last)."""
    flagged = sorted(
        pk for pk, marks in participant_flags(Participant.objects.filter(study=participant.study_id)).items() if marks
    )
    later = [pk for pk in flagged if pk > participant.pk] or [pk for pk in flagged if pk != participant.pk]
    return Participant.objects.filter(pk=later[0]).only("pk", "study_id").first() if later else None


# -- the verification queue -----------------------------------------------------------------

#: which answers the queue goes through
STATES: dict[str, str] = {
    "unverified": "Unverified",
    "right": "Marked right",
    "wrong": "Marked wrong",
    "all": "All written answers",
}


def study_written_answers(study: Study) -> QuerySet[Response]:
    """The study's written answers verified by hand (no attention check), of included participants
    first: in participant then position order."""
    return (
        verifiable_responses()
        .filter(participant__study=study)
        .select_related("item", "participant")
        .defer(*(f"participant__{name}" for name in Participant.IDENTITY_FIELDS))
        .order_by("participant_id", "position")
    )


def latest_marks(study: Study, role: str) -> dict[int, str]:
    """Each answer's latest mark by verifiers of `role` (answer id -> verdict; a cleared mark is
    no mark)."""
    latest: dict[int, str] = {}
    for response_id, verdict in (
        VerificationMark.objects.filter(response__participant__study=study, role=role)
        .order_by("at", "id")
        .values_list("response_id", "verdict")
    ):
        latest[response_id] = verdict
    return {pk: verdict for pk, verdict in latest.items() if verdict != VerificationMark.Verdict.CLEARED}


def queue_ids(study: Study, role: str, state: str) -> list[int]:
    """The answers in the queue, in order: for the first verifier their mark on the answer, for a
    second one their own latest marks."""
    written = study_written_answers(study)
    if role == VerificationMark.Role.FIRST:
        pairs = list(written.values_list("pk", "verified_correct"))
        marks = {pk: {True: "right", False: "wrong"}[mark] for pk, mark in pairs if mark is not None}
    else:
        pairs = [(pk, None) for pk in written.values_list("pk", flat=True)]
        marks = latest_marks(study, role)
    if state == "all":
        return [pk for pk, _ in pairs]
    if state == "unverified":
        return [pk for pk, _ in pairs if pk not in marks]
    return [pk for pk, _ in pairs if marks.get(pk) == state]


def references_for(task: str, benchmark: str) -> list[str]:
    """The published reference instructions of a task (instruction induction's annotations)."""
    asset = BenchmarkAsset.objects.filter(benchmark=benchmark, key="references").first()
    found = (asset.data or {}).get(task, []) if asset is not None else []
    return [text for text in found if isinstance(text, str)]


@dataclass(frozen=True)
class QueueAnswer:
    response: Response
    item: Item
    task: str
    demonstrations: list[tuple[str, str]]
    references: list[str]
    history: list[VerificationMark]
    mark: str  # the current mark in the role shown: "right", "wrong" or "unverified"
    #: the answer as the viewer may read it (the study's identities withheld for one without the permission)
    written: str = ""


def queue_answer(study: Study, response_id: int, role: str, withholder: Withholder | None = None) -> QueueAnswer | None:
    response = study_written_answers(study).filter(pk=response_id).first()
    if response is None:
        return None
    item = response.item
    task = study.definition.item_category(item_data(item))
    history = list(VerificationMark.objects.filter(response=response).select_related("verifier").order_by("at", "id"))
    if role == VerificationMark.Role.FIRST:
        mark = _verified(response)
    else:
        mine = [m.verdict for m in history if m.role == role]
        mark = mine[-1] if mine and mine[-1] != VerificationMark.Verdict.CLEARED else "unverified"
    demonstrations = [(str(pair[0]), str(pair[1])) for pair in item.prompt.get("demonstrations", []) if len(pair) == 2]
    written = withholder.text(response.raw_answer) if withholder is not None else response.raw_answer
    return QueueAnswer(
        response, item, task, demonstrations, references_for(task, item.benchmark), history, mark, written
    )


@dataclass(frozen=True)
class Agreement:
    """The first and second verifiers' agreement on the answers both marked."""

    both: int
    agree: int
    kappa: float | None

    @property
    def percent(self) -> float | None:
        return self.agree / self.both if self.both else None


def verifier_agreement(study: Study) -> Agreement:
    first = {
        pk: {True: "right", False: "wrong"}[mark]
        for pk, mark in study_written_answers(study).values_list("pk", "verified_correct")
        if mark is not None
    }
    second = latest_marks(study, VerificationMark.Role.SECOND)
    both = sorted(set(first) & set(second))
    a = [first[pk] for pk in both]
    b = [second[pk] for pk in both]
    return Agreement(
        both=len(both), agree=sum(x == y for x, y in zip(a, b, strict=True)), kappa=cohen_kappa(a, b) if both else None
    )


def queue_counts(study: Study, role: str) -> dict[str, int]:
    return {state: len(queue_ids(study, role, state)) for state in STATES}


def queue_step(study: Study, role: str, state: str, current: int | None) -> tuple[int | None, int | None, int | None]:
    """(previous, this, next) in the queue: `this` is `current` when it is in the queue, else the
    first answer of the queue after `current` in the study's order (the first of the queue when none
    is after it); None where there is none."""
    in_queue = queue_ids(study, role, state)
    chosen = set(in_queue)
    order = queue_ids(study, role, "all")
    place = order.index(current) if current in order else -1
    if current in chosen:
        here: int | None = current
    else:
        after = [pk for pk in order[place + 1 :] if pk in chosen]
        here = after[0] if after else (in_queue[0] if in_queue else None)
    if here is None:
        return None, None, None
    at = order.index(here)
    before = [pk for pk in order[:at] if pk in chosen]
    later = [pk for pk in order[at + 1 :] if pk in chosen]
    return (before[-1] if before else None), here, (later[0] if later else None)
