"""A paper table as text cells: what a benchmark's own tables (`Benchmark.paper_tables`) and the
results' shared ones (`results.presenting.tables`) are made of, and the two cell formats they share.
Written as HTML, Markdown or LaTeX by the results' writers."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    key: str
    title: str
    columns: list[str]
    rows: list[list[str]]
    #: indices of rows that start a summary block (a rule is drawn above them)
    summary_from: int | None = None
    #: what the table's aggregates are, printed under it
    notes: tuple[str, ...] = ()


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"
