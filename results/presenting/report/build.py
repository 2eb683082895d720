"""The report's content, whatever its format (each format's writer: `results.presenting.report.render`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from parity.reporting.checklist import Answer
from parity.reporting.references import references
from results.computing.tree import StudyResults
from results.presenting.report.checklist_section import limitations
from results.presenting.report.figures import Part
from results.presenting.report.materials import Materials
from results.presenting.report.paragraphs import Paragraph, methods_paragraphs, methods_sections, results_paragraph
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
    #: the methods as headed sections, for a paper's appendix (the LaTeX report)
    method_sections: list[tuple[str, Paragraph]] = field(default_factory=list)
    #: the study's texts and item page for the appendix (None: written from the results alone, no appendix)
    materials: Materials | None = None

    @property
    def paragraphs(self) -> list[list[Part]]:
        return [*self.methods, self.findings]


def report_title(results: StudyResults, public_title: str = "") -> str:
    """The title a paper's reader sees: the study's public title (what its participants saw), else
    the benchmark's; never the researchers' own name for the study."""
    subject = public_title.strip() or results.methods.design.benchmark_title or results.benchmark
    return f"{subject}: people and language models on the same items"


def build_report(
    results: StudyResults,
    checklist: Sequence[Answer] = (),
    public_title: str = "",
    materials: Materials | None = None,
) -> Report:
    """The report; `checklist`: the study's answers (`results.computing.checklist.study_checklist`);
    `public_title`: the study's public title (`Study.public_title`); `materials`: its texts, item page
    and original study (`results.presenting.report.materials.study_materials`)."""
    return Report(
        title=report_title(results, public_title),
        methods=methods_paragraphs(results, materials),
        findings=results_paragraph(results),
        tables=paper_tables(results),
        tests=test_tables(results),
        placement=placement(results),
        limitations=limitations(results, checklist),
        checklist=tuple(checklist),
        references=tuple(references(results.benchmark)),
        method_sections=methods_sections(results, materials),
        materials=materials,
    )
