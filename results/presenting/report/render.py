"""The report written in a format: the choice of writer."""

from __future__ import annotations

from collections.abc import Sequence

from parity.reporting.checklist import Answer
from results.computing.tree import StudyResults
from results.presenting.report import html, latex, markdown
from results.presenting.report.build import FORMATS, build_report
from results.presenting.report.materials import Materials


def render_report(
    results: StudyResults,
    fmt: str,
    checklist: Sequence[Answer] = (),
    public_title: str = "",
    materials: Materials | None = None,
) -> str:
    """The report in `fmt` (a key of FORMATS), with the study's checklist answers, its public title
    (`Study.public_title`) and its materials for the appendix where given."""
    writers = {"latex": latex.write, "markdown": markdown.write, "html": html.write}
    if fmt not in writers:
        raise ValueError(f"unknown report format {fmt!r}; known: {', '.join(FORMATS)}")
    return writers[fmt](build_report(results, checklist, public_title, materials))
