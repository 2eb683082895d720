"""POST /api/studies/{id}/status/: launch, pause, resume and close a study through the study page's
service, with the study page's permissions; asking for the status it has is a no-op, a move it
cannot make a 409."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from studies.models import Study
from tests.api.conftest import token_client, user_rate
from tests.factories import small_study

pytestmark = pytest.mark.django_db


def url(study: Study) -> str:
    return f"/api/studies/{study.pk}/status/"


def test_the_owner_launches_pauses_resumes_and_closes_a_study(draft, people):
    api = token_client(people.owner)
    for status in ("live", "paused", "live", "closed"):
        response = api.post(url(draft), {"status": status}, format="json")
        assert response.status_code == 200, response.json()
        assert (response.json()["status"], response.json()["changed"]) == (status, True)
        assert Study.objects.get(pk=draft.pk).status == status


def test_a_collaborator_and_a_superuser_launch_it_too(draft, people):
    assert token_client(people.collaborator).post(url(draft), {"status": "live"}, format="json").status_code == 200
    assert token_client(people.superuser).post(url(draft), {"status": "paused"}, format="json").status_code == 200
    assert Study.objects.get(pk=draft.pk).status == Study.Status.PAUSED


def test_launching_a_live_study_again_changes_nothing_and_says_so(draft, people):
    api = token_client(people.owner)
    assert api.post(url(draft), {"status": "live"}, format="json").json()["changed"] is True
    again = api.post(url(draft), {"status": "live"}, format="json")
    assert again.status_code == 200 and (again.json()["status"], again.json()["changed"]) == ("live", False)


@pytest.mark.parametrize(
    "path, wanted, message",
    [
        ([], "paused", "A draft study cannot become paused."),
        (["live", "closed"], "live", "A closed study cannot become live."),
        (["live", "closed"], "paused", "A closed study cannot become paused."),
    ],
)
def test_a_move_the_study_cannot_make_is_a_409_with_the_reason(draft, people, path, wanted, message):
    api = token_client(people.owner)
    for status in path:
        assert api.post(url(draft), {"status": status}, format="json").status_code == 200
    response = api.post(url(draft), {"status": wanted}, format="json")
    assert response.status_code == 409 and response.json() == {"detail": message}
    assert Study.objects.get(pk=draft.pk).status == (path[-1] if path else "draft")


def test_an_imported_study_keeps_its_status(implicature, people):
    imported = small_study("imported", status=Study.Status.CLOSED, is_imported=True, owner=people.owner)
    response = token_client(people.owner).post(url(imported), {"status": "paused"}, format="json")
    assert response.status_code == 409 and "imported study" in response.json()["detail"]


@pytest.mark.parametrize("body", [{}, {"status": "draft"}, {"status": "launched"}, {"status": ["live"]}])
def test_a_status_that_is_not_one_of_live_paused_closed_is_a_400(draft, people, body):
    response = token_client(people.owner).post(url(draft), body, format="json")
    assert response.status_code == 400 and list(response.json()) == ["status"]
    assert Study.objects.get(pk=draft.pk).status == Study.Status.DRAFT


def test_a_view_only_collaborator_gets_403_an_outsider_404_and_nobody_401(draft, people):
    assert token_client(people.viewer).post(url(draft), {"status": "live"}, format="json").status_code == 403
    outsider = token_client(people.outsider).post(url(draft), {"status": "live"}, format="json")
    assert outsider.status_code == 404 and outsider.json() == {"detail": "No study has this id."}
    assert APIClient().post(url(draft), {"status": "live"}, format="json").status_code == 401
    assert token_client(people.viewer).get(f"/api/studies/{draft.pk}/").status_code == 200  # reading is theirs
    assert Study.objects.get(pk=draft.pk).status == Study.Status.DRAFT


def test_a_signed_in_researcher_needs_the_csrf_token_as_on_the_page(draft, people):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(people.owner)
    assert browser.post(url(draft), {"status": "live"}, format="json").status_code == 403
    assert Study.objects.get(pk=draft.pk).status == Study.Status.DRAFT


def test_status_changes_are_throttled_like_every_request(draft, people, settings):
    api = token_client(people.owner)
    with user_rate(settings, "2/minute"):
        codes = [api.post(url(draft), {"status": "live"}, format="json").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
