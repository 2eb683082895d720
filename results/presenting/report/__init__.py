"""A study's report, for a paper to paste: the methods paragraphs, the headline results, the paper
tables, the tests and the placement plot, in LaTeX, Markdown or HTML (`render_report`).

Built from the results tree alone (`results.computing.assemble.study_results_tree`): every number is the page's."""

from __future__ import annotations

from results.presenting.report.build import FORMATS, Report, build_report
from results.presenting.report.render import render_report

__all__ = ["FORMATS", "Report", "build_report", "render_report"]
