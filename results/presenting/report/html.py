"""The report as one self-contained HTML page: the placement plot inline as SVG; each figure of a
paragraph marked with the path it was taken from (`data-path`), for a reader or a test to check."""

from __future__ import annotations

from html import escape

from results.presenting.report import appendix
from results.presenting.report.build import Report
from results.presenting.report.checklist_section import html_references, html_section
from results.presenting.report.figures import Figure, Part
from results.presenting.report.plot import svg
from results.presenting.tables import Table

STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding-bottom: .3rem; }
th, td { padding: .2rem .6rem; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.summary td { border-top: 2px solid #999; }
p.note { font-size: 12px; color: #555; margin: .2rem 0; }
blockquote.verbatim { white-space: pre-wrap; font-size: 14px; border-left: 3px solid #ccc; padding: .2rem 1rem; }
"""


def paragraph(parts: list[Part]) -> str:
    out = []
    for part in parts:
        if isinstance(part, Figure):
            path = ".".join(str(key) for key in part.path)
            out.append(
                f'<span class="figure" data-path="{escape(path)}" data-kind="{part.kind}">{escape(part.text)}</span>'
            )
        else:
            out.append(escape(part))
    return f"<p>{''.join(out).strip()}</p>"


def table(found: Table) -> str:
    head = "".join(f"<th>{escape(column)}</th>" for column in found.columns)
    rows = []
    for index, row in enumerate(found.rows):
        summary = ' class="summary"' if found.summary_from is not None and index == found.summary_from else ""
        rows.append(f"<tr{summary}>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>")
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in found.notes)
    return (
        f'<table id="table-{escape(found.key)}"><caption>{escape(found.title)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{notes}"
    )


def write(report: Report) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(report.title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(report.title)}</h1>",
        '<section id="methods"><h2>Methods</h2>',
        *[paragraph(parts) for parts in report.methods],
        "</section>",
        *appendix.html_lines(report.materials),
        '<section id="results"><h2>Results</h2>',
        paragraph(report.findings),
    ]
    if report.placement is not None:
        parts += [
            '<figure id="placement">',
            svg(report.placement),
            "<figcaption>People's abilities (dots) and each model's, with its 95% CI, on one scale.</figcaption>",
            "</figure>",
        ]
    parts += [table(found) for found in [*report.tables, *report.tests]]
    parts += ["</section>", '<section id="limitations"><h2>Limitations</h2>', paragraph(report.limitations)]
    parts += ["</section>", html_section(report.checklist), html_references(report.references), "</body></html>"]
    return "\n".join(parts)
