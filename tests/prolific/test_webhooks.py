"""Webhook deliveries: verified, stored before they are acknowledged, applied once."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest

from prolific.hooks import sign
from prolific.models import ProlificEvent, ProlificFlag, ProlificSubmission
from prolific.services import prolific_study_create, prolific_sync
from prolific.subscriptions import prolific_hooks_subscribe
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
    event_id = standin.event_ids[json.dumps(returned).encode()]
    assert first.status_code == 200 and first.json() == {"event_id": event_id, "duplicate": False}
    assert bot.participant.status == Participant.Status.RETURNED
    # the same person is let back in by a researcher's mistake; a replay must not return them again
    Participant.objects.filter(pk=bot.participant.pk).update(status=Participant.Status.ACTIVE)
    second = deliver(client, standin, returned)  # Prolific's retry: the same X-Event-ID, signed anew
    assert second.status_code == 200 and second.json()["duplicate"] is True
    assert bot.participant.status == Participant.Status.ACTIVE
    assert ProlificEvent.objects.count() == 1


def test_a_captured_delivery_sent_again_under_another_event_id_is_not_applied_again(implicature, standin, client):
    """The event id travels in a header the signature does not cover: what is signed decides."""
    study, found = _ready(standin)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    body, headers = standin.delivery(standin.submission_set(submission, "RETURNED"))
    assert client.post(WEBHOOK, data=body, content_type="application/json", headers=headers).status_code == 200
    assert bot.participant.status == Participant.Status.RETURNED
    Participant.objects.filter(pk=bot.participant.pk).update(status=Participant.Status.ACTIVE)
    for made_up in ({**headers, "X-Event-ID": "made-up-1"}, {k: v for k, v in headers.items() if k != "X-Event-ID"}):
        again = client.post(WEBHOOK, data=body, content_type="application/json", headers=made_up)
        assert again.status_code == 200 and again.json()["duplicate"] is True
    assert bot.participant.status == Participant.Status.ACTIVE
    assert ProlificEvent.objects.count() == 1


SIGNED_IN_2023 = datetime(2023, 6, 1, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    "when, reason",
    [
        ("in 2023", "s ago, outside the 300-second window"),
        ("301 s ago", "s ago, outside the 300-second window"),
        ("an hour ahead", "ahead of this server's clock, outside the 300-second window"),
    ],
)
def test_a_delivery_signed_outside_the_window_is_refused_and_not_stored(implicature, standin, client, when, reason):
    signed_at = {"in 2023": SIGNED_IN_2023, "301 s ago": time.time() - 301, "an hour ahead": time.time() + 3600}[when]
    study, found = _ready(standin)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    refused = deliver(client, standin, standin.submission_set(submission, "RETURNED"), timestamp=signed_at)
    assert refused.status_code == 403 and reason in refused.json()["detail"]
    assert not ProlificEvent.objects.exists()
    assert bot.participant.status == Participant.Status.ACTIVE


def test_the_window_is_a_setting(implicature, standin, client, settings):
    _, found = _ready(standin)
    paused = {"resource_id": found.prolific_id, "event_type": "study.status.change", "metadata": {}, "status": "PAUSED"}
    settings.PROLIFIC_WEBHOOK_WINDOW_SECONDS = 30
    refused = deliver(client, standin, paused, timestamp=time.time() - 60)
    assert refused.status_code == 403 and "outside the 30-second window" in refused.json()["detail"]
    settings.PROLIFIC_WEBHOOK_WINDOW_SECONDS = 120
    assert deliver(client, standin, paused, timestamp=time.time() - 60).status_code == 200
    found.refresh_from_db()
    assert found.status == "PAUSED"


@pytest.mark.parametrize(
    "header, value",
    [
        ("X-Prolific-Request-Signature", "é" * 44),
        ("X-Prolific-Request-Signature", "Zm9v\u2028YmFy"),
        ("X-Prolific-Request-Timestamp", "١٧٠٠٠٠٠٠٠٠"),
    ],
    ids=["accented signature", "line separator in the signature", "other digits in the timestamp"],
)
def test_a_header_outside_ascii_is_refused_with_403(implicature, standin, client, header, value):
    _, found = _ready(standin)
    body, headers = standin.delivery({"resource_id": found.prolific_id, "event_type": "study.status.change"})
    refused = client.post(WEBHOOK, data=body, content_type="application/json", headers={**headers, header: value})
    assert refused.status_code == 403 and "signature is missing or wrong" in refused.json()["detail"]
    assert not ProlificEvent.objects.exists()


def test_a_timestamp_that_is_no_unix_time_is_refused_even_when_signed(implicature, standin, client):
    _, found = _ready(standin)
    body = json.dumps({"resource_id": found.prolific_id, "event_type": "study.status.change"}).encode()
    stamp = "yesterday"
    signature = sign(standin.secrets[-1], stamp, body)
    headers = {"X-Prolific-Request-Signature": signature, "X-Prolific-Request-Timestamp": stamp, "X-Event-ID": "e"}
    refused = client.post(WEBHOOK, data=body, content_type="application/json", headers=headers)
    assert refused.status_code == 403 and "is not a UNIX time" in refused.json()["detail"]
    assert not ProlificEvent.objects.exists()


def test_deliveries_shaped_as_prolific_documents_them_are_applied(implicature, standin, client):
    """Prolific's bodies name neither the event (it is in X-Event-ID) nor a submission's study."""
    study, found = _ready(standin)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    returned = standin.submission_set(submission, "RETURNED")
    assert set(returned) == {"resource_id", "event_type", "participant_id", "status"}
    answer = deliver(client, standin, returned, event_id="6394cee483e14a167638b36c")
    assert answer.status_code == 200 and answer.json() == {"event_id": "6394cee483e14a167638b36c", "duplicate": False}
    assert bot.participant.status == Participant.Status.RETURNED
    assert ProlificSubmission.objects.get().submission_id == submission
    paused = {"resource_id": found.prolific_id, "event_type": "study.status.change", "metadata": {}, "status": "PAUSED"}
    assert deliver(client, standin, paused).status_code == 200
    found.refresh_from_db()
    assert found.status == "PAUSED"
    assert not ProlificFlag.objects.exists()
    assert ProlificEvent.objects.filter(processed_at__isnull=False, error="").count() == 2


def test_a_submission_parity_does_not_know_is_acknowledged_without_a_flag(implicature, standin, client):
    """Someone starting on Prolific before the study link has loaded, or in another study of the
    workspace: nothing to change, nothing to flag (the sync records the study's submissions)."""
    study, found = _ready(standin)
    bot, _ = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    elsewhere = standin.submission_add("another-study-of-the-workspace", bot.pid)
    assert deliver(client, standin, standin.submission_set(elsewhere, "RETURNED")).status_code == 200
    assert bot.participant.status == Participant.Status.ACTIVE  # the same person, another study
    assert ProlificEvent.objects.get().processed_at is not None
    assert not ProlificFlag.objects.exists() and not ProlificSubmission.objects.exists()


def test_the_same_change_sent_as_a_new_event_is_applied_again(implicature, standin, client):
    """Paused, resumed, paused again: the third body is the first's, signed at another time."""
    _, found = _ready(standin)
    status = {"resource_id": found.prolific_id, "event_type": "study.status.change", "metadata": {}}
    for when, event_id, value in ((-20, "e-1", "PAUSED"), (-10, "e-2", "ACTIVE"), (0, "e-3", "PAUSED")):
        answer = deliver(client, standin, {**status, "status": value}, timestamp=time.time() + when, event_id=event_id)
        assert answer.json()["duplicate"] is False
    found.refresh_from_db()
    assert found.status == "PAUSED" and ProlificEvent.objects.count() == 3


def test_a_delivery_without_any_event_id_is_known_by_what_is_signed(implicature, standin, client):
    _, found = _ready(standin)
    paused = {"resource_id": found.prolific_id, "event_type": "study.status.change", "status": "PAUSED"}
    body, headers = standin.delivery(paused)
    del headers["X-Event-ID"]
    first = client.post(WEBHOOK, data=body, content_type="application/json", headers=headers)
    again = client.post(WEBHOOK, data=body, content_type="application/json", headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.json()["event_id"].startswith("sha256:") and again.json()["duplicate"] is True
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
    assert ProlificEvent.objects.get().event_id == "e-2"  # an id in the signed body comes first


def test_a_secret_set_in_the_environment_is_accepted(implicature, standin, client, settings):
    settings.PROLIFIC_WEBHOOK_SECRET = "from-the-environment"
    standin.subscribed_elsewhere("study.status.change")  # with that secret, outside Parity
    payload = {"event_id": "e-3", "event_type": "study.status.change", "study_id": "x", "status": "PAUSED"}
    assert deliver(client, standin, payload, secret="from-the-environment").status_code == 200
