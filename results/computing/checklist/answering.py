"""How an entry is answered: one function per entry, registered by its number, and the shared
words of the answers."""

from __future__ import annotations

from collections.abc import Callable

from parity.reporting.checklist import BY_ID, Answer, Record, computed, entered, not_answered
from results.computing.spine import Spread, StudyResults
from studies.models import Study

NOT_RECORDED = "not recorded by this study"
IMPORTED = "the human answers were imported from a published study"
#: the record 0.8 rests on: the items of the study's item set (`results.loading.selectors.study_item_set_size`)
DATASET_ITEMS = "items in the study's item set"

Answerer = Callable[[Study, StudyResults], Answer]
#: each entry's function, by the entry's number (filled as the section modules are imported)
ANSWERS: dict[str, Answerer] = {}


def answers(entry_id: str) -> Callable[[Answerer], Answerer]:
    def register(function: Answerer) -> Answerer:
        ANSWERS[entry_id] = function
        return function

    return register


def missing(entry_id: str) -> Answer:
    return not_answered(BY_ID[entry_id], NOT_RECORDED)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def span(spread: Spread) -> str:
    return str(spread.min) if spread.min == spread.max else f"{spread.min}–{spread.max}"


#: the entries whose answer only the researchers can complete with a public address (a registration,
#: the data's, the materials', the code's): their note completes Parity's answer instead of filling a gap
PUBLIC_ADDRESS = frozenset({"1.10", "5.2", "5.3", "5.4"})
#: how an answer in the checklist's vocabulary begins
VERDICTS = ("Yes", "Partial", "No", "N/A")


def with_public_address(study: Study, entry_id: str, fact: str, unpublished: str, *records: Record) -> Answer:
    """An entry of `PUBLIC_ADDRESS`: what Parity's records say (`fact`), and either the researchers'
    note on where it is public (then the answer is theirs, Parity's fact after it) or, with no note,
    "Partial" and why it is not known to be public (`unpublished`)."""
    note = (study.checklist_notes or {}).get(entry_id, "")
    records = (*records, Record(f"checklist note {entry_id}", note or None))
    if not note:
        return computed(BY_ID[entry_id], f"Partial: {fact}; {unpublished}", *records)
    said = note if note.startswith(VERDICTS) else f"Yes: {note}"
    return entered(BY_ID[entry_id], f"{said} ({fact})", *records)
