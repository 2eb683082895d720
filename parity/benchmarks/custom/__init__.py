"""A researcher's own items: a CSV or JSONL file of items of six kinds, imported as a named set
(`import_benchmark custom --source FILE --name NAME`, or the web page "Import your own items").
`items_from_records` is the entry point for other importers (e.g. lm-evaluation-harness tasks)."""

from __future__ import annotations

from .benchmark import CustomItems, score_answer
from .records import KINDS, items_from_file, items_from_records, read_records

__all__ = ["CustomItems", "KINDS", "items_from_file", "items_from_records", "read_records", "score_answer"]
