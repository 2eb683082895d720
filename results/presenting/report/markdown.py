"""The report as Markdown: the placement is a table of abilities and percentiles (the IRT table)."""

from __future__ import annotations

from results.presenting.report import appendix
from results.presenting.report.build import Report
from results.presenting.report.checklist_section import markdown_lines, markdown_references
from results.presenting.report.figures import Figure, Part
from results.presenting.table_writers import markdown_table, markdown_text


def paragraph(parts: list[Part]) -> str:
    return "".join(markdown_text(part.text if isinstance(part, Figure) else part) for part in parts).strip()


def write(report: Report) -> str:
    lines = [f"# {markdown_text(report.title)}", "", "## Methods", ""]
    for parts in report.methods:
        lines += [paragraph(parts), ""]
    lines += appendix.markdown_lines(report.materials)
    lines += ["## Results", "", paragraph(report.findings), ""]
    for table in [*report.tables, *report.tests]:
        lines += markdown_table(table, level=3)
    lines += ["## Limitations", "", paragraph(report.limitations), ""]
    lines += [*markdown_lines(report.checklist), *markdown_references(report.references)]
    return "\n".join(lines)
