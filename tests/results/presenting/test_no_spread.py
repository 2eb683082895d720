"""Answers with no spread give no interval and no test, and say why: two people right on both items
of a study and a model wrong on both (the JSON and the results page once printed SE 0, the CI
[−100, −100] and p < 0.001 from four answers)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape

from parity.stats.crossed import NO_SPREAD
from results.presenting.report.latex import tex
from tests.factories import Bot, pid, small_study
from tests.results.conftest import FLIP, model_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(implicature, researcher):
    from annotation.models import Item

    study = small_study("no spread", units=1, unit_size=2, per_unit=2, attention_checks=1, owner=researcher)
    for number in (1, 2):
        Bot(study, pid(number)).complete()
    golds = dict(Item.objects.filter(unititem__unit__study=study, is_attention_check=False).values_list("key", "gold"))
    assert len(golds) == 2
    model_run(study, "tiny-lm", {"variant": "ranking", "k": 0, "template": 1}, {k: FLIP[g] for k, g in golds.items()})
    return study


def test_the_json_has_the_gap_with_no_interval_and_the_reason(study) -> None:
    out = StringIO()
    call_command("study_results", study.name, "--json", stdout=out)
    (paired,) = json.loads(out.getvalue())["paired"]
    test = paired  # the test's fields are inline in its row
    assert test["gap"] == -1.0 and (test["n_items"], test["n_people"]) == (2, 2)
    assert test["se"] is None and test["ci"] is None and test["p"] is None and test["t"] is None
    assert test["reason"] == NO_SPREAD


def test_the_page_prints_the_gap_without_an_interval_or_a_p_value(study, researcher_client) -> None:
    page = researcher_client.get(reverse("results:study", args=[study.pk])).content.decode()
    assert "−100.0 pp" in page or "-100.0 pp" in page
    assert "[-100.0, -100.0]" not in page and "p &lt; 0.001" not in page


def test_the_page_prints_the_reason_where_the_interval_would_be(study, researcher_client) -> None:
    page = researcher_client.get(reverse("results:study", args=[study.pk])).content.decode()
    assert f"−100.0 pp {escape(NO_SPREAD)}" in page or f"-100.0 pp {escape(NO_SPREAD)}" in page


@pytest.mark.parametrize("fmt", ["markdown", "html", "latex"])
def test_the_report_prints_the_reason_in_the_gaps_interval_column(study, fmt) -> None:
    out = StringIO()
    call_command("study_report", study.name, "--format", fmt, stdout=out)
    report = " ".join(out.getvalue().split())  # a table cell may be wrapped
    written = {"markdown": NO_SPREAD, "html": escape(NO_SPREAD), "latex": tex(NO_SPREAD)}[fmt]
    assert written in report
