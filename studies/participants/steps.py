"""A participant's steps after entering: consent, the instructions, each item shown, the closing
questions. Each is written under the participant's row lock and only from the step it belongs to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from studies.design import closing_questions
from studies.models import Participant
from studies.participants.entry import slot_take_back
from studies.participants.locks import participant_lock, participant_locked
from studies.participants.training import step_after_instructions
from studies.results_token import results_changed


@transaction.atomic
def participant_consent(*, participant: Participant, agree: bool) -> Participant:
    participant = participant_locked(participant)
    if participant.step != Participant.Step.CONSENT:
        return participant
    participant.last_seen_at = timezone.now()
    if agree:
        participant.step = Participant.Step.INSTRUCTIONS
    else:
        participant.step = Participant.Step.DECLINED
        participant.status = Participant.Status.DECLINED
        results_changed(study_ids=[participant.study_id])  # no longer working
    participant.save(update_fields=["step", "status", "last_seen_at"])
    return participant


@transaction.atomic
def participant_begin(*, participant: Participant) -> Participant:
    participant = participant_locked(participant)
    if participant.step == Participant.Step.INSTRUCTIONS:
        participant.step = step_after_instructions(participant)
        participant.last_seen_at = timezone.now()
        fields = ["step", "last_seen_at"]
        if participant.step in (Participant.Step.PRACTICE, Participant.Step.COMPREHENSION):
            participant.training_started_at = participant.last_seen_at
            fields.append("training_started_at")
        participant.save(update_fields=fields)
    return participant


@transaction.atomic
def participant_answer_closing(*, participant: Participant, answers: Mapping[str, Any]) -> Participant:
    """Store a participant's answers to the study's closing questions, once, after their last item.

    Only the questions the study asks are kept, and only those answered; a second send (a double
    click, a replay) changes nothing. Nothing here touches the completion code, which the participant
    already has."""
    participant = participant_locked(participant)
    if participant.step != Participant.Step.DONE or participant.closing_answered_at is not None:
        return participant
    keys = set(closing_questions.study_keys(participant.study))
    participant.closing_answers = {
        key: value for key, value in answers.items() if key in keys and value not in ("", None)
    }
    participant.closing_answered_at = timezone.now()
    participant.save(update_fields=["closing_answers", "closing_answered_at"])
    return participant


def item_mark_shown(*, participant: Participant) -> Participant:
    """Record (once) when the current item was first shown: the start of its response time.

    A working participant costs one UPDATE, row-locked by the database itself; a timed-out one
    takes their slot back first under the study's and their own row locks, or learns that it was
    given away."""
    now = timezone.now()
    if participant.status == Participant.Status.ACTIVE and participant.step == Participant.Step.ITEMS:
        marked = Participant.objects.filter(
            pk=participant.pk,
            status=Participant.Status.ACTIVE,
            step=Participant.Step.ITEMS,
            answered=participant.answered,
        ).update(last_seen_at=now, current_shown_at=Coalesce("current_shown_at", Value(now)))
        if marked:
            participant.last_seen_at = now
            participant.current_shown_at = participant.current_shown_at or now
            return participant
    with transaction.atomic():
        participant = participant_lock(participant_id=participant.pk)
        if not slot_take_back(participant=participant):
            return participant
        participant.last_seen_at = now
        fields = ["last_seen_at"]
        if participant.step == Participant.Step.ITEMS and participant.current_shown_at is None:
            participant.current_shown_at = now
            fields.append("current_shown_at")
        participant.save(update_fields=fields)
    return participant
