"""What the results say of a study recruited through another panel than Prolific: the methods and the
checklist's 2.2 name the panel, the monitor judges the pay against the panel's own minimum in its
currency (CloudResearch Connect's $7.50/h:
https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/5046181555732-Project-Cost), and
the bundle records the panel."""

from __future__ import annotations

import json

import pytest

from parity import panels
from replication.bundles import bundle_files
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist, study_monitor
from results.presenting.report import build_report
from results.presenting.report.figures import plain
from studies.models import Study
from tests.participation.test_panels import PARAMS, panel_study, walk

pytestmark = pytest.mark.django_db


def _walked(panel: str, name: str, **fields) -> Study:
    study = panel_study(panel, name, **fields)
    walk(study, PARAMS[panel])
    return study


def _answers(study: Study):
    results = study_results_tree(load_study_data(study), n_boot=200)
    return results, {answer.entry.id: answer for answer in study_checklist(study, results)}


@pytest.mark.parametrize(
    ("panel", "strategy"),
    [
        (panels.CONNECT, "Crowdsource (CloudResearch Connect), first come first served"),
        (panels.MTURK, "Crowdsource (Amazon Mechanical Turk), first come first served"),
        (panels.SONA, "A participant pool (SONA), through the study's link, first come first served"),
        (panels.LAB, "Through the lab's own link, to the people the researchers gave it"),
    ],
)
def test_the_methods_and_the_checklist_name_the_panel_that_recruited(implicature, panel, strategy):
    study = _walked(panel, f"named {panel}")
    results, answers = _answers(study)
    assert results.methods.panel == panels.get(panel).name
    assert answers["2.2"].text.startswith(strategy)
    assert [record.name for record in answers["2.2"].records] == ["study.panel"]
    methods = " ".join(plain(parts) for parts in build_report(results, list(answers.values())).methods)
    assert f"Participants were recruited through {panels.get(panel).name}" in methods
    assert "no Prolific study was recorded" not in methods


def test_a_prolific_studys_methods_hold_no_panel(implicature):
    from tests.factories import Bot, pid, small_study

    study = small_study("prolific methods", units=1, unit_size=3, per_unit=2, attention_checks=2)
    Bot(study, pid(1)).complete()
    results, answers = _answers(study)
    assert results.methods.panel is None
    assert (
        answers["2.2"].text == "Through the study's link, first come first served; no Prolific study was recorded, "
        "so how people came by the link is the researchers' to say"
    )


def test_the_monitor_judges_connects_pay_against_connects_minimum_in_dollars(implicature):
    study = _walked(panels.CONNECT, "connect pay")
    pay = study_monitor(study).pay
    assert (pay.minimum_pence, pay.recommended_pence, pay.currency) == (750, 1000, "USD")
    # $0.10 for a walk of a few seconds is far above $7.50/h; a slow one is below it
    assert pay.verdict == "ok"
    assert study_monitor(study).pay.hourly_pence > 750


def test_the_monitor_judges_no_minimum_where_the_panel_sets_none(implicature):
    study = _walked(panels.MTURK, "mturk pay")
    pay = study_monitor(study).pay
    assert (pay.minimum_pence, pay.verdict, pay.currency) == (0, "no_minimum", "USD")
    assert not [warning for warning in study_monitor(study).warnings if "Pay is below" in warning]


def test_the_bundle_records_the_panel_and_its_settings(implicature):
    study = _walked(panels.SONA, "sona bundle")
    settings = json.loads(bundle_files(study)["study/settings.json"])
    assert settings["panel"] == "sona" and settings["panel_settings"] == study.panel_settings
