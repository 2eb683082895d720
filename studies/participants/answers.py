"""Writes about answers: storing a participant's answer exactly once, and a researcher's mark on it."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import ngettext

from annotation.models import Item
from annotation.selectors import item_data
from parity.benchmarks.base import Screen
from parity.messages import TOO_SOON_MESSAGE
from parity.stats.quality.behaviour import NONE, carries_canary, checked, reading_floor_ms, shown_words
from studies.design import explanations
from studies.models import Participant, Response, VerificationMark
from studies.participants.answer_tokens import answer_token_matches, participant_owner
from studies.participants.entry import slot_take_back
from studies.participants.locks import participant_lock
from studies.participants.quality_signals import signals_refresh_queue
from studies.participants.reads import known_participants, screen_for
from studies.results_token import results_changed
from studies.selectors import verifiable_responses


class Outcome(enum.Enum):
    STORED = "stored"
    IGNORED = "ignored"  # a replay, a double click, a stale tab: nothing written
    #: an answer to an item this participant has answered before (a second tab, a page the browser
    #: kept): nothing written, and the page says so with the item now current
    ALREADY_ANSWERED = "already_answered"
    INVALID = "invalid"  # refused with a message; nothing written
    TOO_SOON = "too_soon"  # came before its item could have been read: refused with a message, nothing written
    RELEASED = "released"  # timed out, and the slot went to someone else: nothing written


@dataclass(frozen=True)
class SubmitResult:
    outcome: Outcome
    #: the participant as it stands after the submit, with its study (read under the row lock)
    participant: Participant
    response: Response | None = None
    message: str = ""
    #: the item now current, when it was asked for (`show_next`) and there is one
    next_item: Item | None = None


def response_submit(
    *,
    position: int,
    item_id: int | None = None,
    item_token: str | None = None,
    raw_answer: str,
    extra: Mapping[str, Any] | None = None,
    behaviour: Mapping[str, Any] | None = None,
    show_next: bool = False,
    participant_id: int | None = None,
    link: str | None = None,
    known: Sequence[int] = (),
    explanation: str = "",
) -> SubmitResult | None:
    """Store the answer to the participant's *current* item, exactly once.

    The item is named by `item_token` (what the participant's form carries, `answer_tokens`) or,
    for callers on the server, by `item_id`; a value that is not the current item's is ignored.

    The participant is `participant_id`, or the one of the `known` participant ids (this browser's)
    in the study at `link`; None means this browser has no participant there (an erased identity is
    no one's).

    An answer to an item answered before (a second copy of a double submit, a replayed POST, a
    second tab, a page the browser kept) is ALREADY_ANSWERED, anything else not the current item's
    (a position or token that names no item of the participant's) IGNORED: nothing is written, and
    the caller shows the current step again. A participant whose
    reservation timed out continues only if their unit still has room (RELEASED otherwise).
    With `show_next`, the caller shows the next item in the same response: it is read with the
    answered one and its shown time is the answer's time.

    `behaviour`: what the page recorded (`BehaviourForm.record()`), checked against the server's
    time on the item and stored in `extra["behaviour"]` (`_behaviour_marks`); None (callers other
    than the participant's page) stores none of it. An answer carrying the study's canary word is
    marked `extra["canary"]`.

    `explanation`: why the participant chose the answer, stored on the answer itself when the study
    asks for one at this position (`studies.design.explanations`), else dropped; one over
    `explanations.MAX_CHARS` refuses the answer (INVALID) so that the page gives both texts back.

    A working participant costs, in one transaction, the participant's locked read (with its study),
    one read of the answered and the next item, the answer's INSERT and the progress UPDATE.
    """
    participants = _participants(participant_id=participant_id, link=link, known=known)
    answer = ((item_id, item_token), position, raw_answer, extra, behaviour, show_next, explanation.strip())
    try:
        result = _submit(partial(_locked_for_answer, participants), *answer, with_study=False)
        if isinstance(result, int):
            # the reservation timed out: again, with the study locked first, as assignment takes them
            result = _submit(partial(participant_lock, participant_id=result), *answer, with_study=True)
            assert not isinstance(result, int)  # with the study locked, the reservation is settled
    except IntegrityError:
        # the unique (participant, position) constraint: a copy of this answer is already stored
        stored = participants.select_related("study").first()
        return SubmitResult(Outcome.IGNORED, stored) if stored is not None else None
    return result


def _participants(*, participant_id: int | None, link: str | None, known: Sequence[int]) -> QuerySet[Participant]:
    """`participant_id`, or the one of `known` in the study at `link` that is still someone's."""
    if participant_id is not None:
        return Participant.objects.filter(pk=participant_id)
    return known_participants(known, link=link)


#: what an answer and the page after it never read, left out of the locked read: the study's texts
#: and records for its other pages, its report, its recruitment and its codes, and the participant's
#: Prolific and training records, closing answers, review flags and session history (JSON that would
#: be decoded for nothing). Each column read costs the statement's compiling and the row's converting
#: on every answer: the read keeps 18 of the study's 50 columns and 14 of the participant's 29
#: that an answer and the next item read. A page that does read one of the others still gets it, with
#: a query of its own (`tests/participation/test_participant_query_counts.py` holds the answer to its
#: queries).
_UNREAD = (
    *(
        f"study__{name}"
        for name in (
            "consent_text",
            "instructions_text",
            "closing_questions",
            "population",
            "ethics_body",
            "ethics_reference",
            "ethics_exemption",
            "paper_title",
            "paper_url",
            "paper_venue",
            "power_analysis",
            "checklist_notes",
            "checklist_corrections",
            "original_study",
            "practice_questions",
            "comprehension_questions",
            "comprehension_tries",
            "prolific_filters",
            "item_sampling",
            "sample_pool",
            "sample_size",
            "sample_seed",
            "refused_earlier",
            "pseudonyms_issued",
            "estimated_minutes",
            "reward_pence",
            "completion_code",
            "failed_attention_code",
            "pid_format",
            "panel",
            "panel_settings",
            "is_imported",
            "owner",
            "created_at",
        )
    ),
    "prolific_study_id",
    "prolific_session_id",
    "pseudonym",
    "is_imported",
    "started_at",
    "erased_at",
    "practice_read",
    "comprehension_tries",
    "training_started_at",
    "training_ended_at",
    "closing_answered_at",
    "session_changes",
    "practice_answers",
    "closing_answers",
    "review_signals",
)


def _locked_for_answer(participants: QuerySet[Participant]) -> Participant | None:
    """The participant with its study, row-locked until the transaction ends (call it inside
    `transaction.atomic()`): two submits of one participant at once (a double click, two tabs) take
    turns, and the second sees the progress the first wrote. `of`: only the participant's row;
    locking the joined study row too would make every answer of the study wait for the one before.
    (So not `participants.locks.participant_locked`, which the steps take, the study's row with it.)
    What an answer never reads stays unread (`_UNREAD`).
    At most one participant matches (a browser holds one participant per study), so the read asks
    for no order: `get()`, where `first()` would compile and run an ORDER BY for a single row."""
    try:
        return participants.select_for_update(of=("self",)).select_related("study").defer(*_UNREAD).get()
    except Participant.DoesNotExist:
        return None


def _submit(
    lock: Callable[[], Participant | None],
    named: tuple[int | None, str | None],
    position: int,
    raw_answer: str,
    extra: Mapping[str, Any] | None,
    behaviour: Mapping[str, Any] | None,
    show_next: bool,
    explanation: str,
    *,
    with_study: bool,
) -> SubmitResult | int | None:
    """One attempt under `lock`'s row lock: the result, None for no participant, or the participant's
    id when their reservation timed out and the study's lock is needed first."""
    with transaction.atomic():
        # The row lock serialises concurrent submits of one participant on PostgreSQL; on SQLite
        # the IMMEDIATE transaction mode does the same for the whole database.
        participant = lock()
        if participant is None:
            return None
        if participant.status == Participant.Status.TIMED_OUT and participant.step == Participant.Step.ITEMS:
            if not with_study:
                return participant.pk
            if not slot_take_back(participant=participant):
                return SubmitResult(Outcome.RELEASED, participant)
        if participant.step != Participant.Step.ITEMS:
            return SubmitResult(Outcome.IGNORED, participant)
        if position <= participant.answered and _names_item(participant, position, named):
            return SubmitResult(Outcome.ALREADY_ANSWERED, participant)
        if position != participant.answered + 1 or not _names_item(participant, position, named):
            return SubmitResult(Outcome.IGNORED, participant)
        item_id = participant.sequence[participant.answered]
        now = timezone.now()
        if _too_soon(participant, now):
            return SubmitResult(Outcome.TOO_SOON, participant, message=TOO_SOON_MESSAGE)
        if len(explanation) > explanations.MAX_CHARS and explanations.asked_at(participant.study, position):
            return SubmitResult(Outcome.INVALID, participant, message=explanations.TOO_LONG_MESSAGE)
        following = participant.sequence[position] if show_next and position < len(participant.sequence) else None
        # by id: the items' default order (benchmark, key) would only add an ORDER BY to compile and run
        items = Item.objects.order_by().in_bulk([item_id] if following is None else [item_id, following])
        item = items[item_id]
        definition = participant.study.definition
        design = participant.study.design
        # what the participant was shown (e.g. the option order) is the server's, not the form's;
        # a button may post its screen position, which the screen maps back to the answer
        screen = screen_for(participant, item)
        data = item_data(item)
        scored = definition.score(screen.answer_for(raw_answer), item.gold, design, item=data)
        message = definition.refusal(raw_answer, scored, design, item=data)
        if message:
            return SubmitResult(Outcome.INVALID, participant, message=message)
        shown_at = participant.current_shown_at or now
        duration_ms = max(0, int((now - shown_at).total_seconds() * 1000))
        extra = {**(extra or {}), **screen.record}
        if behaviour is not None:
            extra.update(_behaviour_marks(behaviour, raw_answer, screen, duration_ms))
        if carries_canary(raw_answer, participant.study.canary_word):
            extra["canary"] = True
        response = Response.objects.create(
            participant=participant,
            item=item,
            position=position,
            raw_answer=raw_answer,
            answer=scored.answer or "",
            valid=scored.valid,
            correct=scored.correct,
            is_attention_check=item.is_attention_check,
            shown_at=shown_at,
            answered_at=now,
            duration_ms=duration_ms,
            extra=extra,
            explanation=explanation if explanations.asked_at(participant.study, position) else "",
        )
        fields = _advance(participant, item, scored.correct, now, shown_next=following is not None)
        participant.save(update_fields=fields)
    # Once committed: nothing later in the answer's transaction reads results, so the token is
    # renewed once, after the commit (inside a caller's transaction, now and at its commit).
    results_changed(study_ids=[participant.study_id])
    if participant.status == Participant.Status.COMPLETED:
        signals_refresh_queue(study_ids=[participant.study_id])  # their answers are whole now
    return SubmitResult(
        Outcome.STORED,
        participant,
        response=response,
        next_item=items.get(following) if following is not None else None,
    )


def _names_item(participant: Participant, position: int, named: tuple[int | None, str | None]) -> bool:
    """Whether the form's item (by token, or by id from the server's own callers) is the one at
    `position` of the participant's sequence (1-based)."""
    item_id, token = named
    if not 1 <= position <= len(participant.sequence):
        return False
    item = participant.sequence[position - 1]
    if token is not None:
        return answer_token_matches(token, participant_owner(participant.pk), position, item)
    return item_id == item


def _behaviour_marks(behaviour: Mapping[str, Any], raw_answer: str, screen: Screen, duration_ms: int) -> dict[str, Any]:
    """What an answer from the participant's page adds to `extra`: the behaviour record (checked
    against the server's time on the item; for a written answer, its length beside the keys
    pressed) and, when no script ran, the item's reading floor (`bot_speed`)."""
    status = behaviour.get("status")
    record = dict(behaviour) if status else checked(behaviour, duration_ms=duration_ms)
    if record.get("keys") is not None:
        record["chars"] = len(raw_answer)
    marks: dict[str, Any] = {"behaviour": record}
    if status == NONE:
        words = shown_words(screen.shown, (choice.label for choice in screen.choices))
        marks["reading_floor_ms"] = reading_floor_ms(words)
    return marks


def _too_soon(participant: Participant, now) -> bool:
    """An answer sooner after its item was shown than the study's floor: a second key press or tap
    meant for the item before, landing on this one unseen. The shown time is the server's (the
    response that carried the item was built then), so the floor also covers the item's transfer."""
    floor = participant.study.min_answer_ms
    shown_at = participant.current_shown_at
    return bool(floor) and shown_at is not None and (now - shown_at).total_seconds() * 1000 < floor


def _advance(participant, item: Item, correct: bool, now, *, shown_next: bool) -> list[str]:
    """The participant's progress after this answer, on the instance; the fields it changed."""
    participant.answered += 1
    participant.current_shown_at = now if shown_next else None
    participant.last_seen_at = now
    fields = ["answered", "current_shown_at", "last_seen_at"]
    if item.is_attention_check and not correct:
        participant.attention_failures += 1
        fields.append("attention_failures")
        threshold = participant.study.exclude_at
        if threshold and participant.attention_failures >= threshold and not participant.excluded:
            participant.excluded = True
            participant.exclusion_reason = ngettext(
                "failed %(n)d attention check (threshold %(threshold)d)",
                "failed %(n)d attention checks (threshold %(threshold)d)",
                participant.attention_failures,
            ) % {"n": participant.attention_failures, "threshold": threshold}
            fields += ["excluded", "exclusion_reason"]
    if participant.answered >= len(participant.sequence):
        participant.step = Participant.Step.DONE
        participant.status = Participant.Status.COMPLETED
        participant.completed_at = now
        fields += ["step", "status", "completed_at"]
    return fields


# -- a researcher's verification ------------------------------------------------------------


@dataclass(frozen=True)
class VerifyResult:
    marked: int
    skipped: int  # not answers of a benchmark verified by hand (or attention checks)


@transaction.atomic
def responses_verify(
    *, response_ids: list[int], correct: bool | None, user, role: str = VerificationMark.Role.FIRST
) -> VerifyResult:
    """Mark written answers correct or incorrect (None clears the mark), recording who and when.

    Every mark is kept (`VerificationMark`, a new row each time: a re-mark adds to the history,
    never overwrites it). The first verifier's mark is also the answer's (`verified_correct`, who
    and when: what the results read); a second verifier's is kept only to measure the two
    verifiers' agreement. Only the verification fields change: the answer, its score and its times
    stay as stored.
    """
    ids = set(response_ids)
    chosen = verifiable_responses().filter(pk__in=ids)
    marked_ids = list(chosen.values_list("pk", flat=True))
    now = timezone.now()
    if correct is None:
        verdict = VerificationMark.Verdict.CLEARED
    else:
        verdict = VerificationMark.Verdict.RIGHT if correct else VerificationMark.Verdict.WRONG
    VerificationMark.objects.bulk_create(
        VerificationMark(response_id=pk, verifier=user, role=role, verdict=verdict, at=now) for pk in marked_ids
    )
    if role == VerificationMark.Role.FIRST:
        results_changed(study_ids=chosen.values_list("participant__study_id", flat=True).distinct())
        chosen.update(
            verified_correct=correct,
            verified_by=user if correct is not None else None,
            verified_at=now if correct is not None else None,
        )
    return VerifyResult(marked=len(marked_ids), skipped=len(ids) - len(marked_ids))
