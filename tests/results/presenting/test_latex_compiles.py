"""`study_report --format latex` compiled by the real pdflatex (TeX Live; `scripts/setup --dev`
installs it as root): a native study with two units, attention checks and model runs, the same with
the sections of the tests and the placement plot, the published implicature study, and studies and
models with hostile names. Each compiles without an error and without an Overfull \\hbox, on the
number of pages its tables need."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import replace
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from results.computing.tree import StudyResults
from results.presenting.report import build_report, render_report
from results.presenting.report.latex import layout, tex, write
from results.presenting.tables import paper_tables
from studies.models import Study
from tests.results.latex_check import check_latex
from tests.results.presenting.test_study_report import _with_sections

PDFLATEX = shutil.which("pdflatex")
if PDFLATEX is None and os.environ.get("CI") == "true":
    pytest.fail("CI needs pdflatex for the LaTeX report's tests: run scripts/setup --dev as root", pytrace=False)
pytestmark = pytest.mark.skipif(
    PDFLATEX is None,
    reason="pdflatex is missing: scripts/setup --dev installs TeX Live as root "
    "(apt-get install texlive-latex-base texlive-latex-recommended texlive-pictures)",
)

PAGES = re.compile(r"Output written on .*? \((\d+) pages?,")
#: what in pdflatex's log says a line or a table ran into the margin, or that something went wrong
BAD = re.compile(r"Overfull \\hbox|^! |LaTeX Error|Missing character|Citation .* undefined|There were undefined", re.M)

#: names of every kind a person may type: LaTeX's specials, a word too long for a line, scripts
#: pdflatex has no fonts for, emoji, a right-to-left script
HOSTILE = [
    "R&D_1 100% #2 $x$ {a} ~^\\ [b] naïve",
    "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsanstalt" * 2,
    "Ελληνικά: η μελέτη Ω",
    "Русское исследование",
    "中文研究 日本語の調査 한국어",
    "emoji 😀👨‍👩‍👧 🇬🇧",
    "עברית العربية",
    "Łódź, Čeština, Tiếng Việt",
    "x" * 300,
]


def _json(name: str) -> dict[str, Any]:
    out = StringIO()
    call_command("study_results", name, "--json", stdout=out)
    return json.loads(out.getvalue())


def compile_latex(document: str, where: Path) -> tuple[int, str]:
    """The document compiled by pdflatex: its pages, and the log (an AssertionError naming the log's
    bad lines if pdflatex failed, or wrote an Overfull \\hbox or an error)."""
    check_latex(document)
    where.mkdir(parents=True, exist_ok=True)
    (where / "report.tex").write_text(document, encoding="utf-8")
    latex = [PDFLATEX or "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"]
    run = subprocess.run(latex, cwd=where, capture_output=True, timeout=120)
    if run.returncode == 0 and r"\bibliography{" in document:
        # as an author compiles it: pdflatex, bibtex, then pdflatex twice for the citations
        bibtex = subprocess.run(["bibtex", "report"], cwd=where, capture_output=True, timeout=60)
        blg = (where / "report.blg").read_text(encoding="latin-1")
        assert bibtex.returncode == 0 and "Warning" not in blg, blg
        for _ in range(2):
            run = subprocess.run(latex, cwd=where, capture_output=True, timeout=120)
    log = (where / "report.log").read_text(encoding="latin-1")
    bad = [line for line in log.splitlines() if BAD.search(line)]
    assert run.returncode == 0 and not bad, f"pdflatex exited {run.returncode}: {bad[:10]}\n{log[-3000:]}"
    pages = PAGES.search(log)
    assert pages, log[-2000:]
    keep = os.environ.get("LATEX_REPORT_KEEP")  # a folder to keep each test's .tex and .pdf in, to look at
    if keep:
        name = re.sub(r"\W+", "-", os.environ.get("PYTEST_CURRENT_TEST", "report").split(" ")[0].split("::")[-1])
        Path(keep).mkdir(parents=True, exist_ok=True)
        for suffix in ("tex", "pdf"):
            shutil.copy(where / f"report.{suffix}", Path(keep) / f"{name}.{suffix}")
    return int(pages.group(1)), log


def _command_latex(name: str, where: Path) -> str:
    path = where / "command.tex"
    call_command("study_report", name, "--format", "latex", "--out", str(path), stderr=StringIO())
    return path.read_text(encoding="utf-8")


def test_the_native_studys_report_compiles_without_an_overfull_box(pilot, db, tmp_path) -> None:
    document = _command_latex(pilot.name, tmp_path)
    results = _json(pilot.name)
    assert [table.key for table in paper_tables(StudyResults.from_json(results))][:2] == ["units", "comparison"]
    assert results["methods"]["design"]["n_units"] == 2 and len(results["models"]) == 2
    pages, _ = compile_latex(document, tmp_path / "native")
    # the reporting checklist's 71 entries, a longtable, take about three pages of their own, and the
    # materials (the consent form and instructions verbatim) most of one
    assert 4 <= pages <= 10
    assert r"\begin{longtable}" in document and document.count(r"\multicolumn{4}{@{}l}{\textbf{") == 6
    # the tables at a readable size, never scaled down; the design settings a sentence of their own
    assert r"\resizebox" not in document and r"\scalebox" not in document
    assert "Of the study's other design settings, ``Shuffle items per participant'' was off" in document


def test_with_the_tests_and_the_placement_plot_it_compiles_too(pilot, db, tmp_path) -> None:
    document = render_report(StudyResults.from_json(_with_sections(_json(pilot.name))), "latex")
    pages, _ = compile_latex(document, tmp_path)
    assert 3 <= pages <= 6
    assert r"\begin{tikzpicture}" in document and r"\label{tab:divergent_items}" in document
    # the labels' column ends left of the scale's zero (its east edge at x = -0.3 cm), and every dot
    # and CI is drawn at or right of it: no label is drawn over the data
    picture = document[document.index(r"\begin{tikzpicture}") : document.index(r"\end{tikzpicture}")]
    labels = re.findall(
        r"\\node\[anchor=north east,align=right,text width=[\d.]+cm,[^]]*\] \(row(\d+)\) at (\S+)", picture
    )
    assert [row for row, _ in labels] == ["0", "1", "2"]
    assert labels[0][1] == "(-0.3,0)" and all(at == f"([yshift=-6pt]row{int(row) - 1}.south" for row, at in labels[1:])
    shifts = [float(value) for value in re.findall(r"xshift=(-?[\d.]+)cm", picture)]
    assert len(shifts) >= 4 + 3 * 2 and min(shifts) >= 0


def test_the_published_studys_report_compiles_with_its_wide_table_split_on_the_page(baseline, db, tmp_path) -> None:
    results = _json(baseline.name)
    units = paper_tables(StudyResults.from_json(results))[0]
    assert units.key == "units" and len(units.columns) == 11  # five annotators a unit, then six figures
    fitted = layout(units)
    # its five "Annotator" headers do not fit the page even at \footnotesize: two parts on the page,
    # each with the units' names, rather than a landscape page that breaks the pages around it
    assert not fitted.landscape and fitted.size == "small" and len(fitted.parts) == 2
    assert all(part[0] == 0 for part in fitted.parts)
    assert sorted({c for part in fitted.parts for c in part}) == list(range(11))
    document = _command_latex(baseline.name, tmp_path)
    pages, _ = compile_latex(document, tmp_path / "published")
    assert 4 <= pages <= 8  # with the possible gold errors, the reporting checklist and the references
    assert r"\begin{landscape}" not in document and document.count(r"\addtocounter{table}{-1}") == 1


def test_a_table_too_wide_for_a_landscape_page_is_split_and_each_part_compiles(pilot, db, tmp_path) -> None:
    results = _json(pilot.name)
    units = paper_tables(StudyResults.from_json(results))[0]
    many = 24  # annotators a unit
    wide = replace(
        units,
        columns=[units.columns[0], *(f"Annotator {n}" for n in range(1, many + 1)), *units.columns[3:]],
        rows=[[row[0], *[row[1]] * many, *row[3:]] for row in units.rows],
    )
    fitted = layout(wide)
    # more than PORTRAIT_PARTS parts on the page: a landscape page, split there
    assert fitted.landscape and len(fitted.parts) >= 2
    assert all(part[0] == 0 for part in fitted.parts)  # each part repeats the units' names
    assert sorted({c for part in fitted.parts for c in part}) == list(range(len(wide.columns)))
    report = build_report(StudyResults.from_json(results))
    document = write(replace(report, tables=[wide], tests=[], placement=None))
    # each part after the first keeps the table's number
    assert document.count(r"\addtocounter{table}{-1}") == len(fitted.parts) - 1
    pages, _ = compile_latex(document, tmp_path)
    # the text, the parts on landscape pages, then the limitations and references after them (the
    # table stays in the results)
    assert 2 <= pages <= 2 + len(fitted.parts)


@pytest.mark.parametrize("name", HOSTILE, ids=[f"name{n}" for n in range(len(HOSTILE))])
def test_a_hostile_name_compiles(pilot, db, tmp_path, name) -> None:
    results = _with_sections(_json(pilot.name))
    results["study"] = name
    for model, methods in zip(results["models"], results["methods"]["models"], strict=True):
        model["label"] = model["model"] = methods["model"] = methods["label"] = f"{name} model"
    for table in ("paired", "human_band"):
        for row in results[table]:
            row["label"] = f"{name} model"
    for row in results["irt"]["models"]:
        row["label"] = f"{name} model"
    results["irt"]["divergent_items"][0]["text"] = name
    document = render_report(StudyResults.from_json(results), "latex", public_title=name)
    pages, _ = compile_latex(document, tmp_path)
    assert pages >= 3


def test_what_pdflatex_cannot_typeset_is_substituted_and_the_document_says_how(pilot, db, tmp_path) -> None:
    results = _json(pilot.name)
    # the study's public title is the document's title
    document = render_report(StudyResults.from_json(results), "latex", public_title="Русский 中文 Ω")
    assert (
        r"\title{Russkij \texttt{<U+4E2D>}\allowbreak{}\texttt{<U+6587>}\allowbreak{} \ensuremath{\Omega}" in document
    )
    assert "In names, Cyrillic letters are transliterated; other characters pdflatex cannot typeset are " in document
    compile_latex(document, tmp_path)
    # Latin letters with diacritics beyond Latin-1 are no substitutes: LaTeX's accents, those above
    # a letter inside those below it
    assert tex("Łódź Việt") == r"\L{}ód\'{z} Vi\d{\^{e}}t"
    plain = render_report(StudyResults.from_json(_json(pilot.name)), "latex")
    assert "In names," not in plain


def test_a_study_saved_with_a_hostile_name_compiles_from_the_command(pilot, db, tmp_path) -> None:
    study = Study.objects.get(pk=pilot.study_id)
    study.name = study.public_title = HOSTILE[0] + " " + HOSTILE[2]
    study.save(update_fields=["name", "public_title"])
    try:
        compile_latex(_command_latex(study.name, tmp_path), tmp_path / "hostile")
    finally:
        study.name, study.public_title = pilot.name, ""
        study.save(update_fields=["name", "public_title"])


def test_a_placement_plot_of_people_right_on_every_item_compiles_with_a_few_ticks(pilot, db, tmp_path) -> None:
    """People right (or wrong) on every item have abilities far out on the scale: the axis then ticks
    every 2, 5, 10, ... SDs. It once ticked every SD, some 15,000 lines that pdflatex did not finish."""
    results = _with_sections(_json(pilot.name))
    results["irt"]["people_abilities"] = [-7000.0, -0.4, 0.3, 0.8, 7000.0]
    document = render_report(StudyResults.from_json(results), "latex")
    picture = document[document.index(r"\begin{tikzpicture}") : document.index(r"\end{tikzpicture}")]
    ticks = re.findall(r"\\ensuremath\{(-?[\d.e+]+)\}", picture)
    assert 3 <= len(ticks) <= 11 and "0" in ticks and ticks == sorted(ticks, key=float)
    assert len(picture.splitlines()) < 60
    compile_latex(document, tmp_path)
