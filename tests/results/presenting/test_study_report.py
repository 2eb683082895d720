"""`manage.py study_report` and the results page's Report download: every figure of the methods and
results paragraphs is the value `study_results --json` gives at the path it names, the paper tables
are the page's, the LaTeX document is well formed (checked without TeX), and the sections of the
paired tests, the human band and the item-response model are written wherever the results carry them."""

from __future__ import annotations

import json
import re
from html import unescape
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from prolific.models import ProlificStudy
from results.computing.tree import StudyResults
from results.pipeline import study_checklist
from results.presenting.report import build_report, render_report
from results.presenting.report import figures as report_figures
from results.presenting.report.figures import KINDS, Figure, at, plain, traced
from results.presenting.report.latex import tex
from results.presenting.report.materials import study_materials
from results.presenting.table_writers import markdown_table
from results.presenting.tables import paper_tables
from studies.models import Study
from tests.paths import REPO
from tests.personas import assistant, signed_in
from tests.results.latex_check import check_latex

#: the stored results of the golden test
GOLDEN = REPO / "tests" / "results" / "golden"
FIGURE = re.compile(r'<span class="figure" data-path="([^"]*)" data-kind="([^"]*)">(.*?)</span>')


def _command(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def _json(name: str) -> dict[str, Any]:
    return json.loads(_command("study_results", name, "--json"))


def _tree(results: dict[str, Any]) -> StudyResults:
    """The results tree the report is written from, read back from the JSON a test changed."""
    return StudyResults.from_json(results)


def _path(dotted: str) -> tuple[str | int, ...]:
    return tuple(int(key) if key.isdigit() else key for key in dotted.split("."))


def _paragraphs(html: str) -> list[str]:
    sections = re.findall(r'<section id="(?:methods|results)">(.*?)</section>', html, re.S)
    return [p for section in sections for p in re.findall(r"<p>(.*?)</p>", section, re.S)]


def _assert_figures_are_the_json(name: str) -> dict[str, Any]:
    """The HTML report's paragraphs against `study_results --json`, both from the commands."""
    results = _json(name)
    html = _command("study_report", name, "--format", "html")
    paragraphs = _paragraphs(html)
    found = [match for p in paragraphs for match in FIGURE.findall(p)]
    assert len(found) > 10
    for dotted, kind, shown in found:
        assert unescape(shown) == KINDS[kind](at(results, _path(dotted))), dotted
    # nothing else in a paragraph is a number: every digit is inside a figure
    for p in paragraphs:
        assert not re.search(r"\d", unescape(FIGURE.sub("", p))), p
    # the Markdown report has the same figures, and the page's paper tables row for row
    markdown = _command("study_report", name, "--format", "markdown")
    tree = _tree(results)
    for figure in (part for parts in build_report(tree).paragraphs for part in parts if isinstance(part, Figure)):
        assert figure.text.replace("[", "\\[") in markdown
    for table in paper_tables(tree):
        for line in markdown_table(table)[2:]:
            assert line in markdown
    return results


def test_every_figure_of_the_pilots_report_is_the_one_study_results_json_gives(pilot, db) -> None:
    results = _assert_figures_are_the_json(pilot.name)
    methods = results["methods"]
    assert methods["platform"] == "link"
    assert methods["participants"] | {"exclusion_reasons": None} == {
        "entered": 5,
        "imported": 0,
        "declined": 0,
        "returned": 0,
        "timed_out": 0,
        "in_progress": 0,
        "completed": 5,
        "excluded": 1,
        "exclusion_reasons": None,
        "screened_out": 0,
    }
    assert methods["participants"]["exclusion_reasons"] == [
        {"reason": "failed 2 attention checks (threshold 2)", "n": 1}
    ]
    assert methods["attention"]["checks_per_participant"] == 2 and methods["attention"]["exclude_at"] == 2
    assert methods["pay"]["reward_pence"] == 450 and methods["pay"]["estimated_hourly_pence"] == 900
    assert methods["design"]["n_units"] == 2 and methods["design"]["items_per_participant"] == {"min": 5, "max": 5}
    assert [(m["model_id"], m["setting"], m["source"]) for m in methods["models"]] == [
        ("local/tiny-lm", "template 2, k=0", "parity"),
        ("local/tiny-lm", "template 3, k=0", "parity"),
    ]
    assert methods["statistics"] == {
        "ci_level": 0.95,
        "n_boot": 10_000,
        "seed": 0,
        "human_ci_method": "t_interval",
        "gap_ci_method": "crossed_variance_components",
    }
    text = " ".join(plain(parts) for parts in build_report(_tree(results)).paragraphs)
    assert "through the study's link (no Prolific study was recorded)" in text
    assert "Each participant met 2 attention checks among the items, at random positions; a participant who " in text
    assert "failed 2 was excluded." in text
    assert "1 was excluded (failed 2 attention checks (threshold 2): 1)" in text
    assert "The analysis uses the answers of the 4 participants" in text
    assert "The reward was £4.50 for an estimated 30 minutes (£9.00 an hour)" in text
    assert "10,000 resamples, seed 0" in text


def test_the_published_studys_report_says_its_answers_were_imported(baseline, db) -> None:
    results = _assert_figures_are_the_json(baseline.name)
    text = plain(build_report(_tree(results)).methods[0])
    assert text.startswith("The human answers are those of a published study, imported into Parity: 20 annotators.")
    assert "reward" not in text and "attention" not in text


def test_an_ambibench_studys_report_has_the_oracle_beside_the_people(ambi, db) -> None:
    results = _assert_figures_are_the_json(ambi.name)
    latex = render_report(_tree(results), "latex")
    check_latex(latex)
    assert "Oracle" in latex and r"\label{tab:by_position}" in latex


def test_a_study_on_prolific_says_so_with_its_bonus(pilot, db) -> None:
    ProlificStudy.objects.create(
        study=Study.objects.get(pk=pilot.study_id), prolific_id="6a1b", places=10, bonus_per_correct_pence=5
    )
    results = _assert_figures_are_the_json(pilot.name)
    assert results["methods"]["platform"] == "prolific"
    assert results["methods"]["prolific"] == {
        "places": 10,
        "status": "UNPUBLISHED",
        "target_kind": "",
        "target_value": None,
    }
    text = plain(build_report(_tree(results)).methods[0])
    assert text.startswith("Participants were recruited on Prolific and answered on Parity through the study's link")
    assert "with a bonus of £0.05 per right answer" in text
    assert results["human"]["accuracy"]["ci_method"] == "t_interval"
    assert "Recruitment stopped" not in plain(build_report(_tree(results)).methods[2])


def test_a_study_recruited_until_precise_prints_the_confidence_sequence_and_says_so(pilot, db) -> None:
    ProlificStudy.objects.create(
        study=Study.objects.get(pk=pilot.study_id),
        prolific_id="6a1c",
        places=10,
        target_kind="ci_width",
        target_value=10,
        target_rule="confidence_sequence",
        max_spend_pence=9000,
    )
    results = _assert_figures_are_the_json(pilot.name)
    accuracy = results["human"]["accuracy"]
    assert accuracy["ci_method"] == "confidence_sequence"
    low, high = accuracy["ci95"]
    assert low < accuracy["mean"] < high
    statistics = plain(build_report(_tree(results)).methods[2])
    assert "a confidence sequence over participants in the order they completed" in statistics
    assert (
        "Recruitment stopped when the 95% confidence sequence of human accuracy (Waudby-Smith and Ramdas), "
        "valid at any stopping time, was at most 10.0 points wide; the interval reported is that sequence at the stop."
    ) in statistics


def test_a_study_recruited_by_planned_looks_prints_the_fixed_width_interval_and_says_so(pilot, db) -> None:
    ProlificStudy.objects.create(
        study=Study.objects.get(pk=pilot.study_id),
        prolific_id="6a1d",
        places=10,
        target_kind="ci_width",
        target_value=12,
        target_rule="planned_looks",
        max_spend_pence=9000,
    )
    results = _assert_figures_are_the_json(pilot.name)
    accuracy = results["human"]["accuracy"]
    assert accuracy["ci_method"] == "fixed_width_planned_looks"
    assert accuracy["ci95"] == pytest.approx([accuracy["mean"] - 0.06, min(accuracy["mean"] + 0.06, 1.0)])
    statistics = plain(build_report(_tree(results)).methods[2])
    assert "a fixed-width interval at the last of recruitment's planned looks" in statistics
    assert (
        "Recruitment stopped at the last of up to three planned looks, each of whose numbers of participants was set "
        "by the spread of the accuracies so far, never by their mean (Stein's fixed-width interval); the interval "
        "reported is the mean ± half the target of 12.0 points."
    ) in statistics


def test_a_study_in_a_usd_workspace_gives_its_amounts_in_dollars(pilot, db) -> None:
    ProlificStudy.objects.create(
        study=Study.objects.get(pk=pilot.study_id),
        prolific_id="6a1b",
        places=10,
        bonus_per_correct_pence=5,
        currency="USD",
    )
    results = _assert_figures_are_the_json(pilot.name)  # the symbol is a figure too, from methods.pay.currency
    assert results["methods"]["pay"]["currency"] == "USD"
    text = plain(build_report(_tree(results)).methods[0])
    assert "The reward was $4.50 for an estimated 30 minutes ($9.00 an hour)" in text
    assert "with a bonus of $0.05 per right answer" in text and "£" not in text


# -- LaTeX, checked without TeX ----------------------------------------------------------------

HOSTILE = "R&D_1 100% #2 $x$ {a} ~^\\ [b] naïve Ω"


def test_the_latex_report_is_a_well_formed_document_whatever_the_names(pilot, db) -> None:
    results = _json(pilot.name)
    results["study"] = HOSTILE
    for model, methods in zip(results["models"], results["methods"]["models"]):
        model["label"] = model["model"] = methods["model"] = methods["label"] = f"{HOSTILE} model"
    document = render_report(_tree(results), "latex")
    check_latex(document)
    assert tex(HOSTILE) in document
    assert (
        r"R\&D\_1 100\% \#2 \$x\$ \{a\} \textasciitilde{}\textasciicircum{}\textbackslash{} {[}b{]} naïve "
        r"\ensuremath{\Omega}" in document
    )


def test_the_latex_check_finds_what_would_not_compile() -> None:
    good = "\\documentclass{article}\n\\begin{document}\nok\n\\end{document}\n"
    check_latex(good)
    for broken in (
        good.replace("ok", "{ok"),
        good.replace("ok", "\\begin{table}ok"),
        good.replace("ok", "100% sure"),
        good.replace("ok", "R&D"),
        good.replace("ok", "a_b"),
        good.replace("ok", "$x"),
        good.replace("ok", "\\begin{tabular}{lr}\na & b & c \\\\\n\\end{tabular}"),
        good.replace("\\end{document}\n", ""),
    ):
        with pytest.raises(AssertionError):
            check_latex(broken)


# -- the sections of the tests, when the results carry them -------------------------------------


def _with_sections(results: dict[str, Any]) -> dict[str, Any]:
    """The results with the paired tests, the human band and the item-response model, shaped as
    `study_results` gives them."""
    runs = [(model["run"], model["label"]) for model in results["models"]]
    results["paired"] = [
        {
            "run": run,
            "label": label,
            "n_items": 10,
            "n_people": 4,
            "model_accuracy": 0.6,
            "human_accuracy": 0.6 - 0.05 * (index + 1),
            "gap": 0.05 * (index + 1),
            "ci": [-0.2, 0.3],
            "confidence": 0.95,
            "se": 0.1,
            "se_items": 0.08,
            "se_people": 0.06,
            "df": 7.5,
            "t": 4.2,
            "p": 0.0004,
            "reason": None,
            "mcnemar": {
                "b": 2,
                "c": 1,
                "a": 5,
                "d": 2,
                "n_items": 10,
                "statistic": None,
                "p": 1.0,
                "method": "McNemar",
                "target": "against the majority of these participants, on items like these",
            },
            "target": "people like these, on items like these",
            "method": "variance components",
        }
        for index, (run, label) in enumerate(runs)
    ]
    results["human_band"] = [
        {
            "run": run,
            "label": label,
            "model_kappa": 0.41,
            "n_people": 4,
            "human_kappa": {"median": 0.55, "low": 0.2, "high": 0.8, "n_pairs": 2, "n_people": 4},
            "verdict": "within",
        }
        for run, label in runs
    ]
    results["irt"] = {
        "model": "2pl",
        "people": 4,
        "items_used": 8,
        "items_dropped_all_right": 2,
        "items_dropped_all_wrong": 0,
        "person_reliability": 0.61,
        "item_reliability": None,
        "converged": True,
        "confidence": 0.95,
        "calibrated": False,
        "calibration_note": "too few people",
        "scale_logits": None,
        "models": [
            {
                "run": run,
                "label": label,
                "ability": 0.4 + index,
                "ci": [-0.3, 1.9 + index],
                "se": 0.6,
                "se_answers": 0.5,
                "percentile": 62.5,
                "population_percentile": 65.5,
                "population_percentile_ci": [38.2, 97.1],
                "n_items": 8,
                "ci_note": "",
            }
            for index, (run, label) in enumerate(runs)
        ],
        "people_abilities": [-1.2, 0.1, 0.5, 1.4],
        "items": [{"item": "k1", "difficulty": -0.5, "difficulty_se": 0.4, "discrimination": 1.1, "text": "Is it?"}],
        "n_items_tested": 8,
        "n_divergent": 1,
        "divergent_items": [
            {
                "item": "k1",
                "human_rate": 0.25,
                "model_rate": 1.0,
                "statistic": 6.2,
                "p": 0.01,
                "p_adjusted": 0.04,
                "significant": True,
                "text": "Esther asked & Juan said 50% — yes_no",
            }
        ],
    }
    return results


def test_the_tests_and_the_placement_are_written_where_the_results_carry_them(pilot, db) -> None:
    results = _with_sections(_json(pilot.name))
    report = build_report(_tree(results))
    assert [table.key for table in report.tests] == ["paired", "human_band", "irt", "divergent_items"]
    for table in report.tests:
        assert all(len(row) == len(table.columns) for row in table.rows), table.key
    figures = [part for parts in report.paragraphs for part in parts if isinstance(part, Figure)]
    for figure in figures:
        assert figure.value == at(results, figure.path)
    text = " ".join(plain(parts) for parts in report.paragraphs)
    assert "Satterthwaite's degrees of freedom" in text and "majority answer of these participants" in text
    assert "scale of the people population (its mean at zero, its SD the unit) by a 2pl item-response model" in text
    assert "over 4 people and 8 items (2 dropped as answered right by all" in text
    assert "The ability CIs are not calibrated at this size: too few people." in text
    assert ", p < 0.001; against these participants' majority, McNemar p = 1.000" in text
    assert "is within the human band" in text and "62.5th percentile" in text

    markdown = render_report(_tree(results), "markdown")
    assert "The ability CIs are not calibrated: too few people." in markdown
    assert "| tiny-lm (template 2, k=0) | 0.40 | \\[-0.30, 1.90\\] | 62.5 |" in markdown
    assert (
        "| tiny-lm (template 3, k=0) | 10 | +10.0 pp | \\[-20.0 pp, +30.0 pp\\] | \\< 0.001 | 2 / 1 | — "
        "| 1.000 |" in markdown
    )
    # a p-value reads "p < 0.001" in the paragraphs, never "p = < 0.001" nor an HTML entity
    assert "&lt;" not in markdown and "= \\<" not in markdown and "p \\< 0.001" in markdown

    html = render_report(_tree(results), "html")
    svg = re.search(r'<figure id="placement">(.*?)</figure>', html, re.S).group(1)
    assert svg.count("<circle") == 4 + 2  # the people, then each model
    assert "tiny-lm (template 3, k=0) (62.5th percentile)" in svg

    latex = render_report(_tree(results), "latex")
    check_latex(latex)
    assert latex.count(r"\begin{tikzpicture}") == 1 and latex.count(r"circle (1.8pt)") == 4
    assert r"Esther asked \& Juan said 50\% -- yes\_no" in latex


def test_without_those_sections_the_report_has_none_of_them(pilot, db) -> None:
    results = _json(pilot.name)
    results.update(paired=[], human_band=[], irt=None)
    report = build_report(_tree(results))
    assert report.tests == [] and report.placement is None
    html = render_report(_tree(results), "html")
    assert "<svg" not in html and "McNemar" not in html
    check_latex(render_report(_tree(results), "latex"))


# -- the download on the results page ----------------------------------------------------------


def _url(built, query: str = "") -> str:
    return f"/studies/{built.study_id}/report/{query}"


@pytest.mark.parametrize(
    ("fmt", "suffix", "start"),
    [("latex", "tex", "\\documentclass"), ("markdown", "md", "# "), ("html", "html", "<!DOCTYPE html>")],
)
def test_a_researcher_downloads_the_report(pilot, staff_client, fmt, suffix, start) -> None:
    page = staff_client.get(f"/studies/{pilot.study_id}/results/").content.decode()
    assert f'action="{_url(pilot)}"' in page and f'<option value="{fmt}">' in page
    response = staff_client.get(_url(pilot, f"?format={fmt}"))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="pilot-results-report.{suffix}"'
    body = response.content.decode()
    assert body.startswith(start)
    tree = _tree(_json(pilot.name))
    study = Study.objects.get(pk=pilot.study_id)
    checklist = study_checklist(study, tree)
    # with the study's consent form and instructions (no screenshot lies beside a download)
    assert render_report(tree, fmt, checklist, study.public_title, study_materials(study)) == body


def test_the_report_download_refuses_what_the_exports_refuse(pilot, client, db) -> None:
    assert client.get(_url(pilot, "?format=html")).status_code == 302  # to the sign-in page
    study = Study.objects.get(pk=pilot.study_id)
    viewer = signed_in(assistant("viewer", ["studies.view_study"], on=[study]), client)
    assert viewer.get(_url(pilot, "?format=html")).status_code == 403
    outsider = signed_in(assistant("outsider"))
    assert outsider.get(_url(pilot, "?format=html")).status_code == 404


def test_a_report_in_an_unknown_format_is_refused(pilot, staff_client) -> None:
    response = staff_client.get(_url(pilot, "?format=<b>docx</b>"))
    assert response.status_code == 400 and response["Content-Type"].startswith("text/plain")
    assert staff_client.post(_url(pilot), {"format": "html"}).status_code == 405


def test_a_study_without_answers_or_runs_has_a_report_too(implicature, tmp_path) -> None:
    from tests.factories import small_study

    study = small_study("not yet run", attention_checks=0, exclude_at=0)
    path = tmp_path / "report.tex"
    call_command("study_report", study.name, "--format", "latex", "--out", str(path), stderr=StringIO())
    check_latex(path.read_text())
    results = _json(study.name)
    text = " ".join(plain(parts) for parts in build_report(_tree(results)).paragraphs)
    assert "0 people entered." in text and "The study had no attention checks." in text
    assert "The same items were answered by" not in text
    with pytest.raises(CommandError, match="no study named 'nothing'"):
        call_command("study_report", "nothing")


def test_a_researchers_reason_ending_in_a_full_stop_reads_as_part_of_the_sentence(pilot, db) -> None:
    results = _json(pilot.name)
    reason = "Did not follow the instructions."
    results["methods"]["participants"]["exclusion_reasons"] = [{"reason": reason, "n": 1}]
    text = " ".join(plain(parts) for parts in build_report(_tree(results)).paragraphs)
    assert "1 was excluded (Did not follow the instructions: 1)" in text
    assert ".:" not in text
    assert KINDS["phrase"]("Too fast, e.g..") == "Too fast, e.g.."  # an ellipsis or the like is the reason's own


def test_a_figure_read_by_attribute_is_traced_to_its_path_in_the_json() -> None:
    """The report reads its figures by attribute from the traced tree; each keeps the path of the JSON
    key it was read at, a field written into its node (the paired test) adding none."""
    results = _with_sections(json.loads((GOLDEN / "native_pilot.json").read_text()))
    tree = traced(StudyResults.from_json(results))
    read = [
        (report_figures.figure(tree.methods.participants.entered, "int"), ("methods", "participants", "entered")),
        (report_figures.figure(tree.paired[0].test.mcnemar.p, "p"), ("paired", 0, "mcnemar", "p")),
        (report_figures.figure(tree.human_band[0].placed.model_kappa, "num"), ("human_band", 0, "model_kappa")),
        # a field named `value` is the field's, not the traced value's
        (
            report_figures.figure(tree.methods.design.settings[0].value, "setting"),
            ("methods", "design", "settings", 0, "value"),
        ),
    ]
    for found, path in read:
        assert found.path == path and found.value == at(results, path)
    with pytest.raises(TypeError):
        report_figures.figure(StudyResults.from_json(results).methods.participants.entered, "int")
