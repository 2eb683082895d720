"""The human-baselines reporting checklist (Wei, Paskov et al., "Position: Human Baselines in Model
Evaluations Need Rigor and Transparency", ICML 2025) as data: each entry's number as the checklist
numbers it, its section and its question in short; and the typed answer a study gives to it.

The questions are paraphrased, not quoted: the checklist itself is the reference. Which answer a
study gives is decided in `results.computing.checklist`; this module knows no study.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from parity import markdown

CITATION = (
    "Wei, Paskov et al., Position: Human Baselines in Model Evaluations Need Rigor and Transparency "
    "(With Recommendations & Reporting Checklist), ICML 2025"
)


class Status(StrEnum):
    ANSWERED = "answered"
    NOT_ANSWERED = "not answered"
    NOT_APPLICABLE = "not applicable"


#: the source of an answer Parity computed from the study's data
COMPUTED = "computed by Parity"
#: the source of an answer taken from a field the researcher filled in
ENTERED = "entered by the researcher"
#: the source of a computed answer the researcher corrected (followed by ": <reason>")
CORRECTED = "corrected by the researcher"


@dataclass(frozen=True)
class Entry:
    id: str
    section: str
    question: str


#: a value a record of the study holds: a count, a setting, a field's text
RecordValue = str | int | float | bool | None


@dataclass(frozen=True)
class Record:
    """One record an answer rests on, named as the study's data names it ("study.design.shuffle_items",
    "items in the study's item set"), with the value the answer read."""

    name: str
    value: RecordValue


@dataclass(frozen=True)
class Answer:
    entry: Entry
    status: Status
    text: str
    #: COMPUTED, ENTERED, "not answered: <reason>" or "not applicable: <reason>"
    source: str
    #: the records the answer was derived from, for a reviewer (or a test) to check it against
    records: tuple[Record, ...] = ()
    #: a corrected answer: what Parity had computed, kept beside the researcher's
    computed_text: str = ""
    #: the researcher's note on an entry Parity answered, where the two differ: both are shown, flagged
    contradicting_note: str = ""

    @property
    def verdict(self) -> str:
        """The answer in the checklist's own vocabulary: Yes, Partial, No or N/A ("—" where it is not
        answered). An answer that gives a figure or a description without a word of its own reports
        what the entry asks for: Yes."""
        if self.status is Status.NOT_APPLICABLE:
            return "N/A"
        if self.status is Status.NOT_ANSWERED:
            return "—"
        return next((word for word in VERDICTS if _begins_with(self.text, word)), "Yes")

    @property
    def pointer(self) -> str:
        """Where the report says more: a section of the report or the replication bundle."""
        return (
            ""
            if self.status is not Status.ANSWERED
            else POINTERS.get(self.entry.id, _SECTION_POINTERS.get(self.entry.section, ""))
        )

    @property
    def shown_text(self) -> str:
        """The answer as every rendering prints it: its verdict first, the pointer after ("—" where not
        answered, "N/A" with nothing after it where not applicable)."""
        if self.status is not Status.ANSWERED:
            return self.verdict
        text = self.text if _begins_with(self.text, self.verdict) else f"{self.verdict} — {self.text}"
        return f"{text} (see {self.pointer})" if self.pointer else text

    @property
    def is_corrected(self) -> bool:
        return self.source.startswith(f"{CORRECTED}: ")

    @property
    def shown_source(self) -> str:
        """The source as every rendering prints it: a correction with what Parity computed, a
        contradiction with the researcher's note."""
        said = self.source
        if self.is_corrected:
            said += f" (Parity computed: {self.computed_text})"
        if self.contradicting_note:
            said += f"; contradicted by the researcher's note: “{self.contradicting_note}”"
        return said

    def record(self, name: str) -> RecordValue:
        """The value of the record `name` the answer rests on (KeyError: it rests on no such record)."""
        for record in self.records:
            if record.name == name:
                return record.value
        raise KeyError(f"{self.entry.id} rests on no record {name!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.entry.id,
            "section": self.entry.section,
            "question": self.entry.question,
            "status": str(self.status),
            "text": self.text,
            "verdict": self.verdict,
            "pointer": self.pointer,
            "source": self.source,
            "records": {record.name: record.value for record in self.records},
            **({"computed": self.computed_text} if self.is_corrected else {}),
            **({"contradicting_note": self.contradicting_note} if self.contradicting_note else {}),
        }


#: the checklist's vocabulary for an answer (N/A is a status: `Status.NOT_APPLICABLE`)
VERDICTS = ("Yes", "Partial", "No")


def _begins_with(text: str, word: str) -> bool:
    return text == word or any(text.startswith(word + mark) for mark in (":", ",", ";", " ("))


def computed(entry: Entry, text: str, *records: Record) -> Answer:
    return Answer(entry, Status.ANSWERED, text, COMPUTED, records)


def entered(entry: Entry, text: str, *records: Record) -> Answer:
    return Answer(entry, Status.ANSWERED, text, ENTERED, records)


