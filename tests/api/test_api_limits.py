"""The API's list endpoints cap `limit`, and every caller is throttled at the configured rates."""

from __future__ import annotations

import pytest
from django.test import override_settings
from knox.models import AuthToken
from rest_framework.test import APIClient

from studies.models import Study
from tests.personas import user_with

pytestmark = pytest.mark.django_db

LISTS = [
    "/api/studies/",
    "/api/studies/{id}/items/",
    "/api/studies/{id}/participants/",
    "/api/studies/{id}/responses/",
    "/api/studies/{id}/model-runs/",
]


@pytest.fixture
def staff_api(pilot):
    api = APIClient()
    user = user_with("staff-limits")
    Study.objects.get(pk=pilot.study_id).collaborators.add(user)
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    return api


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize("limit", [10**30, 2**63, 5000])
def test_a_huge_limit_is_capped_not_a_server_error(url, limit, pilot, staff_api, settings):
    response = staff_api.get(url.format(id=pilot.study_id), {"limit": limit})
    assert response.status_code == 200
    body = response.json()
    assert len(body["results"]) == min(body["count"], settings.API_MAX_PAGE_SIZE)


def test_a_page_never_holds_more_than_the_cap(pilot, staff_api, settings):
    cap = settings.API_MAX_PAGE_SIZE = 7
    page = staff_api.get(f"/api/studies/{pilot.study_id}/responses/", {"limit": 10**30}).json()
    assert page["count"] == 35 and len(page["results"]) == cap and f"limit={cap}" in page["next"]


def test_a_huge_offset_is_an_empty_page(pilot, staff_api):
    page = staff_api.get(f"/api/studies/{pilot.study_id}/items/", {"offset": 10**30})
    assert page.status_code == 200 and page.json()["results"] == []


def _rates(settings, **rates) -> dict:
    return {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
    }


def test_a_researcher_is_throttled_at_the_configured_rate(pilot, staff_api, settings):
    with override_settings(REST_FRAMEWORK=_rates(settings, user="3/minute")):
        codes = [staff_api.get("/api/studies/").status_code for _ in range(4)]
        throttled = staff_api.get(f"/api/studies/{pilot.study_id}/")
    assert codes == [200, 200, 200, 429]
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) > 0


def test_anonymous_callers_are_throttled_at_the_configured_rate(pilot, settings):
    with override_settings(REST_FRAMEWORK=_rates(settings, anon="2/minute")):
        codes = [APIClient().get("/api/studies/").status_code for _ in range(3)]
    assert codes == [401, 401, 429]


def test_the_rates_come_from_the_settings(settings):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert set(rates) >= {"user", "anon"} and all(rates.values())


def test_a_caller_with_a_bad_token_is_throttled_too(pilot, settings):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    with override_settings(REST_FRAMEWORK=_rates(settings, anon="2/minute")):
        codes = [api.get("/api/studies/").status_code for _ in range(3)]
    assert codes == [401, 401, 429]


def test_a_forged_forwarded_header_does_not_escape_the_throttle(pilot, settings):
    with override_settings(REST_FRAMEWORK=_rates(settings, anon="2/minute")):
        codes = [APIClient().get("/api/studies/", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").status_code for n in range(3)]
    assert codes == [401, 401, 429]
