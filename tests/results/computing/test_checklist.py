"""The human-baselines reporting checklist answered from a study's data: every entry has a status
and a source, and the figures of the answers are the study's own."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from parity.reporting.checklist import (
    COMPUTED,
    ENTERED,
    ENTRIES,
    Status,
    checklist_json,
    checklist_markdown,
    counts,
)
from prolific.models import ProlificStudy
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
from results.presenting.report import build_report, render_report
from results.presenting.report.figures import plain
from studies.models import Study

pytestmark = pytest.mark.django_db


def _answers(pk: int):
    study = Study.objects.get(pk=pk)
    results = study_results_tree(load_study_data(study), n_boot=200)
    return study, results, {answer.entry.id: answer for answer in study_checklist(study, results)}


def _every_entry_is_answered_with_a_source(answers) -> None:
    assert list(answers) == [entry.id for entry in ENTRIES] and len(ENTRIES) == 71
    for answer in answers.values():
        assert answer.status in Status
        if answer.status is Status.ANSWERED:
            assert answer.source in (COMPUTED, ENTERED) and answer.text
        else:
            assert answer.source.startswith(f"{answer.status}: ") and answer.text == ""


def test_a_native_study_answers_the_checklist_with_its_own_figures(pilot) -> None:
    Study.objects.filter(pk=pilot.study_id).update(
        population="adult Prolific workers in the UK",
        ethics_body="University Research Ethics Committee",
        ethics_reference="UREC-1",
        paper_title="Do models get implicature?",
        closing_questions=["age", "gender", "ai_tool", "feedback"],
    )
    study, results, answers = _answers(pilot.study_id)
    _every_entry_is_answered_with_a_source(answers)
    people = results.methods.participants
    assert (people.entered, people.completed, people.excluded) == (5, 5, 1)
    assert answers["1.1"].text == "4 people analysed (5 entered, 5 completed, 1 excluded)"
    assert answers["3.2.2"].text.startswith("1 of 5 excluded (1 ")
    assert answers["3.2.1"].text.startswith("2 attention checks per participant, excluded at 2 failed")
    assert answers["2.7.1"].text.startswith("£4.50 for an estimated 30 minutes (£9.00 an hour)")
    assert answers["4.2"].text.startswith("Yes: 95% CIs")
    labels = "; ".join(model.label for model in results.models)
    assert answers["0.10"].text == f"1 answer per item per run (2 runs: {labels})"
    assert "template 2" in answers["3.4"].text and "template 3" in answers["3.4"].text
    assert answers["1.9"].text == "Yes: University Research Ethics Committee (reference UREC-1)"
    assert answers["1.9"].source == ENTERED and answers["2.1"].source == ENTERED
    assert answers["1.10"].text.startswith("Partial: the plan was frozen in Parity at launch on ")
    assert answers["5.1.1"].text == "Partial: participants were asked age, gender"
    assert answers["3.5.1"].text.startswith("Partial: participants were asked afterwards")
    assert answers["4.1"].text == "Yes: 2 model runs tested against the people, each on the items both answered"
    # the headline as analysed, then with the participant excluded for failed checks put back in
    analysed, put_back = results.robustness.rows[:2]
    assert answers["4.6"].text.startswith(
        f"Yes: human accuracy {100 * analysed.mean:.1f}% as analysed (4 people, 20 answers; gap "
        f"{results.models[0].label} {100 * results.models[0].gap_to_humans:+.1f} pp, "
    )
    assert f"; {100 * put_back.mean:.1f}% with the 1 excluded for failed attention checks put back in (5 people" in (
        answers["4.6"].text
    )
    # no prescreening, no sampling, nobody refused: answered as such, not left blank
    assert answers["1.2.1"].status is Status.NOT_APPLICABLE
    assert (
        answers["1.2.1"].source == f"not applicable: the baseline ran on all {results.human.n_items} items of the split"
    )
    assert (answers["2.3"].text, answers["2.5"].text) == ("No", "No")
    assert answers["2.3.1"].status is Status.NOT_APPLICABLE and answers["2.3.2"].status is Status.NOT_APPLICABLE
    tally = counts(list(answers.values()))
    assert sum(tally.values()) == 71
    print("native", tally)


def test_the_published_implicature_study_answers_what_an_import_can(baseline) -> None:
    study, results, answers = _answers(baseline.study_id)
    _every_entry_is_answered_with_a_source(answers)
    assert answers["1.1"].text.startswith(f"{results.human.n_annotators} people analysed")
    assert answers["1.2"].text == f"{results.human.n_items} items"
    # the original study's recruitment, pay, exclusions and attrition are its paper's, not the import's
    # records: they apply to it, and Parity does not know them
    for entry in ("2.2", "2.3", "2.5", "2.7", "2.7.1", "2.7.2", "2.7.3", "3.2.2", "5.1.5"):
        assert answers[entry].status is Status.NOT_ANSWERED
        assert answers[entry].source.startswith("not answered: not known for the original study")
    assert answers["0.9"].status is Status.NOT_APPLICABLE  # no model run on the imported study
    tally = counts(list(answers.values()))
    assert tally[COMPUTED] + tally[ENTERED] + tally["not applicable"] + tally["not answered"] == 71
    print("published", tally)


def test_the_checklist_writes_as_markdown_and_json(baseline) -> None:
    _, _, answers = _answers(baseline.study_id)
    found = json.loads(checklist_json(list(answers.values())))
    assert [row["id"] for row in found["entries"]] == [entry.id for entry in ENTRIES]
    assert sum(found["counts"].values()) == 71
    markdown = checklist_markdown(list(answers.values()))
    assert markdown.count("\n| 1.") == 12 and "## Baseline documentation" in markdown


def test_the_report_carries_the_limitations_the_checklist_and_the_references(pilot) -> None:
    study, results, answers = _answers(pilot.study_id)
    checklist = list(answers.values())
    report = build_report(results, checklist)
    text = plain(report.limitations)
    low, high = results.human.accuracy.ci95
    assert text.startswith(f"The human baseline rests on {results.human.n_annotators} people.")
    assert f"is {100 * (high - low):.1f} points wide" in text
    assert f"People answered {results.human.n_items} of the dataset's 600 items (" in text
    assert "1 of 5 who entered were excluded" in text
    missing = [answer.entry.id for answer in checklist if answer.status is Status.NOT_ANSWERED]
    assert f"{len(missing)} of the reporting checklist's 71 entries are not answered" in text
    html = render_report(results, "html", checklist)
    assert html.count("<tr data-entry=") == 71 and '<section id="limitations">' in html
    markdown = render_report(results, "markdown", checklist)
    assert "## Reporting checklist" in markdown and "@inproceedings{ruis2023goldilocks," in markdown
    assert "@misc{parity," in markdown


@pytest.mark.parametrize(
    ("benchmark", "key"),
    [
        ("implicature", "ruis2023goldilocks"),
        ("ambibench", "tamkin2023ambiguity"),
        ("instruction_induction", "honovich2023instruction"),
        ("miqa", "comsa2022miqa"),
        ("miqa_rating", "comsa2022miqa"),
    ],
)
def test_each_benchmark_cites_its_paper_after_parity_and_the_checklist(benchmark, key) -> None:
    from parity import benchmarks
    from parity.reporting.references import references, references_bib

    assert benchmark in {name for name, _ in benchmarks.choices()}
    found = references(benchmark)
    assert [entry.split(",", 1)[0] for entry in found] == [
        "@misc{parity",
        "@inproceedings{wei2025baselines",
        f"@inproceedings{{{key}",
    ]
    assert references_bib(benchmark).count("\n@") == 2 and references("custom")[-1].startswith("@inproceedings{wei")


def test_recruitment_entries_state_the_prescreening_the_refusals_and_the_sample(pilot) -> None:
    Study.objects.filter(pk=pilot.study_id).update(
        group="implicature-2026",
        prolific_filters={"age_min": 18, "age_max": 65, "exclude_earlier": True},
        refused_earlier=["a1b2c3d4e5f60718", "0f1e2d3c4b5a6978"],
        item_sampling="stratified",
        sample_seed=1234,
        sample_pool=600,
        closing_questions=["seen_before"],
    )
    # the prescreening applies through the study's Prolific study
    ProlificStudy.objects.create(study=Study.objects.get(pk=pilot.study_id), prolific_id="6a2d", places=10)
    study, results, answers = _answers(pilot.study_id)
    _every_entry_is_answered_with_a_source(answers)
    drawn = results.methods.recruiting.items.drawn
    assert answers["1.2.1"].text == f"{drawn} of the 600 items, drawn at random stratified by category with seed 1234"
    assert answers["2.3"].text == "Yes"
    assert answers["2.3.1"].text.startswith("Prolific's prescreening admitted only participants aged 18 to 65 and ")
    assert "another study of the group 'implicature-2026' were refused at entry" in answers["2.3.1"].text
    assert answers["2.3.2"].text.startswith("2 people refused at entry for an earlier study of the group")
    seen = results.methods.recruiting.seen_before
    assert answers["2.5"].text == (
        "Partial: participants of the researchers' earlier studies were excluded by Prolific's prescreening; "
        f"asked at the end, {seen.yes} said they had seen items before and {seen.no} had not"
    )


def test_a_study_that_never_excludes_says_so_not_excluded_at_0(implicature) -> None:
    from tests.factories import Bot, pid, small_study
    from tests.personas import researcher

    owner = researcher()
    study = small_study(
        "never excludes", units=1, unit_size=3, per_unit=2, attention_checks=1, exclude_at=0, owner=owner
    )
    Bot(study, pid(1)).complete()
    _, _, answers = _answers(study.pk)
    assert answers["3.2.1"].text.startswith(
        "1 attention check per participant, none excluded for failing them (the study never excludes)"
    )
    client = Client()
    client.force_login(owner)
    monitor = client.get(f"/studies/{study.pk}/monitor/").content.decode()
    assert "(the study never excludes for them)" in monitor and "excluded at 0" not in monitor


def test_runs_made_in_inspect_are_named_with_their_version_in_3_3_and_3_4(tmp_path) -> None:
    from io import StringIO

    from django.core.management import call_command

    from annotation.services import benchmark_records_import
    from modelruns.models import ModelRun
    from tests.inspect_logs import MC, MC_REPLIES, MC_TASK, records, write_log

    benchmark_records_import(name="custom", records=records(MC, MC_TASK), options={"name": MC_TASK})
    call_command(
        "create_study", "--benchmark", "custom", "--name", "Capitals", "--set", f"item_set={MC_TASK}", stdout=StringIO()
    )
    study = Study.objects.get(name="Capitals")
    call_command("import_inspect_log", study.name, str(write_log(tmp_path, MC, MC_REPLIES)), stdout=StringIO())
    run = ModelRun.objects.get(study=study)
    version = run.model_identity["inspect_version"]
    results = study_results_tree(load_study_data(study), n_boot=50)
    answers = {answer.entry.id: answer for answer in study_checklist(study, results)}
    said = f"1 run ran in Inspect {version} (mockllm/model (Inspect log of {MC_TASK})), the model reading the prompt"
    for entry in ("3.3", "3.4"):
        assert said in answers[entry].text, answers[entry].text
        assert f"inspect {version}" in {str(record.value) for record in answers[entry].records}
