"""Prolific identities cannot be recovered through admin URL lookups, searches or orderings, nor
through API parameters, by anyone without `studies.view_identity`."""

from __future__ import annotations

import pytest

from studies.models import Study
from tests import personas
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

PID = pid(0xABC)  # 000000000000000000000abc

#: changelist -> the path from its model to a participant ("" for the participant list itself)
CHANGELISTS = {
    "/admin/studies/participant/": "",
    "/admin/studies/response/": "participant__",
    "/admin/studies/study/": "participants__",
    "/admin/studies/unit/": "participants__",
    "/admin/annotation/item/": "responses__participant__",
    "/admin/modelruns/modelrun/": "study__participants__",
}
#: the one-character-at-a-time attack and its relatives
LOOKUPS = [
    ("prolific_pid__regex", "^[0-9a-f]"),
    ("prolific_pid__startswith", "0"),
    ("prolific_pid__iregex", "c$"),
    ("prolific_pid__contains", "abc"),
    ("prolific_pid", PID),
    ("prolific_session_id", "SESSION0001"),
    ("prolific_session_id__startswith", "S"),
    ("prolific_study_id", "STUDY0001"),
]


@pytest.fixture
def finished(implicature):
    study = small_study()
    bot = Bot(study, PID)
    bot.complete()
    return study, bot.participant


def _staff(django_user_model, name: str, *codenames: str):
    user = personas.user_with(
        name,
        [
            "studies.view_study",
            "studies.view_unit",
            "studies.view_participant",
            "studies.view_response",
            "annotation.view_item",
            "modelruns.view_modelrun",
            *codenames,
        ],
    )
    for study in Study.objects.all():  # a collaborator sees the study's rows (studies.access)
        study.collaborators.add(user)
    return user


def test_identity_lookups_are_refused_on_every_changelist_without_the_permission(client, django_user_model, finished):
    study, participant = finished
    client.force_login(_staff(django_user_model, "assistant"))
    for url, path in CHANGELISTS.items():
        assert client.get(url).status_code == 200, url
        for lookup, value in LOOKUPS:
            page = client.get(url, {f"{path}{lookup}": value})
            assert page.status_code == 400, (url, lookup)
            assert PID not in page.content.decode()


def test_the_identity_permission_allows_the_lookup_on_the_participant_list(client, django_user_model, finished):
    study, participant = finished
    client.force_login(_staff(django_user_model, "payments", "studies.view_identity"))
    hit = client.get("/admin/studies/participant/", {"prolific_pid__startswith": PID[:-1]})
    miss = client.get("/admin/studies/participant/", {"prolific_pid__startswith": "f"})
    assert hit.status_code == miss.status_code == 200
    row = f"/admin/studies/participant/{participant.pk}/change/"
    assert row in hit.content.decode() and row not in miss.content.decode()
    assert row in client.get("/admin/studies/participant/", {"q": PID}).content.decode()


def test_a_search_by_pid_finds_nothing_without_the_permission(client, django_user_model, finished):
    study, participant = finished
    client.force_login(_staff(django_user_model, "assistant"))
    row = f"/admin/studies/participant/{participant.pk}/change/"
    assert row not in client.get("/admin/studies/participant/", {"q": PID}).content.decode()
    assert row in client.get("/admin/studies/participant/", {"q": participant.pseudonym}).content.decode()
