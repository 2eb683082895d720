"""Ruis et al.'s published human evaluation (Appendix E), read and checked for import as a closed
study of imported participants (the importing is `studies.setup.imports`)."""

from __future__ import annotations

from pathlib import Path

from ..base import DatasetError, read_csv_rows
from ..published import PublishedRow, PublishedStudy, PublishedSubset
from .parsing import NAME, item_key, parse_label

SUBSETS = ("1-150", "151-300", "301-450", "451-600")
ANNOTATORS = tuple(f"Annotator {number}" for number in range(1, 6))


def read_human_eval(source: Path) -> PublishedStudy:
    """Ruis et al.'s human evaluation (Appendix E): four files of 150 test rows in test-file order,
    five annotators each, every label Yes or No."""
    required = ("Utterance", "Response", "Ground truth", *ANNOTATORS)
    subsets = []
    for label in SUBSETS:
        name = f"human_eval_{label}.csv"
        rows = read_csv_rows(source / name, required)
        first, last = (int(bound) for bound in label.split("-"))
        if len(rows) != last - first + 1:
            raise DatasetError(name, f"expected {last - first + 1} rows, found {len(rows)} (truncated?)")
        parsed = []
        for line, row in rows:
            for column in ("Utterance", "Response"):
                if not row[column].strip():
                    raise DatasetError(name, f"empty {column}", row=line)
            gold = parse_label(row["Ground truth"])
            if gold is None or row["Ground truth"].strip().lower() not in {"yes", "no"}:
                raise DatasetError(name, f"Ground truth is {row['Ground truth']!r}, expected Yes or No", row=line)
            answers = tuple(row[column].strip() for column in ANNOTATORS)
            for column, answer in zip(ANNOTATORS, answers):
                if answer.lower() not in {"yes", "no"}:
                    raise DatasetError(name, f"{column} is {answer!r}, expected Yes or No", row=line)
            parsed.append(
                PublishedRow(line, {"utterance": row["Utterance"], "response": row["Response"]}, gold, answers)
            )
        subsets.append(PublishedSubset(name, label, ANNOTATORS, tuple(parsed)))
    return PublishedStudy(
        benchmark=NAME,
        source="Ruis et al. (2022), Appendix E human evaluation",
        split="test",
        subsets=tuple(subsets),
        match_fields=("utterance", "response"),
        item_key=lambda row: item_key("test", row.prompt["utterance"], row.prompt["response"]),
    )
