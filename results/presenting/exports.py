"""Exports of a study: long (one row per annotator × item), wide (one column per annotator), and the
paper tables (LaTeX, Markdown).

What never leaves: Prolific IDs, Prolific session and study ids, IP addresses, `Response.extra`, and
free text a participant typed, unless the researcher asks for it (`include_free_text`). An answer is
exported when the benchmark calls it a choice (`Benchmark.answer_is_written`: an own item's rating,
option, number or short text) or, where the benchmark leaves it to the answer, when it lies in the
study's answer space (the gold labels, or the grades of a rating study): a typed short label such as
AmbiBench's "x" is data, and its raw form is kept. Anything else (an own item's free text, an
AmbiBench answer that is not X or Y, a written instruction in instruction induction) is free text:
its `answer` and `raw_answer` are left empty and `free_text_withheld` is true. Free text asked for
still has every Prolific ID, study id and session id of the study's participants replaced by
`[withheld]`, whatever its case (`studies.participants.withholding`, as in the replication bundle): a participant
who typed their ID into an answer does not put it in an export. An item without a
gold has an empty `correct` (neither right nor wrong). Annotators are the
pseudonyms A1..An. Excluded participants and attention checks are in the long and wide exports,
flagged; they are never in the statistics. The long and the participants' exports carry one column
per review flag (`flag_<name>`, true or false, for every flag of `studies.participants.quality.FLAGS`), and the
participants' export the flags' figures in words (`flag_evidence`). Where the study asked why
people answered (`studies.design.explanations`), the long export's `explanation` holds what they wrote with
the answer: free text, so left empty (and `free_text_withheld` true) unless asked for; asked once at
the end, it is the participants' export's `closing_explanation`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.text import slugify

from results.computing.tree import StudyResults
from results.loading.columns import HumanAnswer
from results.loading.exports import ExportRecords
from results.loading.study_data import StudyData
from results.presenting.table_writers import to_latex, to_markdown
from results.presenting.tables import paper_tables
from studies.design.closing_questions import asked, study_keys
from studies.participants.quality import FLAGS, evidence

#: format -> (content type, file suffix)
FORMATS: dict[str, tuple[str, str]] = {
    "csv": ("text/csv; charset=utf-8", "long.csv"),
    "wide-csv": ("text/csv; charset=utf-8", "wide.csv"),
    "participants-csv": ("text/csv; charset=utf-8", "participants.csv"),
    "jsonl": ("application/x-ndjson; charset=utf-8", "long.jsonl"),
    "parquet": ("application/vnd.apache.parquet", "long.parquet"),
    "latex": ("application/x-tex; charset=utf-8", "table.tex"),
    "markdown": ("text/markdown; charset=utf-8", "table.md"),
}
LONG_COLUMNS: tuple[str, ...] = (
    "study",
    "benchmark",
    "item_id",
    "item_key",
    "unit",
    "category",
    "annotator",
    "position",
    "answer",
    "raw_answer",
    "gold",
    "valid",
    "correct",
    "response_time_ms",
    "is_attention_check",
    "excluded",
    "participant_status",
    "verified_correct",
    "explanation",
    "free_text_withheld",
    *(f"flag_{name}" for name in FLAGS),
)
#: a raw answer longer than this is treated as free text even when it parses as a label
MAX_LABEL_CHARS = 20


class ExportForm(forms.Form):
    """An export request: the format (from the URL) and whether free text may leave."""

    format = forms.ChoiceField(choices=[(name, name) for name in FORMATS])
    include_free_text = forms.BooleanField(required=False)


class ExportError(ValueError):
    pass


@dataclass(frozen=True)
class ExportFile:
    filename: str
    content_type: str
    content: bytes


def shown_answer(data: StudyData, answer: HumanAnswer, *, include_free_text: bool) -> tuple[str, str, bool]:
    """(answer, raw answer, withheld) as an export may show them."""
    if include_free_text:
        return answer.answer, answer.raw_answer, False
    written = data.study.definition.answer_is_written(answer.meta)
    if written is False:
        return answer.answer or "", answer.raw_answer, False
    label = data.label(answer.answer) if answer.valid and written is None else None
    if label is not None and len(answer.raw_answer.strip()) <= MAX_LABEL_CHARS:
        return label, answer.raw_answer, False
    withheld = bool(answer.raw_answer.strip() or answer.answer)
    return "", "", withheld


def flag_cells(names: list[str]) -> dict[str, bool]:
    return {f"flag_{name}": name in names for name in FLAGS}


def long_rows(data: StudyData, records: ExportRecords, *, include_free_text: bool = False) -> list[dict[str, Any]]:
    study = data.study
    flagged = records.flags
    withholder = records.withholder
    written = records.explanations
    rows = []
    for h in data.humans:
        shown, raw, withheld = shown_answer(data, h, include_free_text=include_free_text)
        explanation = written.get((h.participant_id, h.item_id), "")
        if explanation and not include_free_text:
            explanation, withheld = "", True
        rows.append(
            {
                "study": study.name,
                "benchmark": study.benchmark,
                "item_id": h.item_id,
                "item_key": h.item_key,
                "unit": h.unit,
                "category": data.category_of(h.meta) or "",
                "annotator": h.annotator,
                "position": h.position,
                "answer": withholder.text(shown),
                "raw_answer": withholder.text(raw),
                "gold": h.gold,
                "valid": h.valid,
                # an item without a gold (a rating, a free text) is neither right nor wrong
                "correct": h.correct if h.gold else None,
                "response_time_ms": h.duration_ms,
                "is_attention_check": h.is_attention_check,
                "excluded": h.excluded,
                "participant_status": h.participant_status,
                "verified_correct": h.scores.get("verified"),
                "explanation": withholder.text(explanation),
                "free_text_withheld": withheld,
                **flag_cells(flagged.get(h.participant_id, [])),
            }
        )
    return rows


def _annotator_order(name: str) -> tuple[int, str]:
    match = re.fullmatch(r"A(\d+)", name)
    return (int(match.group(1)) if match else 1 << 30, name)


def wide_table(
    data: StudyData, records: ExportRecords, *, include_free_text: bool = False
) -> tuple[list[str], list[dict[str, Any]]]:
    """One row per item, one column per annotator (an excluded annotator's column says so)."""
    excluded = {h.annotator for h in data.humans if h.excluded}
    annotators = sorted({h.annotator for h in data.humans}, key=_annotator_order)
    header = {name: f"{name} (excluded)" if name in excluded else name for name in annotators}
    withholder = records.withholder
    rows: dict[str, dict[str, Any]] = {}
    for h in data.humans:
        row = rows.setdefault(
            h.item_key,
            {
                "item_id": h.item_id,
                "item_key": h.item_key,
                "unit": h.unit,
                "category": data.category_of(h.meta) or "",
                "gold": h.gold,
                "is_attention_check": h.is_attention_check,
            },
        )
        if h.unit not in str(row["unit"]).split(";"):
            row["unit"] = f"{row['unit']};{h.unit}"
        row[header[h.annotator]] = withholder.text(shown_answer(data, h, include_free_text=include_free_text)[0])
    columns = ["item_id", "item_key", "unit", "category", "gold", "is_attention_check", *header.values()]
    order = {key: (item.units[0] if item.units else "", item.order) for key, item in data.items.items()}
    unit_position = {unit.label: unit.position for unit in data.units}
    ordered = sorted(
        rows.values(),
        key=lambda r: (
            r["is_attention_check"],
            unit_position.get(order.get(r["item_key"], ("", 0))[0], 0),
            order.get(r["item_key"], ("", 0))[1],
            r["item_key"],
        ),
    )
    return columns, ordered


#: a spreadsheet reads a cell starting with one of these as a formula (OWASP, "CSV Injection"); a
#: leading NUL too (OWASP ASVS 5.0, 1.2.10): a spreadsheet may drop it and read the `=` behind it
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\x00")


PARTICIPANT_COLUMNS: tuple[str, ...] = (
    "study",
    "annotator",
    "unit",
    "participant_status",
    "excluded",
    "attention_failures",
    "answered",
    "duration_s",
    "closing_answered",
    *(f"flag_{name}" for name in FLAGS),
    "flag_evidence",
)


def participant_table(
    data: StudyData, records: ExportRecords, *, include_free_text: bool = False
) -> tuple[list[str], list[dict[str, Any]]]:
    """One row per participant: their unit, status and the study's closing questions (a column each,
    `closing_<key>`). Answers typed in the participant's own words are left empty unless
    `include_free_text`, as in the long export; the column `closing_free_text_withheld` says so."""
    questions = asked(study_keys(data.study))
    columns = [*PARTICIPANT_COLUMNS, *(f"closing_{question.key}" for question in questions)]
    withholds = not include_free_text and any(question.free_text for question in questions)
    if withholds:
        columns.append("closing_free_text_withheld")
    flagged = records.flags
    figures = records.evidence
    withholder = records.withholder
    rows = []
    for participant in records.participants:
        answers = participant.closing_answers
        names = flagged.get(participant.participant_id, [])
        row: dict[str, Any] = {
            "study": data.study.name,
            "annotator": participant.pseudonym,
            "unit": participant.unit,
            "participant_status": participant.status,
            "excluded": participant.excluded,
            "attention_failures": participant.attention_failures,
            "answered": participant.answered,
            "duration_s": round(participant.duration_seconds) if participant.duration_seconds is not None else "",
            "closing_answered": participant.closing_answered,
            **flag_cells(names),
            "flag_evidence": "; ".join(
                evidence(name, participant.review_signals, figures.get(participant.participant_id)) for name in names
            ),
        }
        for question in questions:
            shown = include_free_text or not question.free_text
            row[f"closing_{question.key}"] = withholder.cell(answers.get(question.key, "")) if shown else ""
        if withholds:
            row["closing_free_text_withheld"] = any(answers.get(q.key) for q in questions if q.free_text)
        rows.append(row)
    return columns, rows


def csv_cell(value: Any) -> Any:
    """One cell of a CSV export, safe to open in a spreadsheet.

    Text starting with a formula trigger (a NUL included) gets a leading single quote, as OWASP advises: a
    participant's free text such as `=HYPERLINK(...)` then shows as text instead of running.
    Numbers are left alone (a negative number is data, not a formula)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def _csv(columns: list[str] | tuple[str, ...], rows: list[dict[str, Any]]) -> bytes:
    """Every CSV export (long and wide; page, API and command) is written here, cell by cell."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([csv_cell(column) for column in columns])
    known = set(columns)
    for row in rows:
        unknown = set(row) - known
        if unknown:
            raise ValueError(f"row has columns outside the header: {sorted(unknown)}")
        writer.writerow([csv_cell(row.get(column, "")) for column in columns])
    return buffer.getvalue().encode("utf-8")


def _parquet(rows: list[dict[str, Any]]) -> bytes:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is in requirements.txt
        raise ExportError("the parquet export needs pyarrow (pip install pyarrow)") from exc
    types = {
        "item_id": pa.int64(),
        "position": pa.int64(),
        "response_time_ms": pa.int64(),
        "valid": pa.bool_(),
        "correct": pa.bool_(),
        "is_attention_check": pa.bool_(),
        "excluded": pa.bool_(),
        "verified_correct": pa.bool_(),
        "free_text_withheld": pa.bool_(),
        **{f"flag_{name}": pa.bool_() for name in FLAGS},
    }
    schema = pa.schema([(name, types.get(name, pa.string())) for name in LONG_COLUMNS])
    table = pa.Table.from_pylist(rows, schema=schema)
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def export_study(
    data: StudyData,
    fmt: str,
    *,
    records: ExportRecords,
    include_free_text: bool = False,
    results: StudyResults | None = None,
) -> ExportFile:
    """One export of a study in `fmt` (see FORMATS), from its data, the `records` the format shows
    besides the answers (`results.loading.exports.load_export_records`) and, for the paper tables'
    formats, its `results`."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; known: {', '.join(FORMATS)}")
    content_type, suffix = FORMATS[fmt]
    filename = f"{slugify(data.study.name) or f'study-{data.study.pk}'}-{suffix}"
    if fmt in {"latex", "markdown"}:
        if results is None:
            raise ValueError(f"the {fmt} export is written from the study's results: give them")
        writer = to_latex if fmt == "latex" else to_markdown
        return ExportFile(filename, content_type, writer(results, paper_tables(results)).encode("utf-8"))
    if fmt in {"wide-csv", "participants-csv"}:
        table = wide_table if fmt == "wide-csv" else participant_table
        columns, rows = table(data, records, include_free_text=include_free_text)
        return ExportFile(filename, content_type, _csv(columns, rows))
    rows = long_rows(data, records, include_free_text=include_free_text)
    if fmt == "csv":
        content = _csv(LONG_COLUMNS, rows)
    elif fmt == "jsonl":
        content = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")
    else:
        content = _parquet(rows)
    return ExportFile(filename, content_type, content)
