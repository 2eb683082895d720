"""Webhook deliveries: verified, stored before they are acknowledged, applied once."""

from __future__ import annotations

from prolific.models import ProlificEvent, ProlificFlag
from prolific.services import prolific_hooks_subscribe, prolific_study_create, prolific_sync
from studies.models import Participant
from tests.factories import small_study
from tests.prolific.helpers import WEBHOOK, arrive, deliver, prolific_study


def _ready(standin):
    study = prolific_study()
    found = prolific_study_create(study=study)
    prolific_hooks_subscribe(target_url="https://parity.example.org/prolific/hooks/")
    return study, found


def test_a_forged_altered_or_unsigned_delivery_is_refused_and_not_stored(implicature, standin, client):
    study, found = _ready(standin)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    payload = standin.submission_set(submission, "RETURNED")
    assert deliver(client, standin, payload, secret="not the secret").status_code == 403
    body, headers = standin.delivery(payload)
    altered = body.replace(b"RETURNED", b"APPROVED")
    assert client.post(WEBHOOK, data=altered, content_type="application/json", headers=headers).status_code == 403
    assert client.post(WEBHOOK, data=body, content_type="application/json").status_code == 403
    assert client.get(WEBHOOK).status_code == 405
    assert not ProlificEvent.objects.exists()
    assert bot.participant.status == Participant.Status.ACTIVE


def test_a_replayed_delivery_is_acknowledged_and_applied_once(implicature, standin, client):
    study, found = _ready(standin)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    returned = standin.submission_set(submission, "RETURNED")
    first = deliver(client, standin, returned)
    assert first.status_code == 200 and first.json() == {"event_id": returned["event_id"], "duplicate": False}
    assert bot.participant.status == Participant.Status.RETURNED
    # the same person is let back in by a researcher's mistake; a replay must not return them again
    Participant.objects.filter(pk=bot.participant.pk).update(status=Participant.Status.ACTIVE)
    second = deliver(client, standin, returned)
    assert second.status_code == 200 and second.json()["duplicate"] is True
    assert bot.participant.status == Participant.Status.ACTIVE
    assert ProlificEvent.objects.count() == 1


def test_a_time_out_on_prolific_frees_the_slot_for_the_next_person_at_once(implicature, standin, client):
    study = small_study("one place", unit_size=2, units=1, per_unit=1, attention_checks=0)
    found = prolific_study_create(study=study)
    prolific_hooks_subscribe(target_url="https://parity.example.org/prolific/hooks/")
    first, submission = arrive(standin, study, found.prolific_id, 1)
    first.start_items()
    second, _ = arrive(standin, study, found.prolific_id, 2)
    second.enter()
    assert not Participant.objects.filter(prolific_pid=second.pid).exclude(unit=None).exists()  # full
    assert deliver(client, standin, standin.submission_set(submission, "TIMED-OUT")).status_code == 200
    assert first.participant.status == Participant.Status.TIMED_OUT
    second.start_items()
    assert second.participant.status == Participant.Status.ACTIVE and second.participant.unit is not None


def test_a_delivery_for_an_unknown_study_is_stored_and_flagged(implicature, standin, client):
    _ready(standin)
    payload = {
        "event_id": "e-1",
        "event_type": "submission.status.change",
        "resource_id": "s-1",
        "status": "RETURNED",
        "study_id": "not-ours",
        "participant_id": "p",
    }
    assert deliver(client, standin, payload).status_code == 200
    assert ProlificEvent.objects.get().processed_at is not None
    assert ProlificFlag.objects.get().kind == ProlificFlag.Kind.UNKNOWN_STUDY


def test_a_delivery_that_cannot_be_applied_is_kept_and_applied_by_the_next_sync(implicature, standin, client):
    study, found = _ready(standin)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    payload = standin.submission_set(submission, "RETURNED")
    incomplete = {key: value for key, value in payload.items() if key != "status"}
    assert deliver(client, standin, incomplete).status_code == 200  # stored: acknowledged
    event = ProlificEvent.objects.get()
    assert event.processed_at is None and "KeyError" in event.error
    assert bot.participant.status == Participant.Status.ACTIVE
    prolific_sync(prolific_study=found)  # the pull sees the return itself
    assert bot.participant.status == Participant.Status.RETURNED


def test_a_study_status_change_is_recorded(implicature, standin, client):
    _, found = _ready(standin)
    payload = {
        "event_id": "e-2",
        "event_type": "study.status.change",
        "resource_id": found.prolific_id,
        "study_id": found.prolific_id,
        "status": "PAUSED",
    }
    assert deliver(client, standin, payload).status_code == 200
    found.refresh_from_db()
    assert found.status == "PAUSED"


def test_a_secret_set_in_the_environment_is_accepted(implicature, standin, client, settings):
    settings.PROLIFIC_WEBHOOK_SECRET = "from-the-environment"
    payload = {"event_id": "e-3", "event_type": "study.status.change", "study_id": "x", "status": "PAUSED"}
    assert deliver(client, standin, payload, secret="from-the-environment").status_code == 200
