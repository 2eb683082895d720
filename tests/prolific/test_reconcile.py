"""Prolific changes a submission on its own after the participant completed in Parity: each change is
seen on the next sync (or delivery), flagged with its figures, and nobody's pay goes unaccounted."""

from __future__ import annotations

from decimal import Decimal

from prolific.bonuses import bonus_plan, prolific_bonuses_pay
from prolific.models import BonusLine, ProlificFlag, ProlificSubmission
from prolific.review import prolific_review
from prolific.services import prolific_study_configure, prolific_study_create, prolific_sync
from prolific.subscriptions import prolific_hooks_subscribe
from studies.models import Participant
from tests.prolific.helpers import arrive, deliver, failing_checks, prolific_study


def _completed(standin, n: int = 1, choose=None, **fields):
    """A study on Prolific and participant `n`, who completed it in Parity and has not submitted on
    Prolific yet (their submission is active there)."""
    study = prolific_study(**fields)
    found = prolific_study_create(study=study)
    bot, submission = arrive(standin, study, found.prolific_id, n)
    bot.complete(choose)
    assert bot.participant.status == Participant.Status.COMPLETED
    return study, found, bot.participant, submission


def _flag(found, kind):
    return ProlificFlag.objects.get(prolific_study=found, kind=kind)


def test_a_completer_prolific_timed_out_is_flagged_and_offered_the_reward_as_a_bonus(implicature, standin):
    study, found, participant, submission = _completed(standin, reward_pence=450)
    standin.time_out(submission)
    prolific_sync(prolific_study=found)
    participant.refresh_from_db()
    assert participant.status == Participant.Status.COMPLETED  # the answers are in: no slot to free
    record = ProlificSubmission.objects.get(submission_id=submission)
    flag = _flag(found, ProlificFlag.Kind.COMPLETED_TIMED_OUT)
    answers = participant.responses.filter(is_attention_check=False).count()
    assert flag.participant == participant and flag.submission == record and not flag.resolved
    assert flag.detail == (
        f"{participant.pseudonym} completed the study in Parity ({answers} answers, "
        f"{participant.completed_at:%Y-%m-%d %H:%M} UTC), but Prolific timed out submission #{record.pk}: "
        "Prolific pays nothing for it. The reward, £4.50, is offered as a bonus under Pay the bonuses owed, "
        "if the review would approve them"
    )
    # previewed like every bonus: the line, what it includes, and the total
    plan = bonus_plan(prolific_study=found)
    [line] = plan.lines
    assert (line.pseudonym, line.pence, line.amount, plan.total) == (participant.pseudonym, 450, "£4.50", "£4.50")
    assert line.note == "includes the reward, £4.50: completed here, timed out on Prolific"
    result = prolific_bonuses_pay(prolific_study=found, expected=plan.fingerprint)
    assert result.paid_now
    assert standin.bulk_bonuses[result.batch.bulk_id]["rows"] == [(participant.prolific_pid, Decimal("4.50"))]
    assert BonusLine.objects.get(participant=participant).reward_pence == 450
    # paid once: the next sync and the next payment offer nothing more
    prolific_sync(prolific_study=found)
    assert bonus_plan(prolific_study=found).lines == [] and len(standin.payments) == 1


def test_the_reward_comes_with_the_rule_s_bonus_and_not_to_one_the_review_would_reject(implicature, standin):
    study, found, kept, kept_submission = _completed(standin, reward_pence=300, estimated_minutes=10)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    bot, failed_submission = arrive(standin, study, found.prolific_id, 2)
    bot.complete(failing_checks)  # excluded for two failed checks: a rejection the review may send
    for submission in (kept_submission, failed_submission):
        standin.time_out(submission)
    prolific_sync(prolific_study=found)
    correct = kept.responses.filter(correct=True, is_attention_check=False).count()
    [line] = bonus_plan(prolific_study=found).lines
    assert (line.pseudonym, line.pence) == (kept.pseudonym, 300 + 5 * correct)
    assert ProlificFlag.objects.filter(kind=ProlificFlag.Kind.COMPLETED_TIMED_OUT).count() == 2


def test_a_reward_paid_by_bonus_is_not_paid_again_by_an_approval(implicature, standin):
    """Should Prolific list the timed-out submission as awaiting review later, approving it would pay the
    reward twice: the review leaves it for a decision by hand, flagged."""
    study, found, participant, submission = _completed(standin)
    standin.time_out(submission)
    prolific_sync(prolific_study=found)
    prolific_bonuses_pay(prolific_study=found)
    standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    result = prolific_review(prolific_study=found)
    assert (result.approved, result.left) == (0, 1) and not standin.decisions
    flag = _flag(found, ProlificFlag.Kind.UNFINISHED)
    assert "approving it would pay the reward again" in flag.detail


def test_a_completer_who_returned_on_prolific_is_flagged_and_keeps_their_answers(implicature, standin, client):
    study, found, participant, submission = _completed(standin)
    standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    prolific_sync(prolific_study=found)
    prolific_hooks_subscribe(target_url="https://parity.example.org/prolific/hooks/")
    assert deliver(client, standin, standin.give_back(submission)).status_code == 200  # on the webhook
    participant.refresh_from_db()
    assert participant.status == Participant.Status.COMPLETED and not participant.excluded
    assert participant.responses.exists()
    record = ProlificSubmission.objects.get(submission_id=submission)
    flag = _flag(found, ProlificFlag.Kind.COMPLETED_RETURNED)
    answers = participant.responses.filter(is_attention_check=False).count()
    assert flag.detail == (
        f"{participant.pseudonym} completed the study in Parity ({answers} answers, "
        f"{participant.completed_at:%Y-%m-%d %H:%M} UTC), then returned submission #{record.pk} on Prolific, "
        "which cancels their reward: nothing is paid. Their answers stay in the results unless you exclude them"
    )
    # nothing is sent about them: no decision, no bonus
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    assert prolific_review(prolific_study=found).approved == 0 and bonus_plan(prolific_study=found).lines == []


