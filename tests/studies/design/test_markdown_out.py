"""Markdown out of Parity is written with `parity.markdown`: a researcher's text in the preregistration
(`/studies/<id>/preregistration.md`, the bundle's `preregistration/preregistration.md`) and in the
reporting checklist (`analysis/checklist.md`) reads as text where Markdown becomes HTML (OSF,
GitHub), as the report's already did: no `<script>` or `<iframe>` tag and no link comes out of it."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from parity import markdown
from replication.bundles import bundle_files
from studies.models import Study
from studies.preregistration.services import preregistration_update
from studies.setup.checklist import study_checklist_notes_set
from studies.setup.studies import study_set_status
from tests.factories import small_study
from tests.personas import personas_for, signed_in

pytestmark = pytest.mark.django_db

HOSTILE = '<script>alert(1)</script> <iframe src="https://evil.example"></iframe> [x](javascript:alert(1)) `a|b` &amp;'


def _html(text: str) -> str:
    """The file as a Markdown site shows it: CommonMark with its tables, raw HTML allowed."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(text)


def _holds_the_text_as_text(text: str) -> None:
    html = _html(text)
    assert "<script" not in html and "<iframe" not in html and "<a " not in html
    assert "[x](javascript:" not in text.replace("\\[x\\](javascript:", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.fixture
def hostile(implicature) -> Study:
    study = small_study("study " + HOSTILE, status=Study.Status.DRAFT, attention_checks=0)
    Study.objects.filter(pk=study.pk).update(
        population=HOSTILE, ethics_body=HOSTILE, ethics_reference="R1", paper_title=HOSTILE, group=HOSTILE
    )
    study.refresh_from_db()
    preregistration_update(study=study, hypotheses=f"First line.\n\n{HOSTILE}\n- {HOSTILE}", notes=HOSTILE)
    study_checklist_notes_set(study=study, notes={"3.3.2": HOSTILE})
    study_set_status(study=study, status=Study.Status.LIVE)
    return study


def test_the_preregistration_download_writes_the_researchers_text_as_text(hostile):
    page = signed_in(personas_for(hostile).viewer).get(f"/studies/{hostile.pk}/preregistration.md")
    text = page.content.decode()
    _holds_the_text_as_text(text)
    assert f"# Preregistration: {markdown.text('study ' + HOSTILE)}" in text
    # the hypotheses keep their lines; the hashes stay code
    assert "First line.\n\n" + markdown.text(HOSTILE) + "\n- " in text
    assert f"SHA-256 of the document: `{hostile.preregistration.sha256}`" in text


@pytest.mark.parametrize("path", ["preregistration/preregistration.md", "analysis/checklist.md"])
def test_the_bundles_markdown_writes_the_researchers_text_as_text(hostile, path):
    text = bundle_files(hostile)[path].decode()
    _holds_the_text_as_text(text)


def test_a_code_span_holds_any_backticks_and_a_cell_any_pipe():
    assert markdown.code("a`b") == "``a`b``"
    assert markdown.code("`") == "`` ` ``"
    assert _html(markdown.row(markdown.code("a|b"), "c|d")).count("<td>") == 0  # a row alone is no table
    table = "\n".join(["| x | y |", "|---|---|", markdown.row(markdown.code("a|b"), "c|d <b>")])
    assert "<td><code>a|b</code></td>\n<td>c|d &lt;b&gt;</td>" in _html(table)
    assert markdown.block(" one\n\n<two>\n") == ["one", "", "\\<two\\>"]
