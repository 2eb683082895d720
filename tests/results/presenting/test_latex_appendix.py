"""The LaTeX report as a paper's appendix, read in the compiled PDF's text (pdftotext -layout): each
table stays in its section, the references are BibTeX's, the title is the study's public title, and
the checklist is a captioned long table whose heading repeats and whose section rows are never
left alone at a page's foot."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from parity.reporting.checklist import SECTIONS
from results.computing.tree import StudyResults
from results.presenting.report import render_report
from studies.models import Study
from tests.results.computing.test_checklist_records import full  # noqa: F401 (the study with every optional feature)
from tests.results.presenting.test_latex_compiles import PDFLATEX, _command_latex, _json, compile_latex
from tests.results.presenting.test_study_report import _with_sections

pytestmark = pytest.mark.skipif(
    PDFLATEX is None or not all(shutil.which(tool) for tool in ("pdftotext", "pdftoppm", "bibtex")),
    reason="pdflatex, bibtex, pdftotext and pdftoppm are needed (scripts/setup --dev installs them as root)",
)

#: the document's section headings, in order
HEADINGS = ("Methods", "Results", "Limitations", "Reporting checklist", "References")


def _pages(where: Path) -> list[list[str]]:
    """The PDF's pages as their lines (stripped, the empty ones left out)."""
    text = subprocess.run(
        ["pdftotext", "-layout", "report.pdf", "-"], cwd=where, capture_output=True, text=True, check=True
    ).stdout
    return [[line.strip() for line in page.splitlines() if line.strip()] for page in text.split("\f")]


def _compiled(document: str, where: Path) -> list[list[str]]:
    compile_latex(document, where)
    return _pages(where)


def _at(lines: list[str], matches) -> int:
    found = [index for index, line in enumerate(lines) if matches(line)]
    assert found, "not found in the PDF's text"
    return found[0]


def _check_sections(document: str, pages: list[list[str]], checklist: bool = True) -> None:
    """Every table's (and the figure's) caption between the Results heading and the Limitations
    heading; the checklist's between its heading and the references."""
    lines = [line for page in pages for line in page]
    names = HEADINGS if checklist else tuple(name for name in HEADINGS if name != "Reporting checklist")
    heading = {name: _at(lines, lambda line, name=name: line == name) for name in names}
    assert [heading[name] for name in names] == sorted(heading.values())
    tables = len(re.findall(r"\\label\{tab:(?!checklist)", document))
    assert tables >= 3
    captions = [f"Table {number}: " for number in range(1, tables + 1)]
    if r"\label{fig:placement}" in document:
        captions.append("Figure 1: ")
    for start in captions:
        caption = _at(lines, lambda line, start=start: line.startswith(start))
        assert heading["Results"] < caption < heading["Limitations"], f"{start!r} is outside the Results"
    if not checklist:
        return
    checklist = _at(lines, lambda line: line.startswith(f"Table {tables + 1}: The human-baselines reporting"))
    assert heading["Reporting checklist"] < checklist < heading["References"]
    # the checklist heading on the page its table begins on (no table floats between them)
    page_of = {
        name: next(n for n, page in enumerate(pages) if any(line == name for line in page))
        for name in ("Reporting checklist",)
    }
    assert any(line.startswith(f"Table {tables + 1}: ") for line in pages[page_of["Reporting checklist"]])


def _check_checklist(pages: list[list[str]]) -> None:
    """The caption and heading row repeated on every page the checklist continues on; no section's
    heading row last on its page."""
    first = next(n for n, page in enumerate(pages) if "Reporting checklist" in page)
    last = next(n for n, page in enumerate(pages) if "References" in page)
    for page in pages[first + 1 : last + 1]:
        if page[0] == "References":
            continue  # the checklist ended at the foot of the page before
        assert any(line.endswith("Reporting checklist (continued)") for line in page), page[:3]
        assert any(re.match(r"# +Question +Answer +Source", line) for line in page), page[:3]
    for page in pages[first : last + 1]:
        body = [line for line in page if not re.fullmatch(r"\d+", line)]
        assert body[-1] not in SECTIONS, f"the heading row {body[-1]!r} is alone at a page's foot"


#: the text block on an A4 page (2.5 cm margins), as fractions of the page's height
TEXT_TOP, TEXT_BOTTOM = 25 / 297, 272 / 297
#: how much of its text block a page before the last fills at the least
FILLED = 0.6


def _filled(where: Path) -> list[float]:
    """For each page of the PDF as pdftoppm draws it, how far down its text block something is
    drawn (0: nothing, 1: to the block's foot), the page number below the block left out."""
    from PIL import Image

    subprocess.run(["pdftoppm", "-r", "40", "-gray", "report.pdf", "page"], cwd=where, check=True)
    out = []
    for path in sorted(where.glob("page-*.pgm"), key=lambda path: int(path.stem.rsplit("-", 1)[1])):
        image = Image.open(path)
        top, bottom = round(TEXT_TOP * image.height), round(TEXT_BOTTOM * image.height)
        # a row with a pixel darker than light grey (small text drawn at this size is grey)
        inked = [row for row in range(top, bottom) if image.crop((0, row, image.width, row + 1)).getextrema()[0] < 200]
        out.append(0.0 if not inked else (inked[-1] - top) / (bottom - top))
    return out


