"""The report's content, whatever its format (each format's writer: `results.presenting.report.render`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from parity.reporting.checklist import Answer
from parity.reporting.references import references
from results.computing.spine import StudyResults
from results.presenting.report.checklist_section import limitations
from results.presenting.report.figures import Part
from results.presenting.report.paragraphs import Paragraph, methods_paragraphs, results_paragraph
from results.presenting.report.sections import Placement, placement, test_tables
from results.presenting.tables import Table, paper_tables

#: format -> (content type, file suffix)
FORMATS: dict[str, tuple[str, str]] = {
    "latex": ("application/x-tex; charset=utf-8", "report.tex"),
    "markdown": ("text/markdown; charset=utf-8", "report.md"),
    "html": ("text/html; charset=utf-8", "report.html"),
}


@dataclass(frozen=True)
class Report:
    title: str
    methods: list[Paragraph]
    findings: Paragraph
    #: the paper tables (humans per unit, humans and models on the same items, breakdowns)
    tables: list[Table]
    #: the paired tests, the human band, the item-response model (where computed)
    tests: list[Table]
    placement: Placement | None
    #: the limitations, from the study's figures and its unanswered checklist entries
    limitations: Paragraph = field(default_factory=list)
    #: the human-baselines reporting checklist, answered (empty where the study was not at hand)
    checklist: tuple[Answer, ...] = ()
    #: BibTeX: Parity, the checklist, the benchmark's paper
    references: tuple[str, ...] = ()

    @property
    def paragraphs(self) -> list[list[Part]]:
        return [*self.methods, self.findings]


def build_report(results: StudyResults, checklist: Sequence[Answer] = ()) -> Report:
    """The report; `checklist`: the study's answers (`results.computing.checklist.study_checklist`)."""
    return Report(
        title=f"{results.study}: people and models on the same items",
        methods=methods_paragraphs(results),
        findings=results_paragraph(results),
        tables=paper_tables(results),
        tests=test_tables(results),
        placement=placement(results),
        limitations=limitations(results, checklist),
        checklist=tuple(checklist),
        references=tuple(references(results.benchmark)),
    )
