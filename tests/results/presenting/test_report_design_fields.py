"""The report's method section states what the researchers entered while drafting (the population of
interest, the ethics review, the paper) and the design's power analysis, in HTML, Markdown and LaTeX,
every number of it a figure of `study_results --json`."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from results.computing.tree import StudyResults
from results.presenting.report import build_report
from results.presenting.report.figures import plain
from tests.factories import small_study
from tests.results.latex_check import check_latex
from tests.results.presenting.test_study_report import _assert_figures_are_the_json, _command

pytestmark = pytest.mark.django_db


def test_the_method_section_states_the_population_ethics_paper_and_power(implicature, tmp_path) -> None:
    study = small_study(
        "planned with care",
        units=2,
        unit_size=40,
        per_unit=15,
        attention_checks=0,
        exclude_at=0,
        population="adult native English speakers in the UK",
        ethics_body="University Research Ethics Committee",
        ethics_reference="UREC-2026-117",
        paper_title="Do models get implicature?",
        paper_venue="NeurIPS 2023",
    )
    results = _assert_figures_are_the_json(study.name)
    power = results["methods"]["reporting"]["power"]
    assert (power["people"], power["units"], power["items_per_person"]) == (30, 2, 40)
    text = " ".join(plain(parts) for parts in build_report(StudyResults.from_json(results)).paragraphs)
    assert "The population of interest is adult native English speakers in the UK." in text
    assert "reviewed by University Research Ethics Committee (reference UREC-2026-117)." in text
    assert "reported in “Do models get implicature?” (NeurIPS 2023)." in text
    below = f"{100 * abs(power['detectable_below']):.1f} points for a model below the people"
    assert "Before launch, a power analysis for 30 people in 2 units of 40 items each" in text and below in text
    assert "Its variance came from the published human study" in text
    markdown = _command("study_report", study.name, "--format", "markdown")
    assert below in markdown and "UREC-2026-117" in markdown
    path = tmp_path / "report.tex"
    call_command("study_report", study.name, "--format", "latex", "--out", str(path), stderr=StringIO())
    latex = path.read_text()
    check_latex(latex)
    assert "UREC-2026-117" in latex and "points for a model below the people" in latex


def test_a_study_without_an_ethics_review_says_so(implicature) -> None:
    study = small_study("unstated", attention_checks=0, exclude_at=0)
    text = " ".join(
        plain(parts)
        for parts in build_report(StudyResults.from_json(_assert_figures_are_the_json(study.name))).paragraphs
    )
    assert "The researchers did not state an ethics review." in text
    assert "population of interest" not in text
