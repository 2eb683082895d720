"""Each call shaped as Prolific documents it, against the strict stand-in: webhooks confirmed, every
page of submissions read, bulk approvals in the recommended body and size, `filters` sent, and calls
tried again with exponential back-off where that is safe."""

from __future__ import annotations

import pytest

from prolific import client as prolific_client
from prolific.bonuses import prolific_bonuses_pay
from prolific.client import ProlificClient, ProlificError
from prolific.models import BonusBatch, ProlificSubmission
from prolific.review import prolific_review
from prolific.services import prolific_study_configure, prolific_study_create, prolific_sync
from prolific.subscriptions import prolific_hooks_subscribe
from tests.factories import pid
from tests.prolific.helpers import arrive, deliver, prolific_study

TARGET = "https://parity.example.org/prolific/hooks/"


def _submitted(standin, study, found, n: int):
    bot, submission = arrive(standin, study, found.prolific_id, n)
    bot.complete()
    standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    return bot, submission


# -- 1. webhooks: subscribed, then confirmed with the X-Hook-Secret ----------------------------------


def test_each_subscription_is_confirmed_with_its_hook_secret_and_then_delivers(implicature, standin, client):
    study = prolific_study()
    found = prolific_study_create(study=study)
    prolific_hooks_subscribe(target_url=TARGET)
    assert sorted(sub["event_type"] for sub in standin.subscriptions) == [
        "study.status.change",
        "submission.status.change",
    ]
    assert all(sub["is_enabled"] for sub in standin.subscriptions)  # confirmed: enabled
    posted = [(method, path) for method, path in standin.calls if method == "POST"]
    hooks = [path for method, path in posted if path.startswith("/api/v1/hooks/subscriptions/")]
    each = ("/api/v1/hooks/subscriptions/{}", "/api/v1/hooks/subscriptions/{}/")  # made, then confirmed
    assert hooks == [path.format(sub["id"] if "{}/" in path else "") for sub in standin.subscriptions for path in each]
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    assert deliver(client, standin, standin.submission_set(submission, "RETURNED")).status_code == 200


def test_a_subscription_left_unconfirmed_delivers_nothing(standin):
    """The stand-in is as strict as Prolific: created but not confirmed, a subscription is disabled."""
    subscription, hook_secret = ProlificClient().hook_subscribe(
        workspace_id="workspace-1", event_type="study.status.change", target_url=TARGET
    )
    assert subscription["is_enabled"] is False and hook_secret
    standin.secrets.append("a secret")
    with pytest.raises(AssertionError, match="no enabled subscription"):
        standin.delivery({"resource_id": "s", "event_type": "study.status.change", "status": "PAUSED"})
    with pytest.raises(ProlificError, match="HTTP 400"):
        ProlificClient().hook_confirm(subscription["id"], "not its secret")


def test_an_answer_without_a_hook_secret_is_an_error_that_says_so(implicature, standin, monkeypatch):
    monkeypatch.setattr(ProlificClient, "hook_subscribe", lambda self, **fields: ({"id": "s-1"}, ""))
    with pytest.raises(ProlificError, match="carries no X-Hook-Secret.*stays disabled"):
        prolific_hooks_subscribe(target_url=TARGET)


# -- 2. every page of submissions ----------------------------------------------------------------------


def test_the_pull_reads_every_page_of_submissions(implicature, standin):
    study = prolific_study()
    found = prolific_study_create(study=study)
    standin.page_cap = 2  # pages of two: five submissions take three pages
    for n in range(1, 6):
        standin.submission_add(found.prolific_id, pid(n), status="RETURNED")
    assert prolific_sync(prolific_study=found).submissions == 5
    assert ProlificSubmission.objects.count() == 5
    calls = zip(standin.calls, standin.queries, strict=True)
    pulls = [query for (method, path), query in calls if "submissions" in path]
    assert [query["offset"] for query in pulls] == ["0", "2", "4"]
    assert {query["limit"] for query in pulls} == {str(prolific_client.PAGE_SIZE)}


