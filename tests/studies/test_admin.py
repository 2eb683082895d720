from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from studies.models import Participant
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(implicature):
    study = small_study()
    bot = Bot(study, pid(0xABC))
    bot.complete()
    return study, bot.participant


@pytest.mark.parametrize("url", ["/admin/studies/study/", "/admin/studies/participant/", "/admin/annotation/response/",
                                 "/admin/annotation/item/", "/admin/studies/unit/"])
def test_the_researcher_sees_every_list(researcher_client, finished, url):
    page = researcher_client.get(url)
    assert page.status_code == 200


def test_the_study_page_shows_live_counts_per_unit_and_the_pay_rate(researcher_client, finished):
    study, participant = finished
    html = researcher_client.get(f"/admin/studies/study/{study.pk}/change/").content.decode()
    assert "1 complete" in html and "0 working" in html and "/h on median completion" in html
    assert study.participant_url().split("?")[0] in html


def test_answers_are_listed_and_filterable_but_not_editable(researcher_client, finished):
    study, participant = finished
    html = researcher_client.get(f"/admin/annotation/response/?participant__study__id__exact={study.pk}&correct=yes").content.decode()
    assert participant.pseudonym in html
    response = participant.responses.first()
    page = researcher_client.post(f"/admin/annotation/response/{response.pk}/change/", {"raw_answer": "no"})
    assert page.status_code == 403 or participant.responses.get(pk=response.pk).raw_answer == response.raw_answer


def test_prolific_ids_are_shown_only_with_the_identity_permission(client, django_user_model, finished):
    study, participant = finished
    staff = django_user_model.objects.create_user("assistant", password="a-long-test-password", is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["view_participant", "view_response"]))
    client.force_login(staff)
    listing = client.get("/admin/studies/participant/").content.decode()
    detail = client.get(f"/admin/studies/participant/{participant.pk}/change/").content.decode()
    assert participant.pseudonym in listing
    assert participant.prolific_pid not in listing and participant.prolific_pid not in detail
    staff.user_permissions.add(Permission.objects.get(codename="view_identity"))
    client.force_login(django_user_model.objects.get(pk=staff.pk))
    assert participant.prolific_pid in client.get("/admin/studies/participant/").content.decode()


def test_exclude_and_include_actions(researcher_client, finished):
    study, participant = finished
    researcher_client.post("/admin/studies/participant/", {"action": "exclude_participants", "_selected_action": [participant.pk]})
    participant.refresh_from_db()
    assert participant.excluded and "researcher" in participant.exclusion_reason
    researcher_client.post("/admin/studies/participant/", {"action": "include_participants", "_selected_action": [participant.pk]})
    participant.refresh_from_db()
    assert not participant.excluded and participant.exclusion_reason == ""


def test_anonymous_visitors_are_sent_to_the_login(client, finished):
    page = client.get("/admin/studies/participant/")
    assert page.status_code == 302 and "/admin/login/" in page["Location"]
