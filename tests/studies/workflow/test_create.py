"""Creating a study from the web: the benchmark's declared options, the paper's design by default,
validation in words, and the same service as `manage.py create_study`."""

from __future__ import annotations

import pytest
from django.test import Client

from parity import benchmarks
from studies.models import Study, Unit
from tests import personas
from tests.studies.workflow.helpers import create, form_data

pytestmark = pytest.mark.django_db


def test_only_a_researcher_allowed_to_add_studies_gets_the_form(researcher_client):
    assert Client().get("/studies/new/").status_code == 302  # to the login
    assert personas.signed_in(personas.member()).get("/studies/new/").status_code == 403
    viewer = personas.user_with("viewer", ["studies.view_study"])
    assert personas.signed_in(viewer).get("/studies/new/?benchmark=implicature").status_code == 403
    assert personas.signed_in(viewer).post("/studies/new/?benchmark=implicature", {"name": "x"}).status_code == 403
    page = researcher_client.get("/studies/new/")
    assert page.status_code == 200
    assert "no items imported yet" in page.content.decode()  # nothing imported in this test


@pytest.mark.parametrize("name", sorted(benchmarks.REGISTRY))
def test_the_form_has_a_field_per_declared_design_option_with_the_papers_default(researcher_client, name):
    definition = benchmarks.get(name)
    form = researcher_client.get(f"/studies/new/?benchmark={name}").context["form"]
    for option in definition.design_options:
        field = form[f"design_{option.key}"]
        assert str(field.value()) == str(definition.default_design[option.key])
    assert form["consent_text"].value() == definition.default_consent
    assert form["instructions_text"].value() == definition.default_instructions


def test_the_implicature_form_offers_the_papers_design(researcher_client):
    page = researcher_client.get("/studies/new/?benchmark=implicature")
    form = page.context["form"]
    assert {
        key: form[f"design_{key}"].value()
        for key in ("units", "unit_size", "per_unit", "attention_checks", "exclude_at")
    } == {"units": 4, "unit_size": 150, "per_unit": 5, "attention_checks": 3, "exclude_at": 2}
    assert form["design_template"].value() == "2"
    assert "£9.00/h" in page.content.decode()  # £4.50 for 30 minutes


def test_a_researcher_creates_a_draft_study_that_they_own(researcher_client, researcher, implicature):
    page = create(
        researcher_client,
        "implicature",
        name="web pilot",
        units=2,
        unit_size=5,
        per_unit=3,
        attention_checks=2,
        exclude_at=2,
        template="3",
        consent_text="Agree **please**.",
        failed_attention_code="FAILED1",
        no_consent_code="NOCONSENT",
        estimated_minutes=10,
        reward="2.00",
    )
    study = Study.objects.get(name="web pilot")
    assert page.status_code == 302 and page["Location"] == f"/studies/{study.pk}/"
    assert study.owner == researcher and study.status == Study.Status.DRAFT
    assert [unit.unit_items.count() for unit in study.units.all()] == [5, 5]
    assert {unit.capacity for unit in study.units.all()} == {3}
    assert (study.attention_checks, study.exclude_at, study.design["template"]) == (2, 2, 3)
    assert "human_template" in study.design  # resolved by the same service as the command
    assert (study.consent_text, study.failed_attention_code, study.no_consent_code) == (
        "Agree **please**.",
        "FAILED1",
        "NOCONSENT",
    )
    assert (study.estimated_minutes, study.reward_pence) == (10, 200)
    assert study.instructions_text == study.definition.default_instructions


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"units": 0}, "Units must be at least 1"),
        ({"attention_checks": 9}, "Attention checks per participant can be at most 5"),
        (
            {"attention_checks": 1, "exclude_at": 2},
            "Exclusion at 2 failed checks can never happen with 1 attention check",
        ),
        ({"attention_checks": 3, "exclude_at": 1}, "Prolific allows rejecting for a single failed check only"),
        ({"template": "12"}, "Select a valid choice"),
        ({"reward": "0.50", "estimated_minutes": 40}, "£0.75/h, below Prolific&#x27;s minimum of £6/h"),
        ({"units": 5, "unit_size": 150}, "5 units of 150 items need 750 test items; only 600 are imported"),
        ({"completion_code": "SAME", "no_consent_code": "SAME"}, "must differ from each other"),
    ],
)
def test_what_is_wrong_is_said_in_words_and_nothing_is_created(researcher_client, implicature, changes, message):
    page = create(researcher_client, "implicature", name="refused", **changes)
    assert page.status_code == 400
    assert message in page.content.decode()
    assert not Study.objects.filter(name="refused").exists() and not Unit.objects.exists()


def test_a_name_already_taken_is_refused(researcher_client, implicature):
    assert create(researcher_client, "implicature", name="twice", units=1, unit_size=3).status_code == 302
    page = create(researcher_client, "implicature", name="twice", units=1, unit_size=3)
    assert page.status_code == 400 and "A study named “twice” already exists" in page.content.decode()
    assert Study.objects.filter(name="twice").count() == 1


def test_a_benchmark_without_imported_items_is_refused_by_the_service(researcher_client, implicature):
    page = create(researcher_client, "miqa", name="no items")
    assert page.status_code == 400 and "no miqa items are imported yet" in page.content.decode()


def test_an_unknown_benchmark_falls_back_to_the_choice(researcher_client):
    page = researcher_client.get("/studies/new/?benchmark=nope")
    assert page.status_code == 200 and "pick a benchmark" in page.content.decode()
    assert form_data(researcher_client, "ambibench")["design_format"] == "arrow"
