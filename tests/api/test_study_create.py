"""POST /api/studies/create/: a draft study made by the new-study page's form and service, owned by
the caller; what the page refuses, the API refuses with the same words, field by field."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from studies.access import VIEWER_PERMISSIONS
from studies.models import Study, Unit
from tests.api.conftest import token_client, user_rate
from tests.personas import member, researcher, user_with

pytestmark = pytest.mark.django_db

URL = "/api/studies/create/"
DESIGN = {"units": 2, "unit_size": 5, "per_unit": 3, "attention_checks": 2, "exclude_at": 2, "template": 3}


def test_a_researcher_creates_a_draft_they_own_with_the_pages_defaults(implicature):
    owner = researcher()
    response = token_client(owner).post(
        URL,
        {
            "name": "scripted pilot",
            "benchmark": "implicature",
            "design": DESIGN,
            "failed_attention_code": "FAILED1",
            "estimated_minutes": 10,
            "reward_pence": 200,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    study = Study.objects.get(name="scripted pilot")
    body = response.json()
    assert response["Location"] == f"/api/studies/{study.pk}/"
    assert (body["id"], body["status"], body["benchmark"]) == (study.pk, "draft", "implicature")
    assert [unit["n_items"] for unit in body["units"]] == [5, 5]
    assert study.owner == owner and study.status == Study.Status.DRAFT
    assert (study.attention_checks, study.exclude_at, study.design["template"]) == (2, 2, 3)
    assert "human_template" in study.design  # resolved by the page's service
    assert (study.estimated_minutes, study.reward_pence, study.failed_attention_code) == (10, 200, "FAILED1")
    # what was left out is what the page shows before anyone types
    assert study.consent_text == study.definition.default_consent
    assert study.instructions_text == study.definition.default_instructions
    assert len(study.completion_code) >= 6 and study.pid_format == Study.PidFormat.PROLIFIC
    assert token_client(owner).get(f"/api/studies/{study.pk}/").status_code == 200
    assert token_client(user_with("other researcher")).get(f"/api/studies/{study.pk}/").status_code == 404


@pytest.mark.parametrize(
    "changes, field, message",
    [
        ({"design": {**DESIGN, "units": 0}}, "design.units", "Units must be at least 1"),
        ({"design": {**DESIGN, "attention_checks": 9}}, "design.attention_checks", "can be at most 5"),
        ({"design": {**DESIGN, "template": 12}}, "design.template", "Select a valid choice"),
        ({"design": {**DESIGN, "colour": "red"}}, "design.colour", "implicature has no design option 'colour'"),
        ({"design": {**DESIGN, "units": [2]}}, "design.units", "a number, a word or true/false"),
        ({"design": "units=2"}, "design", "Expected a dictionary"),
        (
            {"reward_pence": 50, "estimated_minutes": 30},
            "reward_pence",
            "£0.50 for 30 minutes is £1.00/h, below Prolific's minimum of £6/h: pay at least £3.00.",
        ),
        (
            {"completion_code": "SAME", "no_consent_code": "SAME"},
            "non_field_errors",
            "must differ from each other",
        ),
        ({"design": {**DESIGN, "units": 5, "unit_size": 150}}, "design.unit_size", "only 600 are imported"),
        (
            {"design": {**DESIGN, "units": 3, "unit_size": 15}, "item_sampling": "random", "sample_size": 20},
            "sample_size",
            "3 units of 15 items need 45 items; Items to draw is 20 (600 imported)",
        ),
        ({"benchmark": "chess"}, "benchmark", '"chess" is not a valid choice'),
        ({"name": ""}, "name", "This field may not be blank"),
        ({"estimated_minutes": "ten"}, "estimated_minutes", "A valid integer is required"),
    ],
)
def test_what_the_page_refuses_is_a_400_naming_the_field_and_nothing_is_created(implicature, changes, field, message):
    data = {"name": "refused", "benchmark": "implicature", "design": DESIGN, **changes}
    response = token_client(researcher()).post(URL, data, format="json")
    assert response.status_code == 400
    assert any(message in text for text in response.json()[field]), response.json()
    assert not Study.objects.filter(name="refused").exists() and not Unit.objects.exists()


def test_a_name_already_taken_is_refused(implicature):
    api = token_client(researcher())
    data = {"name": "twice", "benchmark": "implicature", "design": {"units": 1, "unit_size": 3}}
    assert api.post(URL, data, format="json").status_code == 201
    again = api.post(URL, data, format="json")
    assert again.status_code == 400 and "already exists" in again.json()["name"][0]
    assert Study.objects.filter(name="twice").count() == 1


def test_a_benchmark_without_imported_items_is_refused_by_the_service(implicature):
    response = token_client(researcher()).post(URL, {"name": "no items", "benchmark": "miqa"}, format="json")
    assert response.status_code == 400
    assert "no miqa items are imported yet" in response.json()["non_field_errors"][0]


def test_only_accounts_that_may_add_studies_create_them(implicature):
    data = {"name": "not theirs", "benchmark": "implicature", "design": {"units": 1, "unit_size": 3}}
    assert APIClient().post(URL, data, format="json").status_code == 401
    assert token_client(member()).post(URL, data, format="json").status_code == 403
    viewer = token_client(user_with("viewer", VIEWER_PERMISSIONS))
    assert viewer.post(URL, data, format="json").status_code == 403
    assert viewer.post(URL, {"name": ""}, format="json").status_code == 403  # refused before its input is read
    assert not Study.objects.filter(name="not theirs").exists()


def test_creating_is_throttled_like_every_request(implicature, settings):
    api = token_client(researcher())
    with user_rate(settings, "2/minute"):
        codes = [api.post(URL, {"name": f"s{n}", "benchmark": "nope"}, format="json").status_code for n in range(3)]
    assert codes == [400, 400, 429]


def test_a_study_created_through_the_api_takes_its_floor_and_closing_questions(implicature):
    user = researcher()
    response = token_client(user).post(
        URL,
        {
            "name": "api closing",
            "benchmark": "implicature",
            "design": DESIGN,
            "min_answer_ms": 900,
            "closing_questions": ["age"],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    study = Study.objects.get(name="api closing")
    assert (study.min_answer_ms, study.closing_questions, study.owner) == (900, ["age"], user)
    assert study.failed_attention_code not in ("", study.completion_code)


def test_a_study_is_created_in_a_language_and_an_unknown_one_is_refused(implicature):
    owner = researcher()
    given = {"name": "en árabe", "benchmark": "implicature", "design": DESIGN, "failed_attention_code": "F1"}
    response = token_client(owner).post(URL, {**given, "language": "ar"}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["language"] == "ar" and Study.objects.get(name="en árabe").language == "ar"
    refused = token_client(owner).post(URL, {**given, "name": "nowhere", "language": "xx"}, format="json")
    assert refused.status_code == 400 and "language" in refused.json()


def test_the_population_ethics_and_paper_are_taken_and_the_power_analysis_returned(implicature):
    owner = researcher()
    fields = {
        "population": "adult crowd workers in the UK",
        "ethics_exemption": "the institution exempts anonymous online tasks",
        "paper_title": "A baseline",
        "paper_url": "https://example.org/paper",
        "paper_venue": "ACL 2026",
    }
    response = token_client(owner).post(
        URL, {"name": "reported", "benchmark": "implicature", "design": DESIGN, **fields}, format="json"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert {key: body[key] for key in fields} == fields
    assert body["ethics_body"] == "" and body["ethics_reference"] == ""
    assert (body["power_analysis"]["people"], body["power_analysis"]["units"]) == (6, 2)
    assert body["power_analysis"]["source"]["kind"] == "published"
    study = Study.objects.get(name="reported")
    assert study.population == fields["population"] and study.power_analysis == body["power_analysis"]
    refused = token_client(owner).post(
        URL,
        {"name": "half", "benchmark": "implicature", "design": DESIGN, "ethics_reference": "R-1", "paper_url": "x"},
        format="json",
    )
    assert refused.status_code == 400
    assert set(refused.json()) >= {"paper_url"}


def test_the_prescreening_and_the_item_sampling_are_set_as_on_the_page(implicature):
    response = token_client(researcher()).post(
        URL,
        {
            "name": "screened by script",
            "benchmark": "implicature",
            "design": DESIGN,
            "age_min": 30,
            "countries": ["1", "2"],
            "approval_rate_min": 98,
            "exclude_earlier": True,
            "item_sampling": "random",
            "sample_size": 10,
            "sample_seed": 7,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    study = Study.objects.get(name="screened by script")
    assert study.prolific_filters == {
        "age_min": 30,
        "countries": ["1", "2"],
        "approval_rate_min": 98,
        "exclude_earlier": True,
    }
    assert (study.item_sampling, study.sample_size, study.sample_seed) == ("random", 10, 7)
    refused = token_client(researcher("second")).post(
        URL,
        {"name": "reversed", "benchmark": "implicature", "design": DESIGN, "age_min": 60, "age_max": 20},
        format="json",
    )
    assert refused.status_code == 400
    assert refused.json()["age_max"] == ["The oldest age must be at least the youngest."]
