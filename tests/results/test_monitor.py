"""The live monitor: its page and htmx fragment, and its API, for the people around a study."""

from __future__ import annotations

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from freezegun import freeze_time
from rest_framework.test import APIClient

from parity.stats import quality
from studies.models import Participant, Study
from studies.participants.quality import FLAGS
from tests.personas import member, personas_for, signed_in
from tests.studies.monitoring import READ_AT, busy_study, pseudonym

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def _busy_study_id(django_db_setup, django_db_blocker):
    """The study of `tests.studies.monitoring`, built once for the module and committed (walking its
    ten participants takes seconds); each test runs in a transaction of its own."""
    from tests.conftest import committed_world_wipe, dataset

    dataset("implicature")
    with django_db_blocker.unblock():
        yield busy_study().pk
        committed_world_wipe()


@pytest.fixture
def busy(_busy_study_id, implicature):
    """The busy study and the people around it, read at the time its figures were worked out for."""
    study = Study.objects.get(pk=_busy_study_id)
    people = personas_for(study)
    with freeze_time(READ_AT):
        yield study, people


def test_the_owner_collaborators_and_superusers_see_the_monitor(busy):
    study, people = busy
    for user in (people.owner, people.collaborator, people.viewer, people.superuser):
        page = signed_in(user).get(f"/studies/{study.pk}/monitor/")
        assert page.status_code == 200, user.username
    html = page.content.decode()
    assert '<dd data-count="arrivals">10</dd>' in html and '<dd data-count="completed">6</dd>' in html
    assert '<dd data-count="declined">1</dd>' in html and '<dd data-count="excluded">1</dd>' in html
    assert "Pay is below Prolific&#x27;s minimum: £3.00/h" in html
    # each flagged pseudonym opens the participant's admin page
    five = Participant.objects.get(study=study, pseudonym=pseudonym(study, 5))
    assert f'<td><a href="/admin/studies/participant/{five.pk}/change/">{five.pseudonym}</a></td>' in html
    assert FLAGS["straight_lining"] in html
    # the rule's words, from its parameters, not a sentence of their own
    assert f"{quality.straight_lining_rule()}." in html and "the same answer to 5 or more" not in html
    assert '<figure class="chart" id="monitor-chart"><svg' in html
    assert 'hx-trigger="every 10s"' in html and f'hx-get="/studies/{study.pk}/monitor/"' in html


def test_htmx_gets_the_fragment_alone(busy):
    study, people = busy
    fragment = signed_in(people.owner).get(f"/studies/{study.pk}/monitor/", HTTP_HX_REQUEST="true")
    html = fragment.content.decode()
    assert fragment.status_code == 200 and html.lstrip().startswith('<section id="monitor"')
    assert "<html" not in html and '<dd data-count="working">1</dd>' in html


def test_others_get_404_those_without_the_permission_403_and_strangers_the_login(busy):
    study, people = busy
    url = f"/studies/{study.pk}/monitor/"
    assert signed_in(people.outsider).get(url).status_code == 404
    assert signed_in(member()).get(url).status_code == 403
    assert Client().get(url).url.startswith("/accounts/login/")
    assert signed_in(people.owner).get("/studies/999999/monitor/").status_code == 404
    assert signed_in(people.owner).post(url).status_code == 405


def test_the_api_gives_the_same_figures_with_the_same_permissions(busy):
    study, people = busy
    url = f"/api/studies/{study.pk}/monitor/"
    api = APIClient()
    assert api.get(url).status_code == 401
    api.force_authenticate(member())
    assert api.get(url).status_code == 403
    api.force_authenticate(people.outsider)
    assert api.get(url).status_code == 404
    api.force_authenticate(people.viewer)
    body = api.get(url).json()
    assert body["counts"] == {
        "arrivals": 10,
        "working": 1,
        "completed": 6,
        "timed_out": 1,
        "returned": 1,
        "declined": 1,
        "screened_out": 0,
        "excluded": 1,
    }
    assert body["pay"]["verdict"] == "below_minimum" and body["pay"]["median_minutes"] == 2.0
    assert [(row["pseudonym"], row["flags"]) for row in body["flagged"]] == [
        (pseudonym(study, 5), ["straight_lining"]),
        (pseudonym(study, 6), ["fast_items", "bot_speed"]),
    ]
    assert body["warnings"][0].startswith("Pay is below Prolific's minimum")
    assert len(body["timeline"]) == 10 + 6 and body["timeline"][-1]["arrivals"] == 10
    assert not any(f"{n:024x}" in api.get(url).content.decode() for n in range(1, 11)), "pseudonymous"


def test_the_api_schema_documents_the_monitor():
    operation = SchemaGenerator().get_schema(request=None, public=True)["paths"]["/api/studies/{study_id}/monitor/"]
    assert set(operation["get"]["responses"]) == {"200", "401", "403", "404", "429"}
    assert operation["get"]["operationId"] == "studies_monitor_retrieve"
