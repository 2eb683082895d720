"""The study's answers to the human-baselines reporting checklist (`parity.reporting.checklist`),
each from the results tree (`results.computing.spine.StudyResults`) or a field the researcher
filled in, with the concrete figures: one function per entry, in a module per part of the checklist.
"""

from __future__ import annotations

from parity.reporting.checklist import ENTRIES, Answer, Status, entered

# the section modules register their entries' functions as they are imported
from results.computing.checklist import analysis, execution, paper_design, recruitment  # noqa: F401
from results.computing.checklist.answering import ANSWERS, NOT_RECORDED
from results.computing.spine import StudyResults
from studies.models import Study

__all__ = ["NOT_RECORDED", "study_checklist"]


def study_checklist(study: Study, results: StudyResults) -> list[Answer]:
    """Every entry of the checklist, answered, in the checklist's order: from Parity's records where it
    has them, else from the researcher's note on the entry (`Study.checklist_notes`), else with the
    reason it is not answered. A note never replaces a figure Parity computed or a researcher's field."""
    notes = study.checklist_notes or {}
    found = [ANSWERS[entry.id](study, results) for entry in ENTRIES]
    return [
        entered(answer.entry, notes[answer.entry.id])
        if answer.status is not Status.ANSWERED and notes.get(answer.entry.id)
        else answer
        for answer in found
    ]
