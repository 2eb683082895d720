"""The reporting checklist as a reviewer audits it: per entry its answer, its source and the records
it rests on (`parity.reporting.checklist.Record`), and a flagged contradiction where the researcher's
note differs from Parity's answer."""

from __future__ import annotations

from collections.abc import Sequence

from parity.reporting.checklist import SECTIONS, Answer, RecordValue, Status


def _value(value: RecordValue) -> str:
    return "none" if value is None else repr(value) if isinstance(value, str) else str(value)


def audit_lines(answer: Answer) -> list[str]:
    """One entry: its number and question, then its answer, source and records, indented."""
    lines = [f"{answer.entry.id} {answer.entry.question}"]
    lines.append(f"    answer: {answer.text if answer.status is Status.ANSWERED else '—'}")
    lines.append(f"    source: {answer.source}")
    if answer.is_corrected:
        lines.append(f"    Parity computed: {answer.computed_text}")
    if answer.contradicting_note:
        lines.append(f"    CONTRADICTION: the researcher's note says {answer.contradicting_note!r}")
    # every answer names its records (tests/results/computing/test_checklist_records.py holds them to the database)
    said = "; ".join(f"{record.name} = {_value(record.value)}" for record in answer.records)
    lines.append(f"    records: {said or 'none'}")
    return lines


def audit_text(answers: Sequence[Answer]) -> str:
    out: list[str] = []
    for section in SECTIONS:
        out += ["", f"== {section} =="]
        for answer in answers:
            if answer.entry.section == section:
                out += audit_lines(answer)
    return "\n".join(out) + "\n"
