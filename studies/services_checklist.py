"""The researcher's answers to the reporting checklist's entries that Parity cannot answer from its
records (a pilot, the authors as baseliners, tools allowed, a published study's recruitment...). They
are reporting, not design: they may be written at any status, and a launched study's trail records
which entries changed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from parity.reporting.checklist import BY_ID
from studies.errors import StudyError
from studies.models import Study, StudyEvent
from studies.services_preregistration import study_event_record

#: an answer is a sentence or a short paragraph, as a checklist's cell holds
NOTE_MAX_CHARS = 1000


def checklist_notes_errors(notes: Mapping[str, str]) -> dict[str, str]:
    """What is wrong with each entry's note, by entry number."""
    errors = {}
    for entry_id, text in notes.items():
        if entry_id not in BY_ID:
            errors[entry_id] = f"The checklist has no entry {entry_id!r}."
        elif len(text) > NOTE_MAX_CHARS:
            errors[entry_id] = f"Keep the answer under {NOTE_MAX_CHARS} characters (it has {len(text)})."
    return errors


@transaction.atomic
def study_checklist_notes_set(*, study: Study, notes: Mapping[str, str], actor: Any = None) -> Study:
    """Keep the researcher's answers (empty ones removed); refuse unknown entries and overlong answers
    whole, so nothing is half written."""
    cleaned = {entry_id: text.strip() for entry_id, text in notes.items()}
    errors = checklist_notes_errors(cleaned)
    if errors:
        raise StudyError(" ".join(f"{entry_id}: {message}" for entry_id, message in sorted(errors.items())))
    locked = Study.objects.select_for_update().get(pk=study.pk)
    before = dict(locked.checklist_notes)
    locked.checklist_notes = {entry_id: text for entry_id, text in cleaned.items() if text}
    locked.save(update_fields=["checklist_notes"])
    after = locked.checklist_notes
    changed = sorted(
        entry_id for entry_id in before.keys() | after.keys() if before.get(entry_id) != after.get(entry_id)
    )
    if changed:
        study_event_record(
            study=locked,
            kind=StudyEvent.Kind.SETTINGS,
            summary=f"Reporting checklist answers changed: {', '.join(changed)}",
            data={"checklist_entries": changed},
            actor=actor,
        )
    return locked
