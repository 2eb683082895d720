"""A researcher's decisions about participants: excluded, included again, or returned on Prolific;
a launched study's exclusions and inclusions go into its audit trail."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from studies.models import Participant, StudyEvent
from studies.participants.quality_signals import signals_refresh_queue
from studies.preregistration.events import participants_change_record
from studies.results_token import results_changed


@transaction.atomic
def participants_exclude(*, participant_ids: list[int], reason: str, actor: Any = None) -> int:
    """A researcher's exclusion (the attention-check rule excludes in `response_submit`); a launched
    study's goes into its audit trail."""
    chosen = Participant.objects.filter(pk__in=participant_ids)
    results_changed(study_ids=chosen.values_list("study_id", flat=True).distinct())
    changed = list(chosen.filter(excluded=False).values_list("pk", flat=True))
    participants_change_record(participant_ids=changed, kind=StudyEvent.Kind.EXCLUDED, reason=reason, actor=actor)
    return chosen.update(excluded=True, exclusion_reason=reason)


@transaction.atomic
def participants_include(*, participant_ids: list[int], actor: Any = None) -> int:
    chosen = Participant.objects.filter(pk__in=participant_ids)
    results_changed(study_ids=chosen.values_list("study_id", flat=True).distinct())
    lifted = dict(chosen.filter(excluded=True).values_list("pk", "exclusion_reason"))
    # the exclusion lifted stays in the audit trail with its reason, the automatic ones included
    # (the attention-check rule excludes in `response_submit` and records nothing there itself)
    participants_change_record(participant_ids=list(lifted), kind=StudyEvent.Kind.INCLUDED, lifted=lifted, actor=actor)
    return chosen.update(excluded=False, exclusion_reason="")


def participants_mark_returned(*, participant_ids: list[int]) -> int:
    """Prolific says they returned the study: their reserved slot reopens."""
    chosen = Participant.objects.filter(pk__in=participant_ids, status=Participant.Status.ACTIVE)
    studies = list(chosen.values_list("study_id", flat=True).distinct())
    results_changed(study_ids=studies)  # no longer working
    signals_refresh_queue(study_ids=studies)  # the answers they gave are all they give
    return chosen.update(status=Participant.Status.RETURNED, step=Participant.Step.RELEASED)