# -- approvals accepted but not applied --------------------------------------------------------------


def _approved_in_bulk(standin, people: int = 2):
    """People who completed and sent in, approved by a review whose bulk approval Prolific accepted and
    has not applied yet."""
    study = prolific_study()
    found = prolific_study_create(study=study)
    submissions = []
    for n in range(1, people + 1):
        bot, submission = arrive(standin, study, found.prolific_id, n)
        bot.complete()
        standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
        submissions.append(submission)
    standin.bulk_async = True
    assert prolific_review(prolific_study=found).approved == people
    assert {standin.submissions[s]["status"] for s in submissions} == {"AWAITING REVIEW"}  # accepted only
    return study, found, submissions


def test_an_approval_accepted_and_dropped_is_sent_again_by_the_next_sync(implicature, standin):
    study, found, (applied, dropped) = _approved_in_bulk(standin)
    standin.pending_approvals.remove(dropped)  # Prolific applies the batch, all but one
    standin.bulk_apply()
    assert prolific_sync(prolific_study=found).resent == 1
    assert standin.submissions[dropped]["status"] == "APPROVED"
    assert sorted(standin.decisions) == sorted([(applied, "APPROVE"), (dropped, "APPROVE")])  # once each
    prolific_sync(prolific_study=found)
    assert set(ProlificSubmission.objects.values_list("status", flat=True)) == {"APPROVED"}
    assert not ProlificFlag.objects.filter(kind=ProlificFlag.Kind.APPROVAL_NOT_APPLIED).exists()


def test_an_approval_sent_again_while_prolific_applies_the_first_pays_once(implicature, standin):
    """The sync runs before Prolific applied the batch: the approval sent again is applied, and the
    batch applied after it changes nothing (one decision, one payment)."""
    study, found, submissions = _approved_in_bulk(standin, people=1)
    assert prolific_sync(prolific_study=found).resent == 1
    standin.bulk_apply()
    assert standin.decisions == [(submissions[0], "APPROVE")]


def test_an_approval_never_applied_is_flagged_after_the_last_send_and_not_sent_again(implicature, standin):
    study, found, (stuck, _) = _approved_in_bulk(standin)
    standin.never_applied.add(stuck)
    standin.bulk_apply()
    resent = [prolific_sync(prolific_study=found).resent for _ in range(4)]
    assert resent == [1, 1, 0, 0]  # the review's bulk approval, then two more: three sends
    record = ProlificSubmission.objects.get(submission_id=stuck)
    assert (record.status, record.approval_sends) == ("AWAITING REVIEW", 3)
    flag = _flag(found, ProlificFlag.Kind.APPROVAL_NOT_APPLIED)
    assert flag.detail == (
        f"Parity approved submission #{record.pk} ({record.participant.pseudonym}) 3 times, the first at "
        f"{record.decision_sent_at:%Y-%m-%d %H:%M} UTC, and Prolific accepted each, but it still lists the "
        "submission as awaiting review: approve it on Prolific, which otherwise approves it by itself once its "
        "review period has passed"
    )
    standin.never_applied.clear()
    standin.submission_set(stuck, "APPROVED")  # approved on Prolific by hand
    prolific_sync(prolific_study=found)
    flag.refresh_from_db()
    assert flag.resolved


def test_a_dry_run_of_the_review_sends_no_approval_again(implicature, standin):
    from django.core.management import call_command

    study, found, submissions = _approved_in_bulk(standin, people=1)
    calls = len(standin.calls)
    call_command("prolific", "review", study.name, "--dry-run")
    assert not [path for _, path in standin.calls[calls:] if "transition" in path or "bulk" in path]


def test_an_approval_sent_again_and_applied_reads_approved_after_that_sync(implicature, standin):
    """Prolific answers the approval with the submission as it now stands: Parity records it at once,
    so the participant's page does not show them awaiting review after the sync that fixed it."""
    study, found, (applied, dropped) = _approved_in_bulk(standin)
    standin.pending_approvals.remove(dropped)
    standin.bulk_apply()
    assert prolific_sync(prolific_study=found).resent == 1
    assert ProlificSubmission.objects.get(submission_id=dropped).status == "APPROVED"


def test_the_monitor_warns_of_the_flags_open_about_what_prolific_changed(implicature, standin, admin_client):
    from results.pipeline import study_monitor

    study, found, participant, submission = _completed(standin)
    before = study_monitor(study).warnings  # the study's own (a unit not filling, a fast participant)
    assert not [warning for warning in before if "Prolific flag" in warning]
    standin.time_out(submission)
    prolific_sync(prolific_study=found)
    flag = _flag(found, ProlificFlag.Kind.COMPLETED_TIMED_OUT)
    said = f"1 Prolific flag open for the reviewer ({flag.get_kind_display()}: 1): see Prolific flags."
    assert study_monitor(study).warnings == [*before, said]
    assert said in admin_client.get(f"/studies/{study.pk}/monitor/").content.decode()
    ProlificFlag.objects.filter(pk=flag.pk).update(resolved=True)
    assert study_monitor(study).warnings == before
