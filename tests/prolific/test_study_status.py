"""Parity's copy of a study's status follows Prolific's: read back on every sync and after a transition
whose answer was lost, and moved by webhook deliveries only when they are newer than what Parity has."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone

from prolific.client import ProlificError
from prolific.models import ProlificEvent, ProlificStudy
from prolific.services import prolific_places_raise, prolific_study_create, prolific_study_transition, prolific_sync
from prolific.subscriptions import prolific_hooks_subscribe
from studies.models import StudyEvent
from tests.factories import small_study
from tests.prolific.helpers import arrive, deliver, prolific_study

Status = ProlificStudy.Status


def _published(standin, **fields):
    study = prolific_study(**fields)
    found = prolific_study_create(study=study)
    prolific_study_transition(prolific_study=found, action="publish")
    return study, found


def test_a_publish_that_timed_out_after_prolific_acted_is_recorded_as_published(implicature, standin):
    found = prolific_study_create(study=prolific_study())
    standin.fail("POST", "/transition/", "timeout", after=True)
    prolific_study_transition(prolific_study=found, action="publish")
    found.refresh_from_db()
    assert found.status == Status.ACTIVE == standin.studies[found.prolific_id]["status"]
    assert found.status_at is not None
    prolific_study_transition(prolific_study=found, action="pause")  # not stuck: the next move is taken
    assert standin.studies[found.prolific_id]["status"] == "PAUSED"


def test_a_publish_that_timed_out_before_prolific_acted_is_still_an_error(implicature, standin):
    found = prolific_study_create(study=prolific_study())
    standin.fail("POST", "/transition/", "timeout")
    with pytest.raises(ProlificError, match="did not answer POST"):
        prolific_study_transition(prolific_study=found, action="publish")
    found.refresh_from_db()
    assert found.status == Status.UNPUBLISHED == standin.studies[found.prolific_id]["status"]


def test_every_documented_status_is_one_parity_knows():
    # https://docs.prolific.com/api-reference/studies/the-study-object
    documented = {"UNPUBLISHED", "PUBLISHING", "ACTIVE", "SCHEDULED", "PAUSED", "AWAITING REVIEW", "COMPLETED"}
    assert set(Status.values) == documented


def test_the_sync_reads_the_study_back_through_publishing_and_awaiting_review(implicature, standin):
    standin.publish_async = True
    study, found = _published(standin)
    found.refresh_from_db()
    assert found.status == Status.PUBLISHING  # what Prolific answered
    standin.study_settle(found.prolific_id)
    prolific_sync(prolific_study=found)
    found.refresh_from_db()
    assert found.status == Status.ACTIVE
    # every place taken and sent in: Prolific moves the study to awaiting review by itself
    places = standin.studies[found.prolific_id]["total_available_places"]
    for n in range(1, places + 1):
        bot, submission = arrive(standin, study, found.prolific_id, n)
        bot.complete()
        standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    assert standin.study_settle(found.prolific_id)["status"] == "AWAITING REVIEW"
    before = timezone.now()
    prolific_sync(prolific_study=found)
    found.refresh_from_db()
    assert found.status == Status.AWAITING_REVIEW and found.status_at >= before
    trail = StudyEvent.objects.filter(study=study, kind=StudyEvent.Kind.PROLIFIC).order_by("pk").last()
    assert trail.summary == (
        f"Read back from Prolific: stopped, awaiting review, {places} places (Parity had published (recruiting), "
        f"{places} places)"
    )


def test_places_raised_on_prolific_whose_answer_was_lost_are_read_back(implicature, standin):
    study, found = _published(standin)
    standin.fail("PATCH", "/studies/", "timeout", after=True)
    with pytest.raises(ProlificError):
        prolific_places_raise(prolific_study=found, places=found.places + 3)
    found.refresh_from_db()
    before = found.places
    prolific_sync(prolific_study=found)
    found.refresh_from_db()
    assert found.places == before + 3 == standin.studies[found.prolific_id]["total_available_places"]


def test_a_delivery_sent_before_the_last_one_applied_is_recorded_and_moves_nothing(implicature, standin, client):
    study, found = _published(standin)
    prolific_hooks_subscribe(target_url="https://parity.example.org/prolific/hooks/")
    now = time.time()
    prolific_study_transition(prolific_study=found, action="pause")
    paused = {"resource_id": found.prolific_id, "event_type": "study.status.change", "metadata": {}, "status": "PAUSED"}
    prolific_study_transition(prolific_study=found, action="start")
    active = {**paused, "status": "ACTIVE"}
    # Prolific sent PAUSED, then ACTIVE; the PAUSED delivery failed and its retry arrives last
    assert deliver(client, standin, active, sent=now + 60).status_code == 200
    assert deliver(client, standin, paused, sent=now + 30).status_code == 200
    found.refresh_from_db()
    assert found.status == Status.ACTIVE
    late = ProlificEvent.objects.get(payload__status="PAUSED")
    assert late.superseded and late.processed_at is not None  # recorded, applied as "too old"
    assert not ProlificEvent.objects.get(payload__status="ACTIVE").superseded


def test_a_delivery_older_than_the_last_read_moves_nothing(implicature, standin, client):
    study, found = _published(standin)
    prolific_hooks_subscribe(target_url="https://parity.example.org/prolific/hooks/")
    sent = time.time() - 30  # sent half a minute ago, delivered after the sync read ACTIVE
    prolific_sync(prolific_study=found)
    paused = {"resource_id": found.prolific_id, "event_type": "study.status.change", "metadata": {}, "status": "PAUSED"}
    assert deliver(client, standin, paused, sent=sent).status_code == 200
    found.refresh_from_db()
    assert found.status == Status.ACTIVE
    newer = {**paused, "status": "AWAITING REVIEW"}
    assert deliver(client, standin, newer, sent=time.time() + 2).status_code == 200
    found.refresh_from_db()
    assert found.status == Status.AWAITING_REVIEW


def test_a_study_prolific_moved_to_awaiting_review_when_full_is_raised_not_left_waiting(implicature, standin, client):
    from prolific.recruitment import prolific_recruit_configure, recruitment_step

    # units holding 10 people each: Parity's capacity is not what limits the 4 places
    study = small_study("full", unit_size=3, units=2, per_unit=10, attention_checks=2, exclude_at=2)
    found = prolific_study_create(study=study, places=4)
    prolific_study_transition(prolific_study=found, action="publish")
    prolific_recruit_configure(prolific_study=found, kind="per_unit", value=3, max_spend_pence=10**6, step=2)
    prolific_hooks_subscribe(target_url="https://parity.example.org/prolific/hooks/")
    found.refresh_from_db()
    for n in range(1, found.places + 1):
        bot, submission = arrive(standin, study, found.prolific_id, n)
        bot.complete()
        standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    moved = standin.study_settle(found.prolific_id)
    assert deliver(client, standin, moved).status_code == 200  # Prolific says so on the webhook
    found.refresh_from_db()
    assert found.status == Status.AWAITING_REVIEW
    point = recruitment_step(found)
    assert (point.action, point.places) == ("raise", found.places + 2)
    assert standin.studies[found.prolific_id]["status"] == "ACTIVE"  # recruiting again
    # a study Parity stopped is not reopened
    prolific_study_transition(prolific_study=found, action="stop")
    assert recruitment_step(found).action == "wait"


def test_the_monitor_shows_prolific_s_status_beside_parity_s_and_when_it_was_read(implicature, standin, admin_client):
    from results.pipeline import study_monitor
    from studies.models import Study
    from studies.setup.studies import study_set_status

    study, found = _published(standin, status=Study.Status.LIVE)
    prolific_sync(prolific_study=found)
    study_set_status(study=study, status=Study.Status.PAUSED)
    found.refresh_from_db()
    shown = study_monitor(study).prolific
    assert shown is not None
    assert (shown.parity_status, shown.status, shown.status_at) == ("Paused", "ACTIVE", found.status_at)
    assert shown.follow.startswith("Paused here, still recruiting on Prolific (4 of 4 places open")
    page = admin_client.get(f"/studies/{study.pk}/monitor/").content.decode()
    said = (
        f'Here: paused. On Prolific: <span data-status="ACTIVE">published (recruiting)</span>, 4 places, as '
        f"Prolific gave it at {found.status_at:%Y-%m-%d %H:%M} UTC; submissions pulled at "
        f"{found.synced_at:%Y-%m-%d %H:%M} UTC."
    )
    assert said in page and 'id="monitor-prolific-follow"' in page
