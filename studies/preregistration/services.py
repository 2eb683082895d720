"""Writes about a study's preregistration: the researcher's hypotheses and notes (while a draft),
and freezing the whole plan at launch (its changes since go into the audit trail,
`studies.preregistration.events`)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from parity import preregistration_plan
from studies.models import Preregistration, Study, StudyEvent
from studies.preregistration.document import study_document
from studies.preregistration.events import actor_user, launched


class PreregistrationError(ValueError):
    """The preregistration cannot change: it is frozen (the study was launched)."""


@transaction.atomic
def preregistration_update(*, study: Study, hypotheses: str, notes: str) -> Preregistration:
    """Write the researcher's hypotheses and notes; refused once the study is launched."""
    locked = Study.objects.select_for_update().get(pk=study.pk)
    preregistration, _ = Preregistration.objects.select_for_update().get_or_create(study=locked)
    if preregistration.is_frozen or launched(locked):
        raise PreregistrationError(
            "The preregistration was frozen when the study was launched; it cannot change. "
            "Changes since are listed in the audit trail."
        )
    if locked.is_imported:
        raise PreregistrationError("An imported study's answers were collected elsewhere; it has no preregistration.")
    preregistration.hypotheses, preregistration.notes = hypotheses, notes
    preregistration.save(update_fields=["hypotheses", "notes", "updated_at"])
    return preregistration


def preregistration_freeze(*, study: Study, actor: Any = None) -> Preregistration:
    """Freeze the plan at launch: build the document (with whatever hypotheses and notes were written,
    none if none), hash its canonical JSON and keep both with the time. A second call changes nothing.
    Call it inside the launch's transaction, holding the study's row lock."""
    preregistration, _ = Preregistration.objects.select_for_update().get_or_create(study=study)
    if preregistration.is_frozen:
        return preregistration
    document = study_document(study, preregistration.hypotheses, preregistration.notes)
    preregistration.document = document
    preregistration.sha256 = preregistration_plan.sha256_of(document)
    preregistration.frozen_at = timezone.now()
    preregistration.save(update_fields=["document", "sha256", "frozen_at", "updated_at"])
    StudyEvent.objects.create(
        study=study,
        at=preregistration.frozen_at,
        actor=actor_user(actor),
        kind=StudyEvent.Kind.LAUNCHED,
        summary=f"Launched; preregistration frozen (SHA-256 {preregistration.sha256[:12]}…)",
        data={"sha256": preregistration.sha256},
    )
    return preregistration
