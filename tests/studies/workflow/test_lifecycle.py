"""Draft → live → paused → closed: who may move a study, and what each status means for arrivals."""

from __future__ import annotations

import pytest
from django.test import Client

from studies.errors import StudyError
from studies.models import Participant, Study
from studies.participants.entry import Refusal, participant_enter
from studies.setup.studies import study_set_status
from tests import personas
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(implicature):
    return small_study(
        "lifecycle", status=Study.Status.DRAFT, units=1, unit_size=3, per_unit=3, attention_checks=0, exclude_at=0
    )


def test_a_study_moves_draft_live_paused_live_closed_and_no_further(draft):
    for status in ("live", "paused", "live", "closed"):
        study_set_status(study=draft, status=status)
        assert Study.objects.get(pk=draft.pk).status == status
    with pytest.raises(StudyError, match="A closed study cannot become live"):
        study_set_status(study=draft, status="live")


def test_a_draft_cannot_be_paused_and_an_imported_study_never_moves(draft):
    with pytest.raises(StudyError, match="A draft study cannot become paused"):
        study_set_status(study=draft, status="paused")
    Study.objects.filter(pk=draft.pk).update(is_imported=True, status="closed")
    with pytest.raises(StudyError, match="imported study"):
        study_set_status(study=draft, status="live")
    assert Study.objects.get(pk=draft.pk).status == "closed"


def test_a_paused_study_lets_those_working_finish_and_asks_newcomers_to_come_back(draft):
    study_set_status(study=draft, status="live")
    working = Bot(draft, pid(1)).start_items()
    study_set_status(study=draft, status="paused")
    assert participant_enter(study=draft, pid=pid(2)).refusal is Refusal.PAUSED
    page = Bot(draft, pid(3)).enter().content.decode()
    assert "This study is paused" in page and "come back later, or return it on Prolific" in page
    working.complete()
    assert working.participant.status == Participant.Status.COMPLETED
    assert set(Participant.objects.filter(study=draft).values_list("prolific_pid", flat=True)) == {pid(1)}


def test_a_closed_study_lets_nobody_new_in(draft):
    study_set_status(study=draft, status="live")
    working = Bot(draft, pid(1)).start_items()
    study_set_status(study=draft, status="closed")
    assert participant_enter(study=draft, pid=pid(2)).refusal is Refusal.NOT_LIVE
    assert "This study is not open" in Bot(draft, pid(3)).enter().content.decode()
    working.complete()
    assert working.participant.status == Participant.Status.COMPLETED


def test_the_owner_and_a_collaborator_move_the_study_others_cannot(draft):
    people = personas.personas_for(draft)
    url = f"/studies/{draft.pk}/status/"
    assert Client().post(url, {"status": "live"}).status_code == 302  # to the login
    assert Study.objects.get(pk=draft.pk).status == "draft"
    assert personas.signed_in(people.outsider).post(url, {"status": "live"}).status_code == 404
    assert personas.signed_in(people.viewer).post(url, {"status": "live"}).status_code == 403
    assert personas.signed_in(personas.member()).post(url, {"status": "live"}).status_code == 403
    assert Study.objects.get(pk=draft.pk).status == "draft"
    owner = personas.signed_in(people.owner)
    assert owner.get(url).status_code == 405
    assert owner.post(url, {"status": "live"}).status_code == 302
    assert Study.objects.get(pk=draft.pk).status == "live"
    collaborator = personas.signed_in(people.collaborator)
    page = collaborator.post(url, {"status": "paused"}, follow=True)
    assert Study.objects.get(pk=draft.pk).status == "paused"
    assert "The study is now paused." in page.content.decode()
    page = collaborator.post(url, {"status": "draft"}, follow=True)
    assert "A paused study cannot become draft." in page.content.decode()
    assert Study.objects.get(pk=draft.pk).status == "paused"


def test_the_study_page_is_for_its_owner_and_collaborators(draft):
    people = personas.personas_for(draft)
    url = f"/studies/{draft.pk}/"
    assert personas.signed_in(people.outsider).get(url).status_code == 404
    assert personas.signed_in(personas.member()).get(url).status_code == 403
    for person in (people.owner, people.collaborator, people.viewer, people.superuser):
        assert personas.signed_in(person).get(url).status_code == 200
    viewer_page = personas.signed_in(people.viewer).get(url).content.decode()
    assert 'id="move-live"' not in viewer_page  # a viewer sees no button it could not use
    assert 'id="move-live"' in personas.signed_in(people.owner).get(url).content.decode()


def test_the_prolific_settings_are_shown_with_copy_buttons(draft, researcher_client, researcher):
    Study.objects.filter(pk=draft.pk).update(owner=researcher, no_consent_code="NOCONSENT")
    page = researcher_client.get(f"/studies/{draft.pk}/").content.decode()
    # a draft's Prolific study may be set up before the launch, not published
    assert 'id="prolific-settings"' in page and "publish it there only once it is live here" in page
    researcher_client.post(f"/studies/{draft.pk}/status/", {"status": "live"})
    page = researcher_client.get(f"/studies/{draft.pk}/").content.decode()
    draft.refresh_from_db()
    assert f"{draft.participant_path()}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&amp;STUDY_ID={{{{%STUDY_ID%}}}}" in page
    assert f"https://app.prolific.com/submissions/complete?cc={draft.completion_code}" in page
    assert "NOCONSENT" in page and 'data-copy="#study-url"' in page and 'data-copy="#completion-code"' in page
