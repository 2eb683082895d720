"""The smaller agreements with Prolific: the create-subscription answer in its documented list shape,
`prolific hooks` that can be run again without duplicating anything, a budget message in the
workspace's currency, and a rejection message padded without repeating itself."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from prolific import review
from prolific.client import ProlificClient
from prolific.models import ProlificHookSecret, ProlificStudy
from prolific.recruitment import recruitment_step
from prolific.services import ProlificStudyError, prolific_study_create
from prolific.subscriptions import prolific_hooks_subscribe
from studies.models import Participant
from tests.prolific.helpers import deliver, prolific_study
from tests.prolific.test_recruitment import fill, published

TARGET = "https://parity.example.org/prolific/hooks/"


def test_the_create_subscription_answer_s_list_shape_is_read(implicature, standin):
    """https://docs.prolific.com/api-reference/webhooks/create-subscription answers {"results": [...]}
    (the stand-in answers so): each subscription is found in it and confirmed."""
    prolific_hooks_subscribe(target_url=TARGET)
    assert len(standin.subscriptions) == 2 and all(sub["is_enabled"] for sub in standin.subscriptions)


def test_hooks_run_again_keeps_the_secret_and_the_subscriptions(implicature, standin):
    first = prolific_hooks_subscribe(target_url=TARGET)
    subscriptions = [dict(sub) for sub in standin.subscriptions]
    again = prolific_hooks_subscribe(target_url=TARGET)
    assert standin.subscriptions == subscriptions and len(standin.secrets) == 1  # nothing made twice
    assert ProlificHookSecret.objects.get() == first.secret == again.secret
    assert (again.secret_made, again.subscribed, sorted(again.reused)) == (
        False,
        [],
        ["study.status.change", "submission.status.change"],
    )
    out = StringIO()
    call_command("prolific", "hooks", TARGET, stdout=out)
    assert out.getvalue().strip() == (
        f"Kept the enabled subscriptions of {TARGET} to submission.status.change and study.status.change; "
        "the stored signing secret is kept."
    )


def test_a_disabled_subscription_of_the_url_is_replaced_not_duplicated(implicature, standin):
    prolific_hooks_subscribe(target_url=TARGET)
    stale = next(sub for sub in standin.subscriptions if sub["event_type"] == "study.status.change")
    stale["is_enabled"] = False  # Prolific disabled it after failed deliveries
    result = prolific_hooks_subscribe(target_url=TARGET)
    assert (result.subscribed, result.replaced) == (["study.status.change"], 1)
    assert sorted(sub["event_type"] for sub in standin.subscriptions) == [
        "study.status.change",
        "submission.status.change",
    ]
    assert all(sub["is_enabled"] for sub in standin.subscriptions) and stale["id"] not in {
        sub["id"] for sub in standin.subscriptions
    }


def test_a_new_secret_retires_the_old_one_after_a_grace_period(implicature, standin, client):
    old = prolific_hooks_subscribe(target_url=TARGET).secret
    new = prolific_hooks_subscribe(target_url=TARGET, new_secret=True).secret
    old.refresh_from_db()
    assert new.retired_at is None and old.retired_at > timezone.now() + timedelta(hours=23)
    payload = {"event_id": "e-1", "event_type": "study.status.change", "study_id": "x", "status": "PAUSED"}
    assert deliver(client, standin, payload, secret=old.secret).status_code == 200  # within the grace
    ProlificHookSecret.objects.filter(pk=old.pk).update(retired_at=timezone.now() - timedelta(seconds=1))
    late = {**payload, "event_id": "e-2"}
    assert deliver(client, standin, late, secret=old.secret).status_code == 403
    assert deliver(client, standin, late, secret=new.secret).status_code == 200


def test_the_budget_message_is_in_the_workspace_s_currency(implicature, standin):
    standin.currency = "USD"
    found = published("thrifty in dollars", places=4, value=1, step=4, max_spend_pence=2700)
    assert found.currency == "USD"
    arrived = fill(standin, found, 0)
    recruitment_step(found)
    fill(standin, found, arrived)
    point = recruitment_step(found)
    assert point.action == "stop"
    assert point.reason.endswith("6 places, $27.00 of $27.00") and "£" not in point.reason
    assert "£" not in found.flags.get().detail


def test_a_padded_rejection_message_says_each_sentence_once(monkeypatch, implicature):
    study = prolific_study()
    participant = Participant(study=study, prolific_pid="a" * 24, attention_failures=2)
    monkeypatch.setattr(review, "MESSAGE_MIN", 300)  # longer than the message: it is padded
    message = review.rejection_message(participant)
    assert len(message) >= 300
    sentences = re.findall(r"[^.]+\.", message)
    assert len(sentences) == len(set(sentences)) and message.count("Thank you for taking part.") == 1
    monkeypatch.setattr(review, "MESSAGE_MIN", 100)
    assert "Thank you" not in review.rejection_message(participant)  # long enough as it is


def test_prolific_client_reads_the_subscriptions_listed(implicature, standin):
    prolific_study_create(study=prolific_study())
    prolific_hooks_subscribe(target_url=TARGET)
    listed = ProlificClient().hook_subscriptions("workspace-1")
    assert sorted(row["event_type"] for row in listed) == ["study.status.change", "submission.status.change"]
    assert all("hook_secret" not in row for row in listed)


# -- the project a study is created in ---------------------------------------------------------------


def test_a_study_is_created_in_the_workspace_s_project(implicature, standin):
    found = prolific_study_create(study=prolific_study())
    assert standin.studies[found.prolific_id]["project"] == "project-1"  # the workspace's only one


def test_a_project_of_another_workspace_is_refused_before_anything_is_created(implicature, standin, settings):
    standin.projects["elsewhere"] = {"id": "elsewhere", "title": "Other lab", "workspace": "workspace-2"}
    settings.PROLIFIC_PROJECT_ID = "elsewhere"
    study = prolific_study()
    with pytest.raises(ProlificStudyError) as refused:
        prolific_study_create(study=study)
    assert str(refused.value) == (
        "PROLIFIC_PROJECT_ID elsewhere is a project of workspace workspace-2, not of PROLIFIC_WORKSPACE_ID "
        "workspace-1: a study created there would send its webhooks and spend its currency elsewhere; "
        "nothing was created"
    )
    assert not standin.studies and not ProlificStudy.objects.exists()
    settings.PROLIFIC_PROJECT_ID = "project-1"
    found = prolific_study_create(study=study)
    assert standin.studies[found.prolific_id]["project"] == "project-1"


def test_a_workspace_of_several_projects_asks_which(implicature, standin):
    standin.projects["second"] = {"id": "second", "title": "Pilots", "workspace": "workspace-1"}
    with pytest.raises(ProlificStudyError, match=r"has 2 projects \(Parity \(project-1\), Pilots \(second\)\)"):
        prolific_study_create(study=prolific_study())
    assert not standin.studies
