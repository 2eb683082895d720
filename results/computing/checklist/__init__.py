"""The study's answers to the human-baselines reporting checklist (`parity.reporting.checklist`),
each from the results tree (`results.computing.tree.StudyResults`) or a field the researcher
filled in, with the concrete figures: one function per entry, in a module per part of the checklist.
"""

from __future__ import annotations

from parity.reporting.checklist import COMPUTED, ENTRIES, Answer, Status, contradicted, corrected, filled

# the section modules register their entries' functions as they are imported
from results.computing.checklist import analysis, execution, paper_design, recruitment  # noqa: F401
from results.computing.checklist.answering import ANSWERS, NOT_RECORDED, PUBLIC_ADDRESS, RECORDED
from results.computing.tree import StudyResults
from results.loading.study_data import ChecklistRecords
from studies.models import Study

__all__ = ["NOT_RECORDED", "study_checklist"]


def study_checklist(study: Study, results: StudyResults, records: ChecklistRecords) -> list[Answer]:
    """Every entry of the checklist, answered, in the checklist's order: from Parity's records where it
    has them, else from the researcher's note on the entry (`Study.checklist_notes`), else with the
    reason it is not answered. A note never silently replaces a figure Parity computed: where the two
    differ, Parity's answer stands with the note beside it, flagged as a contradiction; the researcher
    replaces a computed answer only by correcting it with a reason (`Study.checklist_corrections`),
    and the answer then says so and keeps what Parity computed. `records`: what it reads of the study
    besides its results (`results.loading.selectors.load_checklist_records`)."""
    notes = study.checklist_notes or {}
    corrections = study.checklist_corrections or {}
    return [
        _settled(_answer(entry.id, study, results, records), notes.get(entry.id, ""), corrections.get(entry.id))
        for entry in ENTRIES
    ]


def _answer(entry_id: str, study: Study, results: StudyResults, records: ChecklistRecords) -> Answer:
    if entry_id in RECORDED:
        return RECORDED[entry_id](study, results, records)
    return ANSWERS[entry_id](study, results)


def _settled(answer: Answer, note: str, correction: dict[str, str] | None) -> Answer:
    if correction:
        return corrected(answer, correction["text"], correction["reason"])
    if not note or answer.entry.id in PUBLIC_ADDRESS:
        # an entry of PUBLIC_ADDRESS has read its note already
        return answer
    if answer.status is not Status.ANSWERED:
        return filled(answer, note)
    if answer.source == COMPUTED and note != answer.text:
        return contradicted(answer, note)
    return answer