def note_name(entry_id: str) -> str:
    """The record of the researcher's note on an entry (`Study.checklist_notes[entry_id]`)."""
    return f"checklist note {entry_id}"


def correction_name(entry_id: str) -> str:
    """The record of the researcher's correction of an entry (`Study.checklist_corrections[entry_id]`)."""
    return f"checklist correction {entry_id}"


def _with(records: tuple[Record, ...], *more: Record) -> tuple[Record, ...]:
    """`records` with `more` in place of any of the same name."""
    names = {record.name for record in more}
    return (*(record for record in records if record.name not in names), *more)


def corrected(answer: Answer, text: str, reason: str) -> Answer:
    """The researcher's `text` in place of Parity's `answer`, for `reason`; Parity's answer is kept,
    and so are the records it rested on, with the correction's."""
    was = answer.text if answer.status is Status.ANSWERED else answer.source
    records = _with(
        answer.records,
        Record(correction_name(answer.entry.id), text),
        Record(f"{correction_name(answer.entry.id)}.reason", reason),
    )
    return Answer(answer.entry, Status.ANSWERED, text, f"{CORRECTED}: {reason}", records, computed_text=was)


def contradicted(answer: Answer, note: str) -> Answer:
    """Parity's `answer` with the researcher's differing `note` beside it, flagged."""
    return replace(
        answer, contradicting_note=note, records=_with(answer.records, Record(note_name(answer.entry.id), note))
    )


def filled(answer: Answer, note: str) -> Answer:
    """An entry Parity left unanswered, answered by the researcher's `note`, on the records Parity read."""
    return entered(answer.entry, note, *_with(answer.records, Record(note_name(answer.entry.id), note)))


def not_answered(entry: Entry, reason: str, *records: Record) -> Answer:
    return Answer(entry, Status.NOT_ANSWERED, "", f"not answered: {reason}", records)


def not_applicable(entry: Entry, reason: str, *records: Record) -> Answer:
    return Answer(entry, Status.NOT_APPLICABLE, "", f"not applicable: {reason}", records)


PAPER = "Paper information"
DESIGN = "Baseline design and implementation"
RECRUITMENT = "Baseliner recruitment"
EXECUTION = "Baseline execution"
ANALYSIS = "Baseline analysis"
DOCUMENTATION = "Baseline documentation"
SECTIONS = (PAPER, DESIGN, RECRUITMENT, EXECUTION, ANALYSIS, DOCUMENTATION)

_QUESTIONS: dict[str, list[tuple[str, str]]] = {
    PAPER: [
        ("0.1", "The paper's title"),
        ("0.2", "A link to the paper"),
        ("0.3", "The year of publication"),
        ("0.4", "Where the paper appears"),
        ("0.5", "The kind of evaluation (knowledge, capabilities, propensity, agent)"),
        ("0.6", "The evaluation's mode (text, visual, audio, other)"),
        ("0.7", "The evaluation's language(s)"),
        ("0.8", "How many items the evaluation dataset holds"),
        ("0.9", "How many items the models were evaluated on"),
        ("0.10", "How many model answers were collected per item"),
    ],
    DESIGN: [
        ("1.1", "How many human baseliners took part"),
        ("1.2", "How many items the human baseline covers"),
        ("1.2.1", "How those items were sampled from the dataset"),
        ("1.3", "How many human answers were collected per item"),
        ("1.4", "How many items each baseliner answered"),
        ("1.5", "Whether the items and instructions were adjusted so neither humans nor models are favoured"),
        ("1.6", "Whether the baseline was designed iteratively (pilot, expert review)"),
        ("1.7", "Whether effort (time, cost) was controlled between humans and models"),
        ("1.8", "Whether a power analysis set the baseline's size"),
        ("1.8.1", "The smallest detectable effect and the power"),
        ("1.9", "Whether an ethics board approved or exempted the study"),
        ("1.10", "Whether the design was preregistered"),
    ],
    RECRUITMENT: [
        ("2.1", "Whether a human population of interest is named"),
        ("2.1.1", "Which criteria scope that population"),
        ("2.2", "How baseliners were recruited (crowdsourcing, convenience, random sample...)"),
        ("2.3", "Whether baseliners were prequalified or excluded at recruitment"),
        ("2.3.1", "The recruitment inclusion and exclusion criteria"),
        ("2.3.2", "How many were excluded at recruitment"),
        ("2.4", "Whether the authors served as baseliners"),
        ("2.5", "Whether baseliners who had seen the items before were excluded"),
        ("2.6", "Whether baseliners were trained before the baseline"),
        ("2.6.1", "What the training was"),
        ("2.6.2", "Whether the training was paid"),
        ("2.6.2.1", "How much the training paid"),
        ("2.7", "Whether baseliners were paid for the baseline"),
        ("2.7.1", "How much they were paid"),
        ("2.7.2", "Whether a performance bonus was offered"),
        ("2.7.2.1", "The bonus's amount and rule"),
        ("2.7.3", "Whether all baseliners were paid at the same rate"),
        ("2.7.3.1", "How unequal pay was set"),
    ],
    EXECUTION: [
        ("3.1", "How many items a baseliner answered in one sitting"),
        ("3.1.1", "Whether the order of the items was randomized"),
        ("3.2", "Whether data quality was checked or answers excluded during collection"),
        ("3.2.1", "The quality criteria used"),
        ("3.2.2", "How many were excluded by them"),
        ("3.3", "Whether humans and models saw the same interface"),
        ("3.3.1", "Humans on a graphical interface, models through an API"),
        ("3.3.2", "Whether interface differences were adjusted for"),
        ("3.4", "Whether humans and models had the same instructions and prompts"),
        ("3.4.1", "Whether instruction differences were adjusted for"),
        ("3.5", "Whether humans and models had the same tools"),
        ("3.5.1", "Whether limits on the humans' tools were enforced"),
        ("3.6", "Whether baseliners' explanations of their answers were collected"),
    ],
    ANALYSIS: [
        ("4.1", "Whether the difference between models and humans was tested for significance"),
        ("4.1.1", "Which test was used"),
        ("4.2", "Whether uncertainty is reported for the human and model results"),
        ("4.2.1", "Point, interval or distribution estimate"),
        ("4.3", "Whether humans and models are measured by the same metric"),
        ("4.4", "Whether the same scoring rubric is used for both"),
        ("4.5", "Whether the same scoring method is used for both"),
        ("4.6", "Whether the analyses are robust to the exclusion criteria"),
    ],
    DOCUMENTATION: [
        ("5.1.1", "Whether the sample's demographics are reported"),
        ("5.1.2", "Whether the baseliners' instructions are reported"),
        ("5.1.3", "Whether the time to completion is reported"),
        ("5.1.4", "Which AI tools and versions baseliners could use"),
        ("5.1.5", "How many recruited baseliners did not complete"),
        ("5.2", "Whether the anonymized human baseline data are public"),
        ("5.2.1", "Whether the data are available per baseliner"),
        ("5.2.2", "Why the data are not available, if not"),
        ("5.3", "Whether the experimental materials are public"),
        ("5.4", "Whether the analysis code is public"),
    ],
}