@pytest.mark.parametrize("counted", [True, False], ids=["meta.count", "next link"])
def test_a_page_that_adds_nothing_is_a_truncated_pull_that_names_the_study_and_records_nothing(
    implicature, standin, counted
):
    """Rows promised (by `meta.count`, or by a `next` link without a count) and a page that adds none:
    the pull stops with an error naming the study, rather than looping or taking two rows for five."""
    study = prolific_study()
    found = prolific_study_create(study=study)
    standin.page_cap = 2
    for n in range(1, 6):
        standin.submission_add(found.prolific_id, pid(n), status="RETURNED")
    standin.ignore_offset = True
    standin.count_pages = counted
    with pytest.raises(ProlificError, match=rf"'{study.name}' was not synced: .* stopped adding rows after 2 "):
        prolific_sync(prolific_study=found)
    found.refresh_from_db()
    assert not ProlificSubmission.objects.exists() and found.synced_at is None
    standin.ignore_offset = False  # Prolific answers as documented again: the next sync reads all five
    assert prolific_sync(prolific_study=found).submissions == 5


def test_a_completion_on_a_later_page_is_not_flagged_and_is_reviewed(implicature, standin):
    study = prolific_study()
    found = prolific_study_create(study=study)
    standin.page_cap = 1
    submissions = [_submitted(standin, study, found, n)[1] for n in (1, 2, 3)]
    result = prolific_review(prolific_study=found)
    assert result.approved == 3 and not found.flags.exists()  # no "no submission" flag for pages 2 and 3
    assert sorted(submission for submission, _ in standin.decisions) == sorted(submissions)


# -- 3. bulk approval: submission ids alone, at most 1,000 a call --------------------------------------


def test_approvals_go_as_submission_ids_alone(implicature, standin):
    study = prolific_study()
    found = prolific_study_create(study=study)
    submissions = [_submitted(standin, study, found, n)[1] for n in (1, 2)]
    assert prolific_review(prolific_study=found).approved == 2
    assert [set(body) for body in standin.bulk_approvals] == [{"submission_ids"}]
    assert sorted(standin.bulk_approvals[0]["submission_ids"]) == sorted(submissions)


def test_approvals_go_in_chunks_each_marked_sent_as_it_is_sent(implicature, standin, monkeypatch):
    """The chunk is 1,000 ids; here 1 (and the stand-in takes no more), so three people make three calls
    and a refusal of the third leaves two marked sent and one for the next run."""
    monkeypatch.setattr("prolific.review.BULK_APPROVE_MAX", 1)
    standin.bulk_cap = 1
    study = prolific_study()
    found = prolific_study_create(study=study)
    for n in (1, 2, 3):
        _submitted(standin, study, found, n)
    standin.fail("POST", "/bulk-approve/", "500", times=1)  # the first chunk fails: nothing sent
    with pytest.raises(ProlificError):
        prolific_review(prolific_study=found)
    assert ProlificSubmission.objects.filter(decision_sent_at__isnull=False).count() == 0
    assert prolific_review(prolific_study=found).approved == 3
    assert [len(body["submission_ids"]) for body in standin.bulk_approvals] == [1, 1, 1]
    assert ProlificSubmission.objects.filter(status="APPROVED", decision_sent_at__isnull=False).count() == 3


def test_the_client_never_sends_a_mixed_or_oversized_bulk_approval(standin):
    calls = len(standin.calls)
    with pytest.raises(ValueError, match="1 to 1000"):
        ProlificClient().submissions_bulk_approve([f"s-{n}" for n in range(1001)])
    assert len(standin.calls) == calls
    # the stand-in refuses what Prolific documents it refuses
    for body in ({"study_id": "x", "submission_ids": ["a"]}, {"submission_ids": [f"s-{n}" for n in range(1001)]}):
        with pytest.raises(ProlificError, match="HTTP 400"):
            ProlificClient().request("POST", "submissions/bulk-approve/", body)


# -- 4. filters ----------------------------------------------------------------------------------------


def test_a_study_is_created_with_filters(implicature, standin):
    found = prolific_study_create(study=prolific_study())
    assert standin.studies[found.prolific_id]["filters"] == []


def test_prolific_refuses_a_study_without_filters(standin):
    with pytest.raises(ProlificError, match="filters is required"):
        ProlificClient().study_create({"name": "no filters"})


# -- 5. tried again with exponential back-off ------------------------------------------------------------


