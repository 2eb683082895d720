"""The researchers' API: the permission matrix of every endpoint, the payloads, the schema."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.factories import Bot, pid, row_key, small_study
from tests.personas import user_with

pytestmark = pytest.mark.django_db

READS = [
    "/api/studies/",
    "/api/studies/{id}/",
    "/api/studies/{id}/items/",
    "/api/studies/{id}/participants/",
    "/api/studies/{id}/responses/",
    "/api/studies/{id}/model-runs/",
    "/api/studies/{id}/results/",
    "/api/studies/{id}/exports/csv/",
]
WRITE = "/api/studies/{id}/participants/A4/exclusion/"


def _token_client(user) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    return api


@pytest.fixture
def staff_api(pilot):
    """A researcher (not a superuser) who collaborates on the pilot study."""
    from studies.models import Study

    user = user_with("staff-api")
    Study.objects.get(pk=pilot.study_id).collaborators.add(user)
    return _token_client(user)


@pytest.fixture
def member_api(django_user_model):
    """Signed in, staff even, but holding no researcher permission."""
    return _token_client(user_with("member-api", [], is_staff=True))


@pytest.mark.parametrize("url", READS)
def test_every_read_needs_a_researcher_account(url, pilot, staff_api, member_api):
    url = url.format(id=pilot.study_id)
    assert APIClient().get(url).status_code == 401
    assert member_api.get(url).status_code == 403
    assert staff_api.get(url).status_code == 200


@pytest.mark.parametrize("url", READS)
def test_a_participant_session_reads_nothing(url, pilot):
    browser = Client()
    Bot(small_study(f"entry {url}"), pid(0xE1), client=browser).enter()
    assert browser.get(url.format(id=pilot.study_id)).status_code in {401, 403}


def test_a_signed_in_staff_session_reads_too(pilot, staff_client):
    assert staff_client.get(f"/api/studies/{pilot.study_id}/").status_code == 200


def test_excluding_through_the_api_is_for_researchers_only_and_changes_the_results(pilot, staff_api, member_api):
    url = WRITE.format(id=pilot.study_id)
    assert APIClient().post(url, {"excluded": True}, format="json").status_code == 401
    assert member_api.post(url, {"excluded": True}, format="json").status_code == 403
    assert staff_api.post(url, {"excluded": "maybe"}, format="json").status_code == 400
    response = staff_api.post(url, {"excluded": True, "reason": "speeding"}, format="json")
    assert response.status_code == 200 and response.json()["excluded"] is True
    assert response.json()["exclusion_reason"] == "speeding"
    results = staff_api.get(f"/api/studies/{pilot.study_id}/results/").json()
    assert results["participants"]["included"] == 3
    back = staff_api.post(url, {"excluded": False}, format="json")
    assert back.status_code == 200 and back.json()["excluded"] is False
    assert staff_api.get(f"/api/studies/{pilot.study_id}/participants/A9/exclusion/").status_code == 405
    assert (
        staff_api.post(
            f"/api/studies/{pilot.study_id}/participants/A99/exclusion/", {"excluded": True}, format="json"
        ).status_code
        == 404
    )


def test_results_match_the_command_and_validate_their_filters(pilot, staff_api):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("study_results", pilot.name, "--json", "--unit", "U1", stdout=out)
    api = staff_api.get(f"/api/studies/{pilot.study_id}/results/", {"unit": "U1"})
    assert api.status_code == 200 and api.json() == json.loads(out.getvalue())
    assert staff_api.get(f"/api/studies/{pilot.study_id}/results/", {"unit": "U9"}).status_code == 400


def test_participants_and_responses_are_pseudonymous(pilot, staff_api):
    participants = staff_api.get(f"/api/studies/{pilot.study_id}/participants/").json()
    assert [p["pseudonym"] for p in participants["results"]] == ["A1", "A2", "A3", "A4", "A5"]
    assert not {"prolific_pid", "prolific_session_id", "prolific_study_id"} & set(participants["results"][0])
    responses = staff_api.get(
        f"/api/studies/{pilot.study_id}/responses/",
        {"include_excluded": "false", "include_attention_checks": "false", "limit": 100},
    )
    body = responses.json()
    assert body["count"] == 20 and {r["annotator"] for r in body["results"]} == {"A1", "A2", "A4", "A5"}
    everything = json.dumps([participants, body, staff_api.get(f"/api/studies/{pilot.study_id}/items/").json()])
    for secret in [*pilot.pids, *pilot.sessions]:
        assert secret not in everything
    assert staff_api.get(f"/api/studies/{pilot.study_id}/responses/", {"include_free_text": "x"}).status_code == 400


def test_study_items_runs_and_exports(pilot, staff_api):
    detail = staff_api.get(f"/api/studies/{pilot.study_id}/").json()
    assert [u["label"] for u in detail["units"]] == ["U1", "U2"] and detail["units"][0]["completed"] == 2
    items = staff_api.get(f"/api/studies/{pilot.study_id}/items/", {"limit": 3}).json()
    assert items["count"] == 10 and [i["key"] for i in items["results"]] == [row_key(1), row_key(2), row_key(3)]
    runs = staff_api.get(f"/api/studies/{pilot.study_id}/model-runs/").json()["results"]
    assert sorted(r["accuracy"] for r in runs) == [0.9, 1.0] and {r["model"] for r in runs} == {"tiny-lm"}
    export = staff_api.get(f"/api/studies/{pilot.study_id}/exports/wide-csv/")
    assert export.status_code == 200 and export["Content-Type"].startswith("text/csv")
    assert staff_api.get(f"/api/studies/{pilot.study_id}/exports/xlsx/").status_code == 404
    assert staff_api.get("/api/studies/999999/results/").status_code == 404


def test_the_generated_openapi_schema_is_valid_and_covers_the_api():
    GENERATOR_STATS.reset()
    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    problems = [*GENERATOR_STATS._warn_cache, *GENERATOR_STATS._error_cache]
    assert not problems
    paths = set(schema["paths"])
    assert {
        "/api/studies/",
        "/api/studies/{study_id}/results/",
        "/api/studies/{study_id}/exports/{fmt}/",
        "/api/studies/{study_id}/participants/{pseudonym}/exclusion/",
    } <= paths
    assert Client().get("/api/schema/").status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        "prolific_pid=x",
        "prolific_pid__regex=^[0-9a-f]",
        "prolific_pid__startswith=0",
        "PROLIFIC_PID=x",
        "prolific_session_id=SESSION0001",
        "prolific_study_id=S",
        "participant__prolific_pid__startswith=0",
        "ordering=prolific_pid",
        "ordering=pseudonym,-prolific_session_id",
    ],
)
def test_identity_parameters_are_refused_by_every_read(query, pilot, researcher):
    api = _token_client(researcher)
    for url in READS:
        response = api.get(f"{url.format(id=pilot.study_id)}?{query}")
        assert response.status_code == 400, url
        assert "pseudonymous" in json.dumps(response.json())
        assert not any(p in response.content.decode() for p in pilot.pids)
