"""A separation reliability the fit reports as 0 (its estimate (var − mean SE²) / var at or below 0,
clamped by `parity.stats.irt.separation_reliability`) is said to be not estimable wherever it is
printed, never "0.00"; a positive one is printed as its figure."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse

from results.computing.tree import StudyResults
from results.presenting.report import render_report
from studies.models import Study

pytestmark = pytest.mark.django_db

NOT_ESTIMABLE = (
    "item reliability not estimable (the estimate is not positive: the items' difficulties vary no more than their "
    "standard errors)"
)


def _json(name: str) -> dict[str, Any]:
    out = StringIO()
    call_command("study_results", name, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_a_clamped_item_reliability_is_said_not_estimable_wherever_it_is_printed(pilot, staff_client) -> None:
    results = _json(pilot.name)
    irt = results["irt"]
    difficulty = np.array([item["difficulty"] for item in irt["items"]])
    se = np.array([item["difficulty_se"] for item in irt["items"]])
    # the fit's own items: their difficulties vary no more than their standard errors, so the estimate is not positive
    assert np.var(difficulty, ddof=1) <= np.mean(se**2)
    assert irt["item_reliability"] == 0.0
    tree = StudyResults.from_json(results)
    for kind in ("markdown", "html", "latex"):
        report = render_report(tree, kind)
        assert "item reliability 0.00" not in report, kind
    markdown = render_report(tree, "markdown")
    assert markdown.count(NOT_ESTIMABLE) == 2  # the methods' paragraph and the placement table's note
    assert "item reliability not estimable (the estimate is not positive" in render_report(tree, "latex")
    page = staff_client.get(reverse("results:study", args=[Study.objects.get(name=pilot.name).pk])).content.decode()
    assert "item reliability 0.00" not in page
    assert NOT_ESTIMABLE.replace("'", "&#x27;") in page


def test_a_positive_reliability_is_printed_as_its_figure(pilot) -> None:
    results = _json(pilot.name)
    results["irt"].update(person_reliability=0.61, item_reliability=0.734)
    markdown = render_report(StudyResults.from_json(results), "markdown")
    assert "person reliability 0.61, item reliability 0.73" in markdown
    assert "not estimable" not in markdown
