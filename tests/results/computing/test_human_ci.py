"""The human accuracy CI over few annotators: named (a t-interval) and flagged below ten, on the
page, in the tables, in `study_results --json` and in the API."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from knox.models import AuthToken
from rest_framework.test import APIClient

from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.presenting.tables import paper_tables
from studies.models import Study
from tests.personas import user_with

pytestmark = pytest.mark.django_db

# the pilot's 4 annotators: 1, 1, 0.8, 0.6; mean 0.85, sample std √(0.11 / 3), t(0.975, 3) = 3.182
LOW = 0.85 - 3.182 * (0.11 / 3) ** 0.5 / 2


def test_the_page_names_the_method_and_warns_below_ten_annotators(staff_client, pilot):
    html = staff_client.get(f"/studies/{pilot.study_id}/results/").content.decode()
    assert f"95% CI [{100 * LOW:.1f}, 100.0], t-interval" in html
    assert '<small class="warning" role="note">Only 4 annotators, fewer than 10: a wide, rough CI.</small>' in html
    assert "the humans' accuracy is a Student's t-interval over annotators" in html
    assert "percentile bootstrap over annotators" not in html
    listing = staff_client.get("/studies/").content.decode()
    assert f"[{100 * LOW:.1f}, 100.0] †" in listing


def test_the_tables_name_the_method_in_their_notes(pilot):
    results = study_results_tree(load_study_data(Study.objects.get(pk=pilot.study_id)))
    tables = {table.key: table for table in paper_tables(results)}
    accuracy_notes = " ".join(tables["accuracy"].notes)
    assert "its CI is Student's t-interval over annotators (n − 1 degrees of freedom)" in accuracy_notes
    assert "Fewer than 10 annotators (4)" in accuracy_notes
    units = tables["units"]
    at = units.columns.index("Mean 95% CI")
    # U1: A1 1.0 and A4 0.8, t(0.975, 1) = 12.71: the interval covers all of [0, 1]
    assert units.rows[0][0] == "U1" and units.rows[0][at] == "[0.0, 100.0]"
    assert "Student's t-interval over annotators" in " ".join(tables["by_category"].notes)


def test_the_json_and_the_api_carry_the_method_and_the_warning(pilot):
    out = StringIO()
    call_command("study_results", pilot.name, "--json", stdout=out)
    results = json.loads(out.getvalue())
    accuracy = results["human"]["accuracy"]
    assert accuracy["ci95"] == pytest.approx([LOW, 1.0], abs=1e-4)
    assert (accuracy["ci_method"], accuracy["small_n_warning"]) == ("t_interval", True)
    assert all(unit["accuracy_ci_method"] == "t_interval" and unit["small_n_warning"] for unit in results["units"])
    assert all(row["human"]["small_n_warning"] for row in results["breakdowns"]["by_category"]["rows"])
    user = user_with("ci-api")
    Study.objects.get(pk=pilot.study_id).collaborators.add(user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    served = api.get(f"/api/studies/{pilot.study_id}/results/").json()["human"]["accuracy"]
    assert (served["ci_method"], served["small_n_warning"], served["ci95"]) == (
        "t_interval",
        True,
        accuracy["ci95"],
    )
