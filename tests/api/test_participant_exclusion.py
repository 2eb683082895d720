"""POST /api/studies/{id}/participants/{pseudonym}/exclusion/: exclude a participant or include them
again through the admin actions' services, with `studies.exclude_participant` on one's own study."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from studies.models import Participant
from tests.api.conftest import token_client, user_rate
from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db


@pytest.fixture
def participant(draft, people) -> Participant:
    token_client(people.owner).post(f"/api/studies/{draft.pk}/status/", {"status": "live"}, format="json")
    Bot(draft, pid(1)).complete()
    return Participant.objects.get(study=draft)


def url(participant: Participant) -> str:
    return f"/api/studies/{participant.study_id}/participants/{participant.pseudonym}/exclusion/"


def test_a_researcher_excludes_and_includes_again(participant, people):
    api = token_client(people.collaborator)
    response = api.post(url(participant), {"excluded": True}, format="json")
    assert response.status_code == 200 and response.json()["excluded"] is True
    participant.refresh_from_db()
    assert participant.excluded and participant.exclusion_reason == "excluded by collaborator"
    back = api.post(url(participant), {"excluded": False}, format="json")
    participant.refresh_from_db()
    assert back.status_code == 200 and not participant.excluded and participant.exclusion_reason == ""


@pytest.mark.parametrize("body", [{}, {"excluded": "maybe"}, {"excluded": True, "reason": "x" * 201}])
def test_a_body_that_is_not_valid_is_a_400_naming_the_field(participant, people, body):
    response = token_client(people.owner).post(url(participant), body, format="json")
    assert response.status_code == 400 and set(response.json()) <= {"excluded", "reason"}
    participant.refresh_from_db()
    assert not participant.excluded


def test_excluding_needs_the_permission_on_ones_own_study(participant, people):
    body = {"excluded": True}
    assert token_client(people.viewer).post(url(participant), body, format="json").status_code == 403
    outsider = token_client(people.outsider).post(url(participant), body, format="json")
    assert outsider.status_code == 404 and outsider.json() == {"detail": "No study has this id."}
    assert APIClient().post(url(participant), body, format="json").status_code == 401
    participant.refresh_from_db()
    assert not participant.excluded


def test_excluding_is_throttled_like_every_request(participant, people, settings):
    api = token_client(people.collaborator)
    with user_rate(settings, "2/minute"):
        codes = [api.post(url(participant), {"excluded": True}, format="json").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
