"""The report's materials: the study's consent form and instructions verbatim (every line, LaTeX's
specials escaped) and an item page's screenshot where one lies beside the report, else one line that
says there is none; in LaTeX (compiled by pdflatex), Markdown and HTML."""

from __future__ import annotations

import shutil
import subprocess
from html import escape
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from results.presenting.report.latex import tex
from results.presenting.report.materials import NO_SHOT, SCREENSHOT, SHOT_SAID
from studies.models import Study
from tests.results.presenting.test_latex_compiles import PDFLATEX, compile_latex

pytestmark = pytest.mark.django_db

#: texts a researcher may write: Markdown, LaTeX's specials, a blank line, a list, backticks
INSTRUCTIONS = (
    "Read each **pair** & decide: 100% of _items_ {count}, $5 #1 ~ ^ \\ [x]\n"
    "\n"
    "- answer yes or no\n"
    "- ```take your time```\n"
    "Thank you."
)
CONSENT = "I agree to take part.\r\nMy answers are kept under a pseudonym (see §2)."


@pytest.fixture
def texts(pilot):
    study = Study.objects.get(pk=pilot.study_id)
    before = study.instructions_text, study.consent_text
    study.instructions_text, study.consent_text = INSTRUCTIONS, CONSENT
    study.save(update_fields=["instructions_text", "consent_text"])
    yield study
    study.instructions_text, study.consent_text = before
    study.save(update_fields=["instructions_text", "consent_text"])


def _report(study: Study, fmt: str, folder: Path) -> str:
    path = folder / {"latex": "report.tex", "markdown": "report.md", "html": "report.html"}[fmt]
    call_command("study_report", study.name, "--format", fmt, "--out", str(path), stderr=StringIO())
    return path.read_text(encoding="utf-8")


def _lines(text: str) -> list[str]:
    return [line for line in text.replace("\r\n", "\n").split("\n") if line.strip()]


def test_the_markdown_and_html_reports_hold_the_texts_verbatim(texts, tmp_path) -> None:
    study = Study.objects.get(pk=texts.pk)
    markdown = _report(study, "markdown", tmp_path)
    # each in a fence longer than the longest run of backticks in it (the instructions hold three)
    consent = markdown.split("```text\n", 1)[1].split("\n```\n", 1)[0]
    instructions = markdown.split("````text\n", 1)[1].split("\n````\n", 1)[0]
    assert consent == study.consent_text.replace("\r\n", "\n")
    assert instructions == study.instructions_text
    assert markdown.index("#### Consent") < markdown.index("#### Instructions") < markdown.index("## Results")
    assert NO_SHOT in markdown
    html = _report(study, "html", tmp_path)
    assert f'<blockquote class="verbatim">{escape(study.instructions_text)}</blockquote>' in html
    consent = study.consent_text.replace("\r\n", "\n")
    assert f'<blockquote class="verbatim">{escape(consent)}</blockquote>' in html


@pytest.mark.skipif(PDFLATEX is None or shutil.which("pdftotext") is None, reason="pdflatex and pdftotext needed")
def test_the_latex_report_escapes_the_texts_and_compiles_with_and_without_a_screenshot(texts, tmp_path) -> None:
    from PIL import Image

    study = Study.objects.get(pk=texts.pk)
    document = _report(study, "latex", tmp_path)
    for line in _lines(study.instructions_text) + _lines(study.consent_text):
        assert tex(line).strip() in document, line
    # where no screenshot lies beside the .tex when it is compiled, one line says so
    assert f"\\IfFileExists{{{SCREENSHOT}}}" in document
    compile_latex(document, tmp_path / "bare")
    text = subprocess.run(["pdftotext", "report.pdf", "-"], cwd=tmp_path / "bare", capture_output=True, text=True)
    flat = " ".join(text.stdout.split())
    assert NO_SHOT in flat.replace("- ", "-")
    for line in ("Read each **pair** & decide: 100% of _items_ {count}, $5 #1 ~ ^ \\ [x]", "- answer yes or no"):
        assert line in flat, line
    # an item page's image beside the .tex: included, with its caption
    shot = tmp_path / "shot"
    shot.mkdir()
    Image.new("RGB", (1200, 800), "white").save(shot / SCREENSHOT)
    compile_latex(_report(study, "latex", shot), shot)
    text = subprocess.run(["pdftotext", "report.pdf", "-"], cwd=shot, capture_output=True, text=True).stdout
    assert SHOT_SAID in " ".join(text.split()) and NO_SHOT not in " ".join(text.split())
    # the Markdown written beside it shows it too
    markdown = _report(study, "markdown", shot)
    assert f"![{SHOT_SAID}]({SCREENSHOT})" in markdown and NO_SHOT not in markdown


def test_the_screenshot_command_draws_the_item_page_beside_the_report(texts, tmp_path, django_user_model) -> None:
    from PIL import Image

    from tests.browser.conftest import chromium_path

    if chromium_path() is None:
        pytest.fail("Chromium is needed: `apt-get install chromium` (scripts/setup installs it)")
    study = Study.objects.get(pk=texts.pk)
    assert study.owner is None  # previewed as a superuser
    django_user_model.objects.create_superuser("shot-admin", "shot@example.org", "x")
    call_command("study_screenshot", study.name, "--dir", str(tmp_path), stderr=StringIO())
    image = Image.open(tmp_path / SCREENSHOT).convert("L")
    assert image.width == 1200 and image.height >= 480
    # a page drawn, not a blank one: text and the page's colours
    assert len(image.getcolors(maxcolors=256 * 256) or []) > 20
    markdown = _report(study, "markdown", tmp_path)
    assert f"![{SHOT_SAID}]({SCREENSHOT})" in markdown


def test_the_screenshot_is_drawn_when_its_caller_runs_an_asyncio_loop(tmp_path) -> None:
    """Playwright's sync API refuses a thread whose asyncio loop runs (the suite met one left by
    earlier tests in its process, and the command failed): the drawing has a thread of its own."""
    import asyncio
    import threading

    from PIL import Image

    from results.management.commands.study_screenshot import drawn
    from tests.browser.conftest import chromium_path

    chromium = chromium_path()
    if chromium is None:
        pytest.fail("Chromium is needed: `apt-get install chromium` (scripts/setup installs it)")
    path = tmp_path / SCREENSHOT

    async def inside_a_loop() -> None:
        drawn(chromium, "/item/", b"<!doctype html><title>x</title><p>An item of the study</p>", path)

    # the loop is run in a thread of the test's own: the test's thread may hold a loop already (the
    # browser tests' sync Playwright leaves one there), where asyncio.run itself refuses to start
    failures: list[BaseException] = []

    def run_a_loop() -> None:
        try:
            asyncio.run(inside_a_loop())
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)

    caller = threading.Thread(target=run_a_loop)
    caller.start()
    caller.join()
    assert failures == []
    assert Image.open(path).width == 1200


def test_the_screenshot_command_refuses_an_imported_study_and_writes_nothing(baseline, tmp_path) -> None:
    from django.core.management.base import CommandError

    study = Study.objects.get(pk=baseline.study_id)
    with pytest.raises(CommandError, match="never saw Parity's pages"):
        call_command("study_screenshot", study.name, "--dir", str(tmp_path))
    assert not (tmp_path / SCREENSHOT).exists()
