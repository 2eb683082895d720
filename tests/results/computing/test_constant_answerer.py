"""A model run that gives one answer to every item is compared with people as a constant answerer:
the results tree keeps that answer, and the results page's tables, its "Models among the people"
and the report's headline paragraph say so beside the run."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

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


def _answered(name: str) -> tuple:
    """A study two people answered, with smollm2 answering "no" to each of its items; and their golds."""
    study = small_study(name, units=1, unit_size=6, per_unit=2, attention_checks=0)
    for n in (1, 2):
        Bot(study, pid(n)).complete()
    keys = list(
        Response.objects.filter(participant__study=study).values_list("item__key", flat=True).distinct().order_by()
    )
    golds = dict(Item.objects.filter(benchmark="implicature", key__in=keys).values_list("key", "gold"))
    model_run(study, "smollm2", {**BASE, "template": 2}, dict.fromkeys(keys, "no"))
    assert set(golds.values()) == {"yes", "no"}  # the gold varies: answering right is no constant
    return study, golds


@pytest.fixture
def constant(implicature):
    study, golds = _answered("one answer")
    model_run(study, "tiny-lm", {**BASE, "template": 3}, golds)
    return study


@pytest.fixture
def constant_alone(implicature):
    """A study whose only model, so its best, is the constant answerer."""
    return _answered("one answer, one model")[0]


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


def test_the_study_list_says_when_its_best_model_answers_one_thing(constant, constant_alone, staff_client):
    html = staff_client.get(reverse("results:list")).content.decode()
    rows = {row.split('"', 1)[0]: row for row in html.split('<tr id="study-row-')[1:]}
    cells = {pk: re.search(r'data-column="best_model">(.*?)</td>', row, re.S)[1] for pk, row in rows.items()}
    assert cells[str(constant_alone.pk)] == (
        'smollm2 (template 2, k=0)<span class="note constant-answer">answers “no” to every item</span>'
    ), cells
    assert cells[str(constant.pk)] == "tiny-lm (template 3, k=0)", cells  # the best of the two varies its answers