#: where the report says more, by section of the checklist (`POINTERS` for the entries that differ)
_SECTION_POINTERS = {
    DESIGN: "Methods",
    RECRUITMENT: "Methods",
    EXECUTION: "Methods",
    ANALYSIS: "Methods, statistics",
    DOCUMENTATION: "Methods",
}
POINTERS = {
    "0.6": "Methods",
    "0.7": "Methods",
    "0.8": "Methods",
    "0.9": "Results",
    "0.10": "Methods",
    "1.2": "Results",
    "1.8": "Methods, statistics",
    "1.8.1": "Methods, statistics",
    "4.6": "Results, robustness table",
    "5.2": "the replication bundle",
    "5.2.1": "the replication bundle",
    "5.2.2": "the replication bundle",
    "5.3": "the replication bundle",
    "5.4": "the replication bundle",
}

ENTRIES: tuple[Entry, ...] = tuple(
    Entry(number, section, question) for section, rows in _QUESTIONS.items() for number, question in rows
)
BY_ID: dict[str, Entry] = {entry.id: entry for entry in ENTRIES}


def _kind(answer: Answer) -> str:
    if answer.status is not Status.ANSWERED:
        return str(answer.status)
    return CORRECTED if answer.is_corrected else answer.source


def counts(answers: Sequence[Answer]) -> dict[str, int]:
    """How many answers came from each source kind: computed, entered, corrected, not applicable, not
    answered (a correction is counted only where there is one, so an uncorrected checklist's tally is
    the four kinds)."""
    found = Counter(_kind(answer) for answer in answers)
    kinds = (COMPUTED, ENTERED, *([CORRECTED] if found[CORRECTED] else []))
    return {key: found[key] for key in (*kinds, str(Status.NOT_APPLICABLE), str(Status.NOT_ANSWERED))}


def contradictions(answers: Sequence[Answer]) -> list[Answer]:
    """The answers a researcher's note contradicts."""
    return [answer for answer in answers if answer.contradicting_note]


def checklist_json(answers: Sequence[Answer]) -> str:
    return json.dumps(
        {"checklist": CITATION, "counts": counts(answers), "entries": [answer.to_json() for answer in answers]},
        indent=2,
        ensure_ascii=False,
    )


def checklist_markdown(answers: Sequence[Answer], title: str = "Reporting checklist") -> str:
    lines = [
        f"# {markdown.text(title)}",
        "",
        markdown.text(f"The human-baselines reporting checklist ({CITATION})."),
        "",
    ]
    tally = counts(answers)
    lines += ["; ".join(f"{key}: {n}" for key, n in tally.items()), ""]
    for section in SECTIONS:
        lines += [f"## {section}", "", "| # | Question | Answer | Source |", "|---|---|---|---|"]
        for answer in answers:
            if answer.entry.section == section:
                cells = (answer.entry.id, answer.entry.question, answer.shown_text, answer.shown_source)
                lines.append(markdown.row(*cells))
        lines.append("")
    return "\n".join(lines)
