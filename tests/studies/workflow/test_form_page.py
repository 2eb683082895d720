"""The new-study form as a page: the time and reward estimated from the design (and saying how), and
every error listed at the top of the form, each linked to its field."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.core.management import call_command

from studies.models import Study
from tests.paths import REPO
from tests.studies.workflow.helpers import create

pytestmark = pytest.mark.django_db

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"


def _estimate(html: str) -> str:
    found = re.search(r'<strong id="time-estimate-text">(.*?)</strong>', html, re.S)
    assert found, "no estimate on the page"
    return found.group(1)


def test_the_time_and_reward_start_from_the_designs_estimate_and_say_how(researcher_client):
    page = researcher_client.get("/studies/new/?benchmark=implicature")
    form, html = page.context["form"], page.content.decode()
    # the paper's design: 150 items and 3 attention checks; £9/h for 33 minutes is £4.95
    assert (form["estimated_minutes"].value(), form["reward"].value()) == (33, Decimal("4.95"))
    assert _estimate(html) == ("153 answers × ~12 s + 2 min consent and instructions ≈ 33 min; reward at £9/h: £4.95")
    assert "Ruis et al. report no time" in html  # where the figure comes from

    page = researcher_client.get("/studies/new/?benchmark=ambibench")
    assert (page.context["form"]["estimated_minutes"].value(), page.context["form"]["reward"].value()) == (
        8,
        Decimal("1.20"),
    )
    html = page.content.decode()
    assert _estimate(html).startswith("20 answers × ~18 s + 2 min consent and instructions ≈ 8 min")
    assert "Tamkin et al.: 4-8 minutes for a 20-sentence episode" in html


def test_a_change_of_the_design_brings_its_estimate_through_htmx(researcher_client):
    page = researcher_client.get(
        "/studies/new/?benchmark=implicature&design_units=1&design_unit_size=10&design_per_unit=2"
        "&design_split=test&design_template=2&design_attention_checks=2&design_exclude_at=2",
        headers={"HX-Request": "true"},
    )
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="study-form"' not in html  # the fragment alone
    assert 'data-minutes="5" data-reward="0.75"' in html  # 12 answers × 12 s + 2 min = 4.4 min
    assert _estimate(html).startswith("12 answers × ~12 s")
    wrong = researcher_client.get(
        "/studies/new/?benchmark=implicature&design_unit_size=zero", headers={"HX-Request": "true"}
    ).content.decode()
    assert "No estimate for this design" in wrong and "data-minutes" not in wrong


def test_a_refused_form_shows_the_estimate_of_the_design_as_typed(researcher_client, implicature):
    page = create(researcher_client, "implicature", name="", unit_size=20, attention_checks=0, exclude_at=0)
    assert page.status_code == 400
    assert _estimate(page.content.decode()).startswith("20 answers × ~12 s + 2 min consent and instructions ≈ 6 min")


def test_a_set_of_ones_own_items_is_estimated_from_its_imported_items(researcher_client):
    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "example")
    page = researcher_client.get("/studies/new/?benchmark=custom&item_set=example")
    # every item of the set in one unit: the example's 8 items, at 15 s each
    assert _estimate(page.content.decode()).startswith("8 answers × ~15 s + 2 min consent and instructions ≈ 4 min")
    assert page.context["form"]["estimated_minutes"].value() == 4


def test_every_error_is_listed_at_the_top_of_the_form_linked_to_its_field(researcher_client, implicature):
    assert 'id="form-errors"' not in researcher_client.get("/studies/new/?benchmark=implicature").content.decode()
    page = create(
        researcher_client,
        "implicature",
        name="refused",
        units=0,
        reward="0.50",
        estimated_minutes=30,
        completion_code="SAME",
        no_consent_code="SAME",
    )
    html = page.content.decode()
    assert page.status_code == 400 and not Study.objects.filter(name="refused").exists()
    summary = re.search(r'<div class="error-summary" role="alert" id="form-errors".*?</div>', html, re.S)
    assert summary, "no summary of the errors"
    # above every field of the form
    assert summary.start() < html.index('id="field-name"')
    text = summary.group(0)
    assert "3 things to correct; nothing was saved" in text
    assert "must differ from each other" in text  # the form's own error first
    assert '<a href="#field-design_units">Units</a>: Units must be at least 1.' in text
    assert '<a href="#field-reward">Reward (£)</a>: £0.50 for 30 minutes is £1.00/h' in text
    assert text.index("field-design_units") < text.index("field-reward")  # in the form's order
    # each field still says its own error beside it
    assert html.count("Units must be at least 1.") == 2
