"""Review: kept participants approved in bulk; excluded ones rejected only where Prolific's rules
allow it, otherwise approved and flagged; one decision per submission, whatever the retries."""

from __future__ import annotations

import pytest

from prolific.client import ProlificClient, ProlificError
from prolific.models import ProlificFlag, ProlificSubmission
from prolific.review import prolific_review
from prolific.services import prolific_study_configure, prolific_study_create
from studies.participants.decisions import participants_exclude
from tests.factories import small_study
from tests.prolific.helpers import arrive, failing_checks


def _submitted(standin, study, found, n: int, choose=None):
    bot, submission = arrive(standin, study, found.prolific_id, n)
    bot.complete(choose)
    standin.submission_set(submission, "AWAITING REVIEW", bot.participant.completion_code())
    return bot, submission


def _study(minutes: int, exclude_at: int, checks: int = 2):
    study = small_study(
        f"{minutes} minutes",
        unit_size=2,
        units=1,
        per_unit=6,
        attention_checks=checks,
        exclude_at=exclude_at,
        estimated_minutes=minutes,
    )
    return study, prolific_study_create(study=study)


def test_one_failed_check_rejects_on_a_short_study(implicature, standin):
    study, found = _study(minutes=4, exclude_at=1, checks=1)
    bot, submission = _submitted(standin, study, found, 1, failing_checks)
    assert bot.participant.attention_failures == 1 and bot.participant.excluded
    assert prolific_review(prolific_study=found).rejected == 1
    assert standin.decisions == [(submission, "REJECT")]


def test_one_failed_check_does_not_reject_on_a_study_of_five_minutes(implicature, standin):
    study, found = _study(minutes=5, exclude_at=1, checks=1)
    bot, submission = _submitted(standin, study, found, 1, failing_checks)
    result = prolific_review(prolific_study=found)
    assert (result.rejected, result.approved_flagged) == (0, 1)
    assert standin.decisions == [(submission, "APPROVE")]
    flag = ProlificFlag.objects.get(kind=ProlificFlag.Kind.EXCLUDED_APPROVED)
    assert "at least 2 failed attention checks on a study of 5 minutes" in flag.detail


def test_an_exclusion_for_another_reason_is_approved_and_flagged(implicature, standin):
    study, found = _study(minutes=10, exclude_at=2)
    bot, submission = _submitted(standin, study, found, 1)
    participants_exclude(participant_ids=[bot.participant.pk], reason="answered at random")
    assert prolific_review(prolific_study=found).approved_flagged == 1
    assert standin.decisions == [(submission, "APPROVE")]
    assert "answered at random" in ProlificFlag.objects.get().detail


def test_a_study_that_approves_excluded_participants_never_rejects(implicature, standin):
    study, found = _study(minutes=10, exclude_at=2)
    prolific_study_configure(prolific_study=found, reject_excluded=False)
    _, submission = _submitted(standin, study, found, 1, failing_checks)
    assert prolific_review(prolific_study=found).approved_flagged == 1
    assert standin.decisions == [(submission, "APPROVE")]


def test_a_submission_not_finished_in_parity_is_left_and_flagged(implicature, standin):
    study, found = _study(minutes=10, exclude_at=2)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.start_items()
    standin.submission_set(submission, "AWAITING REVIEW", "WRONGCODE")
    assert prolific_review(prolific_study=found).left == 1
    assert standin.decisions == []
    assert ProlificFlag.objects.get().kind == ProlificFlag.Kind.UNFINISHED


def test_an_error_midway_leaves_the_decisions_stored_and_a_retry_sends_the_same_ones(implicature, standin):
    study, found = _study(minutes=10, exclude_at=2)
    _, kept = _submitted(standin, study, found, 1)
    _, careless = _submitted(standin, study, found, 2, failing_checks)
    standin.fail("POST", f"/submissions/{careless}/transition/", "timeout")
    with pytest.raises(ProlificError, match="did not answer"):
        prolific_review(prolific_study=found)
    assert standin.decisions == [(kept, "APPROVE")]
    pending = ProlificSubmission.objects.get(submission_id=careless)
    assert pending.decision == "reject" and pending.decision_sent_at is None
    result = prolific_review(prolific_study=found)
    assert (result.approved, result.rejected) == (0, 1)
    assert standin.decisions == [(kept, "APPROVE"), (careless, "REJECT")]
    assert prolific_review(prolific_study=found).rejected == 0 and len(standin.decisions) == 2


def test_prolific_refuses_a_short_rejection_message(implicature, standin):
    study, found = _study(minutes=10, exclude_at=2)
    _, submission = _submitted(standin, study, found, 1)
    with pytest.raises(ProlificError, match="at least 100 characters"):
        ProlificClient().submission_transition(submission, "REJECT", message="too short", rejection_category="OTHER")
    assert standin.decisions == []
