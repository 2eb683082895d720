"""Reading published files (pure Python): text, CSV and JSONL with the row or line each record
came from, and the one error every reader raises, naming the file, the row and the problem.
`parity.benchmarks.base` re-exports all of it."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class DatasetError(ValueError):
    """A published file is missing, malformed or truncated; the message names file, row, problem."""

    def __init__(self, file: str, problem: str, row: int | None = None) -> None:
        where = f"{file}" + (f", row {row}" if row is not None else "")
        super().__init__(f"{where}: {problem}")
        self.file = file
        self.row = row
        self.problem = problem


#: how many offending rows, documents or samples a refusal names
NAMED = 5


def some_of(names: Sequence[object], shown: int = NAMED) -> str:
    """The first `shown` of `names`, and how many more ("a, b, c and 4 more"): what a refusal names."""
    listed = ", ".join(str(name) for name in names[:shown])
    return listed + (f" and {len(names) - shown} more" if len(names) > shown else "")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def read_text(
    path: Path, label: str | None = None, *, encoding: str = "utf-8-sig", keep_line_ends: bool = False
) -> str:
    """A published text file, or a DatasetError naming it. Line ends are read as "\n" (Python's
    universal newlines) unless `keep_line_ends`: then every "\r" stays where the file has it."""
    label = label or path.name
    if not path.is_file():
        raise DatasetError(label, "file not found")
    try:
        with path.open(encoding=encoding, newline="" if keep_line_ends else None) as handle:
            return handle.read()
    except UnicodeDecodeError as exc:
        raise DatasetError(label, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def read_csv_rows(
    path: Path,
    required: Sequence[str],
    *,
    name: str | None = None,
    every_column: bool = False,
    keep_line_ends: bool = False,
) -> list[tuple[int, dict[str, str]]]:
    """(row, values) pairs of a CSV read with a real parser, `row` counted as a spreadsheet does
    (the header is row 1; a quoted field may span lines). Refuses a missing file, missing columns,
    short (truncated) rows and malformed quoting; extra columns are ignored, or with `every_column`
    kept (every row then needs every column, and a column named twice is refused). A quoted field's
    Windows line breaks are read as "\n" unless `keep_line_ends` (the bytes a published
    benchmark's own reader keeps: `open(path, newline="")` and the csv module)."""
    label = name or path.name
    text = read_text(path, label, keep_line_ends=keep_line_ends)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = [column.strip() for column in next(reader)]
    except StopIteration:
        raise DatasetError(label, "file is empty") from None
    except csv.Error as exc:
        raise DatasetError(label, f"unreadable header ({exc})", row=1) from exc
    missing = [column for column in required if column not in header]
    if missing:
        raise DatasetError(label, f"missing column(s) {', '.join(missing)}; found {', '.join(header)}", row=1)
    if every_column:
        while header and not header[-1]:  # a spreadsheet's export often ends its header with empty columns
            header.pop()
        if "" in header:
            raise DatasetError(label, f"column {header.index('') + 1} has no name", row=1)
        repeated = sorted({column for column in header if header.count(column) > 1})
        if repeated:
            raise DatasetError(label, f"column(s) named twice: {', '.join(repeated)}", row=1)
    columns = header if every_column else list(required)
    needed = max((header.index(column) for column in columns), default=-1) + 1
    rows: list[tuple[int, dict[str, str]]] = []
    number = 1
    try:
        for values in reader:
            number += 1
            if not any(value.strip() for value in values):
                continue
            if len(values) < needed:
                raise DatasetError(
                    label,
                    f"expected at least {needed} fields, found {len(values)} (truncated?; text line {reader.line_num})",
                    row=number,
                )
            rows.append((number, {column: values[header.index(column)] for column in columns}))
    except csv.Error as exc:
        raise DatasetError(label, f"malformed CSV ({exc}; text line {reader.line_num})", row=number + 1) from exc
    return rows


def read_jsonl_rows(path: Path, *, name: str | None = None) -> list[tuple[int, dict[str, Any]]]:
    """(line, object) pairs of a JSONL file, one JSON object a line, `line` counted from 1 with
    blank lines skipped but counted. Refuses a missing file, invalid JSON and anything not an object."""
    label = name or path.name
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(read_text(path, label).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(label, f"not valid JSON ({exc.msg} at column {exc.colno})", row=number) from None
        except (ValueError, RecursionError) as exc:  # a number of thousands of digits; nesting too deep
            raise DatasetError(
                label, f"not readable JSON ({type(exc).__name__}: {str(exc)[:120]})", row=number
            ) from None
        if not isinstance(record, dict):
            raise DatasetError(label, "expected a JSON object", row=number)
        rows.append((number, record))
    return rows
