"""The researcher's answers to the reporting checklist's entries that Parity cannot answer from its
records (a pilot, the authors as baseliners, tools allowed, a published study's recruitment...). They
are reporting, not design: they may be written at any status, and a launched study's trail records
which entries changed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from parity.reporting.checklist import BY_ID
from studies.bounds import MAX_ORIGINAL_TEXT, MAX_PAGE
from studies.errors import StudyError
from studies.models import Study, StudyEvent
from studies.preregistration.events import study_event_record

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


#: a reason is a sentence: why Parity's figure is wrong for this study (the paper's page, a record it lacks)
REASON_MAX_CHARS = 500


def checklist_correction_errors(entry_id: str, text: str, reason: str) -> dict[str, str]:
    """What is wrong with a correction, by field."""
    errors = {}
    if entry_id not in BY_ID:
        errors["entry"] = f"The checklist has no entry {entry_id!r}."
    if not text:
        errors["text"] = "Write the corrected answer (to go back to Parity's, remove the correction)."
    elif len(text) > NOTE_MAX_CHARS:
        errors["text"] = f"Keep the answer under {NOTE_MAX_CHARS} characters (it has {len(text)})."
    if not reason:
        errors["reason"] = "Say why Parity's answer is wrong for this study: the reason is shown with the correction."
    elif len(reason) > REASON_MAX_CHARS:
        errors["reason"] = f"Keep the reason under {REASON_MAX_CHARS} characters (it has {len(reason)})."
    return errors


@transaction.atomic
def study_checklist_correction_set(*, study: Study, entry_id: str, text: str, reason: str, actor: Any = None) -> Study:
    """Replace Parity's computed answer to `entry_id` with the researcher's `text`, for `reason`: both
    are kept (the answer is shown as corrected, with the reason and what Parity computed) and the
    study's trail records the change. A correction without its text or its reason writes nothing."""
    text, reason = text.strip(), reason.strip()
    errors = checklist_correction_errors(entry_id, text, reason)
    if errors:
        raise StudyError(" ".join(errors.values()))
    locked = Study.objects.select_for_update().get(pk=study.pk)
    before = locked.checklist_corrections.get(entry_id)
    after = {"text": text, "reason": reason}
    if before == after:
        return locked
    locked.checklist_corrections = {**locked.checklist_corrections, entry_id: after}
    locked.save(update_fields=["checklist_corrections"])
    study_event_record(
        study=locked,
        kind=StudyEvent.Kind.SETTINGS,
        summary=f"Reporting checklist answer {entry_id} corrected: {reason}",
        data={"checklist_entries": [entry_id], "correction": after, "before": before},
        actor=actor,
    )
    return locked


@transaction.atomic
def study_checklist_correction_remove(*, study: Study, entry_id: str, actor: Any = None) -> Study:
    """Go back to Parity's computed answer to `entry_id`; the trail keeps the correction removed."""
    locked = Study.objects.select_for_update().get(pk=study.pk)
    if entry_id not in locked.checklist_corrections:
        return locked
    before = locked.checklist_corrections[entry_id]
    locked.checklist_corrections = {
        key: value for key, value in locked.checklist_corrections.items() if key != entry_id
    }
    locked.save(update_fields=["checklist_corrections"])
    study_event_record(
        study=locked,
        kind=StudyEvent.Kind.SETTINGS,
        summary=f"Reporting checklist answer {entry_id}: correction removed, Parity's answer restored",
        data={"checklist_entries": [entry_id], "correction": None, "before": before},
        actor=actor,
    )
    return locked


#: what a researcher enters of an imported study's original paper, by field, with its label: the
#: checklist answers these entries from them (`results.computing.checklist`) instead of from the
#: records Parity made when it imported the answers, which describe the import, not the original study
ORIGINAL_FIELDS = {
    "materials": "its instructions and interface as the paper describes them (with their address if public)",
    "pay": "what its people were paid",
    "exclusions": "whom it excluded, and why",
    "attrition": "how many people began and did not finish",
}


def original_study_errors(fields: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """What is wrong with each field of the original study's description, by field."""
    errors = {}
    for name, (text, page) in fields.items():
        if name not in ORIGINAL_FIELDS:
            errors[name] = f"The original study has no field {name!r}; known: {', '.join(ORIGINAL_FIELDS)}."
        elif len(text) > MAX_ORIGINAL_TEXT:
            errors[name] = f"Keep the text under {MAX_ORIGINAL_TEXT} characters (it has {len(text)})."
        elif len(page) > MAX_PAGE:
            errors[name] = f"Keep the page under {MAX_PAGE} characters (it has {len(page)})."
        elif text and not page:
            errors[name] = "Give the original paper's page the text is taken from."
        elif page and not text:
            errors[name] = "Write what the original paper says on that page (or remove the page)."
    return errors


@transaction.atomic
def study_original_study_set(*, study: Study, fields: Mapping[str, tuple[str, str]], actor: Any = None) -> Study:
    """Keep what the researcher entered of an imported study's original paper, each field as its text
    and the paper's page (an empty text and page remove the field); refuse an unknown field, an
    overlong text or page, or a text without its page, whole, so nothing is half written. Only a
    study whose human answers were imported has an original study."""
    if not study.is_imported:
        raise StudyError("Only a study whose human answers were imported describes an original study.")
    cleaned = {name: (text.strip(), page.strip()) for name, (text, page) in fields.items()}
    errors = original_study_errors(cleaned)
    if errors:
        raise StudyError(" ".join(f"{name}: {message}" for name, message in sorted(errors.items())))
    locked = Study.objects.select_for_update().get(pk=study.pk)
    before = dict(locked.original_study)
    locked.original_study = {name: {"text": text, "page": page} for name, (text, page) in cleaned.items() if text}
    locked.save(update_fields=["original_study"])
    changed = sorted(
        name
        for name in before.keys() | locked.original_study.keys()
        if before.get(name) != locked.original_study.get(name)
    )
    if changed:
        study_event_record(
            study=locked,
            kind=StudyEvent.Kind.SETTINGS,
            summary=f"The original study's description changed: {', '.join(changed)}",
            data={"original_study": changed, "before": {name: before.get(name) for name in changed}},
            actor=actor,
        )
    return locked