class Waits(list):
    """An injected `sleep`: the waits asked for, none waited."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_a_read_is_tried_again_after_a_429_and_a_503_with_doubling_waits(implicature, standin):
    found = prolific_study_create(study=prolific_study())
    standin.fail("GET", "/submissions/", "429", times=1)
    standin.fail("GET", "/submissions/", "503", times=2)
    waits = Waits()
    client = ProlificClient(backoff=0.5, sleep=waits)
    assert prolific_sync(prolific_study=found, client=client).submissions == 0
    assert waits == [0.5, 1.0, 2.0]


def test_tries_end_with_an_error_that_counts_them(standin):
    standin.fail("GET", "/studies/abc/", "503", times=10)
    waits = Waits()
    with pytest.raises(ProlificError, match=r"HTTP 503.*after 3 tries with exponential back-off") as raised:
        ProlificClient(retries=2, backoff=1, sleep=waits).study_get("abc")
    assert raised.value.status == 503 and waits == [1, 2]


def test_the_wait_is_capped(standin):
    waits = Waits()
    client = ProlificClient(backoff=10, sleep=waits)
    for attempt in range(5):
        client.wait(attempt)
    assert waits == [10, 20, 40, 60, 60]


def test_a_transient_5xx_on_a_call_that_may_have_acted_is_not_tried_again(implicature, standin):
    """Creating a study twice makes two drafts: after a 503 (Prolific may have acted), no second try."""
    standin.fail("POST", "/studies/", "503", times=1, after=True)
    waits = Waits()
    with pytest.raises(ProlificError, match="HTTP 503"):
        prolific_study_create(study=prolific_study(), client=ProlificClient(sleep=waits))
    assert waits == [] and len(standin.studies) == 1


def test_a_bulk_approval_refused_with_429_is_sent_again(implicature, standin):
    study = prolific_study()
    found = prolific_study_create(study=study)
    _submitted(standin, study, found, 1)
    standin.fail("POST", "/bulk-approve/", "429", times=2)
    waits = Waits()
    assert prolific_review(prolific_study=found, client=ProlificClient(sleep=waits)).approved == 1
    assert len(waits) == 2 and len(standin.bulk_approvals) == 1


def test_a_pay_refused_with_429_is_paid_once_after_the_ledger_is_read_again(implicature, standin):
    """Prolific's 429 on paying is transient and a refusal (nothing paid): the batch goes back to
    created and is claimed again before the next try, which pays it once."""
    study = prolific_study()
    found = prolific_study_create(study=study)
    for n in (1, 2):
        _submitted(standin, study, found, n)
    prolific_sync(prolific_study=found)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    standin.fail("POST", "/pay/", "429", times=2)
    waits = Waits()
    result = prolific_bonuses_pay(prolific_study=found, client=ProlificClient(backoff=1, sleep=waits))
    assert result.paid_now and result.batch.state == BonusBatch.State.PAID
    assert standin.payments == [result.batch.bulk_id]  # paid once
    assert waits == [1, 2]
    assert [path for method, path in standin.calls if path.endswith("/pay/")] == [
        f"/api/v1/bulk-bonus-payments/{result.batch.bulk_id}/pay/"
    ] * 3


def test_a_pay_that_keeps_being_refused_is_left_created_for_the_next_run(implicature, standin):
    study = prolific_study()
    found = prolific_study_create(study=study)
    _submitted(standin, study, found, 1)
    prolific_sync(prolific_study=found)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    standin.fail("POST", "/pay/", "429", times=10)
    with pytest.raises(ProlificError, match="HTTP 429"):
        prolific_bonuses_pay(prolific_study=found, client=ProlificClient(retries=1, sleep=Waits()))
    assert BonusBatch.objects.get().state == BonusBatch.State.CREATED and standin.payments == []


def test_a_pay_that_fails_with_a_5xx_is_never_tried_again(implicature, standin):
    study = prolific_study()
    found = prolific_study_create(study=study)
    _submitted(standin, study, found, 1)
    prolific_sync(prolific_study=found)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    standin.fail("POST", "/pay/", "503", times=1, after=True)  # Prolific paid; its answer is a 503
    waits = Waits()
    with pytest.raises(ProlificError, match="may have been paid"):
        prolific_bonuses_pay(prolific_study=found, client=ProlificClient(sleep=waits))
    assert waits == [] and len(standin.payments) == 1
    assert BonusBatch.objects.get().state == BonusBatch.State.PAYING
