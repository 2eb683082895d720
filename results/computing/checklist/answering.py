"""How an entry is answered: one function per entry, registered by its number, and the shared
words of the answers."""

from __future__ import annotations

from collections.abc import Callable

from parity.reporting.checklist import BY_ID, Answer, Record, computed, entered, not_answered, note_name
from results.computing.tree import Spread, StudyResults
from results.loading.study_data import ChecklistRecords
from studies.models import Study

NOT_RECORDED = "not recorded by this study"
IMPORTED = "the human answers were imported from a published study"
#: the record 0.8 rests on: the items of the study's item set (`ChecklistRecords.item_set_size`)
DATASET_ITEMS = "items in the study's item set"

Answerer = Callable[[Study, StudyResults], Answer]
#: each entry's function, by the entry's number (filled as the section modules are imported)
ANSWERS: dict[str, Answerer] = {}


def answers(entry_id: str) -> Callable[[Answerer], Answerer]:
    def register(function: Answerer) -> Answerer:
        ANSWERS[entry_id] = function
        return function

    return register


#: an answer that reads the study's records besides its results (`ChecklistRecords`, loaded with them)
RecordedAnswerer = Callable[[Study, StudyResults, ChecklistRecords], Answer]
RECORDED: dict[str, RecordedAnswerer] = {}


def answers_from_records(entry_id: str) -> Callable[[RecordedAnswerer], RecordedAnswerer]:
    def register(function: RecordedAnswerer) -> RecordedAnswerer:
        RECORDED[entry_id] = function
        return function

    return register


#: an imported study's entry the original paper answers, while the researcher has not entered it
NOT_KNOWN = "not known for the original study"


def original(study: Study, entry_id: str, field: str, lead: str = "", tail: str = "") -> Answer:
    """An imported study's entry from what the researcher entered of the original paper
    (`Study.original_study[field]`, set by `studies.setup.checklist.study_original_study_set`),
    with the paper's page; "not known for the original study" where nothing was entered. The records
    Parity made when it imported the answers describe the import, not the original study."""
    said = (study.original_study or {}).get(field)
    if not said:
        return not_answered(
            BY_ID[entry_id],
            f"{NOT_KNOWN} (its {field} as the original paper reports them)",
            Record("study.is_imported", True),
            Record(f"original_study.{field}", None),
        )
    text = said["text"]
    # the researcher's own verdict ("No: unpaid volunteers") stays the answer's verdict
    word = next((word for word in VERDICTS if text.startswith(word + ":")), None)
    if word and not lead:
        lead, text = f"{word}: ", text[len(word) + 1 :].strip()
    return entered(
        BY_ID[entry_id],
        f"{lead}entered by the researcher ({where(said['page'])}): {text}{tail}",
        Record(f"original_study.{field}", said["text"]),
        Record(f"original_study.{field}.page", said["page"]),
    )


def where(page: str) -> str:
    """The place in the original paper: "p. 7" for a page number, as entered otherwise ("Appendix E")."""
    return f"p. {page}" if page[:1].isdigit() else page


def missing(entry_id: str, *records: Record) -> Answer:
    """An entry Parity holds no record to answer: it rests on the researcher's note, none yet (a note
    answers it, `results.computing.checklist.study_checklist`), and on `records` that show why."""
    return not_answered(BY_ID[entry_id], NOT_RECORDED, *records, Record(note_name(entry_id), None))


def imported(study: Study) -> Record:
    """The record that makes an entry the original study's to answer."""
    return Record("study.is_imported", study.is_imported)


def runs(results: StudyResults) -> Record:
    """The model runs the results compare with the people."""
    return Record("model runs", len(results.models))


def plural(n: int, word: str) -> str:
    if word == "person":
        return f"{n} person" if n == 1 else f"{n} people"
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
    records = (*records, Record(note_name(entry_id), note or None))
    if not note:
        return computed(BY_ID[entry_id], f"Partial: {fact}; {unpublished}", *records)
    said = note if note.startswith(VERDICTS) else f"Yes: {note}"
    return entered(BY_ID[entry_id], f"{said} ({fact})", *records)