def _check_filled(where: Path) -> None:
    """No page but the last left half empty (a table moved whole to the next page, a landscape
    page's breaks)."""
    filled = _filled(where)
    assert len(filled) >= 3
    empty = [(number, round(share, 2)) for number, share in enumerate(filled[:-1], start=1) if share < FILLED]
    assert not empty, f"pages filled less than {FILLED:.0%} of their text block (page, share): {empty}"


def _check_references(where: Path, pages: list[list[str]]) -> None:
    blg = (where / "report.blg").read_text(encoding="latin-1")
    assert "Warning" not in blg and "error" not in blg.lower(), blg
    log = (where / "report.log").read_text(encoding="latin-1")
    assert "undefined" not in log, log[-2000:]
    text = "\n".join(line for page in pages for line in page)
    assert "@inproceedings" not in text and "[?]" not in text
    assert re.search(r"\[\d\] Kevin L\. Wei, Patricia Paskov", text)


def _laid_out(name: str, where: Path) -> tuple[str, list[list[str]]]:
    """The study's LaTeX report compiled in `where`, held to the appendix's layout: floats in their
    sections, the checklist's caption on each page, the references by BibTeX, no page half empty."""
    document = _command_latex(name, where.parent)
    pages = _compiled(document, where)
    _check_sections(document, pages)
    _check_checklist(pages)
    _check_references(where, pages)
    _check_filled(where)
    return document, pages


def test_the_native_studys_report_keeps_its_floats_in_their_sections(pilot, db, tmp_path) -> None:
    _, pages = _laid_out(pilot.name, tmp_path / "native")
    # the methods as short headed subsections, not one paragraph
    lines = [line for page in pages for line in page]
    for subsection in ("Participants", "Pay", "Quality control", "Design and items", "Models", "Analysis"):
        assert subsection in lines
    assert lines.index("Participants") < lines.index("Analysis") < lines.index("Results")


def test_a_study_with_every_optional_feature_keeps_its_floats_and_fills_its_pages(
    full,  # noqa: F811 (the imported fixture)
    db,
    tmp_path,
) -> None:
    """The checklist's native study (training, a comprehension check, "why?" boxes, a stratified
    sample, prescreening on Prolific with a bonus, a power analysis, attention checks, closing
    questions, a model run): its longer methods and tables laid out as the pilot's are."""
    _laid_out(full.name, tmp_path / "full")


def test_the_published_studys_report_keeps_its_floats_and_cites_the_paper_by_bibtex(baseline, db, tmp_path) -> None:
    document, pages = _laid_out(baseline.name, tmp_path / "published")
    # its units table, five annotators wide, split in two on the page: no landscape page, which
    # left the page before it and its own half empty
    assert r"\begin{landscape}" not in document
    text = "\n".join(line for page in pages for line in page)
    # the benchmark's paper as BibTeX prints it, its umlaut an umlaut, not the entry's raw text
    assert "Rockt{" not in text and re.search(r"Tim Rockt.?.?schel", text)
    assert "Laura Ruis, Akbir Khan" in text
    # an imported study has no public title: the benchmark's, never the researchers' own name
    title = Study.objects.get(pk=baseline.study_id).name
    assert title not in "\n".join(pages[0][:3])
    assert pages[0][0].startswith("Conversational implicature (Ruis et al.): people and")


def test_with_the_tests_and_the_placement_plot_every_float_stays_in_the_results(pilot, db, tmp_path) -> None:
    """A table too tall for what is left of its page once floated past the Limitations' heading."""
    results = _with_sections(_json(pilot.name))
    results["irt"]["divergent_items"] *= 4
    document = render_report(StudyResults.from_json(results), "latex")
    pages = _compiled(document, tmp_path)
    _check_sections(document, pages, checklist=False)


def test_the_title_is_the_studys_public_title(pilot, db, tmp_path) -> None:
    study = Study.objects.get(pk=pilot.study_id)
    study.public_title = "How people read indirect answers"
    study.save(update_fields=["public_title"])
    try:
        document = _command_latex(pilot.name, tmp_path)
    finally:
        study.public_title = ""
        study.save(update_fields=["public_title"])
    assert r"\title{How people read indirect answers: people and language models on the same items}" in document
    pages = _compiled(document, tmp_path / "titled")
    assert " ".join(pages[0][:2]) == "How people read indirect answers: people and language models on the same items"
    assert pilot.name not in " ".join(pages[0][:3])
