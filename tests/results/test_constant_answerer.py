"""A model run that gives one answer to every item is compared with people as a constant answerer:
the results tree keeps that answer, and the results page's tables, its "Models among the people"
and the report's headline paragraph say so beside the run."""

from __future__ import annotations

import pytest

from annotation.models import Item
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.presenting.report import build_report, render_report
from results.presenting.report.figures import plain
from results.presenting.tables import CONSTANT_MARK, constant_answer
from studies.models import Response
from tests.factories import Bot, pid, small_study
from tests.results.conftest import model_run

pytestmark = pytest.mark.django_db

BASE = {"variant": "ranking", "k": 0, "shots_seed": 0}


@pytest.fixture
def constant(implicature):
    study = small_study("one answer", units=1, unit_size=6, per_unit=2, attention_checks=0)
    for n in (1, 2):
        Bot(study, pid(n)).complete()
    keys = list(
        Response.objects.filter(participant__study=study).values_list("item__key", flat=True).distinct().order_by()
    )
    golds = dict(Item.objects.filter(benchmark="implicature", key__in=keys).values_list("key", "gold"))
    model_run(study, "smollm2", {**BASE, "template": 2}, dict.fromkeys(keys, "no"))
    model_run(study, "tiny-lm", {**BASE, "template": 3}, golds)
    assert set(golds.values()) == {"yes", "no"}  # the gold varies: answering right is no constant
    return study


def test_the_tree_keeps_the_one_answer_and_only_for_a_run_that_gave_one(constant):
    results = study_results_tree(load_study_data(constant), n_boot=50)
    answers = {model.model: model.constant_answer for model in results.models}
    assert answers == {"smollm2": "no", "tiny-lm": None}
    assert "constant_answer" not in results.to_json()["models"][1]  # omitted where the run varied


def test_the_page_and_the_report_say_so_beside_the_run(constant, staff_client):
    results = study_results_tree(load_study_data(constant), n_boot=50)
    smollm2 = next(model for model in results.models if model.model == "smollm2")
    said = constant_answer(smollm2)
    assert said.startswith(f"{smollm2.label} gave “no” to every item it answered: it is a constant answerer")
    html = staff_client.get(f"/studies/{constant.pk}/results/").content.decode()
    # beside its row in the comparison and accuracy tables, and under "Models among the people"
    assert html.count(f"<td>smollm2 {CONSTANT_MARK}</td>") == 2 and "<td>tiny-lm</td>" in html
    assert html.count(f'<p class="meta table-note">{CONSTANT_MARK} {said}.</p>') == 2
    assert f'<p class="meta constant-answer">{CONSTANT_MARK} {said}.</p>' in html
    assert html.count("constant answerer") == 3  # tiny-lm, whose answers vary, is not called one
    headline = plain(build_report(results).findings)
    assert f"{smollm2.label}: a constant answerer, “no” to every item; " in headline
    assert headline.count("constant answerer") == 1
    # every report format carries the tables' mark and notes
    assert r"smollm2 \textdaggerdbl{}" in render_report(results, "latex")
    assert f"| smollm2 {CONSTANT_MARK} |" in render_report(results, "markdown")
