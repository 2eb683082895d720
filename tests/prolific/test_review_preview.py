"""Review and bonuses from the admin: a preview of every decision and amount first, sending nothing;
then exactly what was shown, on confirmation. Approving or paying someone flagged, or someone who
failed enough checks to be rejected, asks for an explicit confirmation."""

from __future__ import annotations

from dataclasses import replace

import pytest

from prolific.bonuses import BonusesChanged, BonusPlan, PlannedBonus, bonus_batch_compute, prolific_bonuses_pay
from prolific.models import BonusBatch, ProlificSubmission
from prolific.review import prolific_review
from prolific.services import prolific_study_configure, prolific_study_create
from studies.participants.decisions import participants_exclude, participants_include
from tests.factories import small_study
from tests.prolific.helpers import arrive, failing_checks

pytestmark = pytest.mark.django_db
URL = "/admin/prolific/prolificstudy/"


def _study(owner, *, checks: int = 2, exclude_at: int = 2, per_unit: int = 4):
    study = small_study(
        "reviewed study",
        unit_size=2,
        units=1,
        per_unit=per_unit,
        attention_checks=checks,
        exclude_at=exclude_at,
        estimated_minutes=10,
        owner=owner,
    )
    return study, prolific_study_create(study=study)


def _submitted(standin, study, found, n: int, choose=None):
    bot, submission = arrive(standin, study, found.prolific_id, n)
    bot.complete(choose)
    standin.submission_set(submission, "AWAITING REVIEW", bot.participant.completion_code())
    return bot.participant, submission


def _preview(client, action: str, found):
    page = client.post(URL, {"action": action, "_selected_action": [found.pk]})
    assert page.status_code == 200
    return page, {f"fingerprint-{f.pk}": plan.fingerprint for f, plan in page.context["plans"]}


def _confirm(client, action: str, found, fingerprints: dict, **extra):
    form = {"action": action, "_selected_action": [found.pk], "confirm": "1", **fingerprints, **extra}
    return client.post(URL, form, follow=True)


def test_the_review_shows_each_decision_and_message_and_sends_nothing_before_confirmation(
    researcher, researcher_client, implicature, standin
):
    study, found = _study(researcher)
    kept, approved = _submitted(standin, study, found, 1)
    careless, rejected = _submitted(standin, study, found, 2, failing_checks)
    page, fingerprints = _preview(researcher_client, "review", found)
    html = page.content.decode()
    assert standin.decisions == []  # nothing sent on the first POST
    assert not ProlificSubmission.objects.exclude(decision="").exists()  # nor decided
    plan = page.context["plans"][0][1]
    assert [(d.pseudonym, d.decision) for d in plan.decisions] == [
        (kept.pseudonym, "approve"),
        (careless.pseudonym, "reject"),
    ]
    assert f"{careless.pseudonym} · {study.name}" in html
    assert "Your submission was not accepted: you failed 2 attention checks." in html
    assert "1 approval, 1 rejection" in html

    page = _confirm(researcher_client, "review", found, fingerprints, confirm_cautions="on")
    assert "approved 1, rejected 1" in page.content.decode()
    assert sorted(standin.decisions) == sorted([(approved, "APPROVE"), (rejected, "REJECT")])


def test_a_decision_changed_after_the_preview_sends_nothing(researcher, researcher_client, implicature, standin):
    study, found = _study(researcher)
    kept, _ = _submitted(standin, study, found, 1)
    _, fingerprints = _preview(researcher_client, "review", found)
    participants_exclude(participant_ids=[kept.pk], reason="answered at random")
    page = _confirm(researcher_client, "review", found, fingerprints, confirm_cautions="on")
    assert "the decisions changed since the preview" in page.content.decode()
    assert standin.decisions == []


def test_approving_someone_who_failed_the_checks_and_was_included_again_asks_for_confirmation(
    researcher, researcher_client, implicature, standin
):
    study, found = _study(researcher, checks=3)
    careless, submission = _submitted(standin, study, found, 1, failing_checks)
    assert careless.attention_failures == 3 and careless.excluded
    participants_include(participant_ids=[careless.pk])
    page, fingerprints = _preview(researcher_client, "review", found)
    assert "failed 3 attention checks but is included" in page.content.decode()
    refused = _confirm(researcher_client, "review", found, fingerprints)
    assert "need your confirmation" in refused.content.decode() and standin.decisions == []
    _confirm(researcher_client, "review", found, fingerprints, confirm_cautions="on")
    assert standin.decisions == [(submission, "APPROVE")]


def test_a_rejection_states_the_checks_failed_at_the_review_not_at_the_exclusion(implicature, standin, researcher):
    study, found = _study(researcher, checks=3, exclude_at=2)
    careless, submission = _submitted(standin, study, found, 1, failing_checks)
    # excluded at the second failure; the third came after
    assert careless.exclusion_reason == "failed 2 attention checks (threshold 2)"
    prolific_review(prolific_study=found)
    sent = standin.rejection_messages[submission]
    assert sent.startswith("Your submission was not accepted: you failed 3 attention checks.")
    assert "threshold" not in sent


def test_the_bonuses_show_each_amount_and_the_total_then_are_paid_once(
    researcher, researcher_client, implicature, standin
):
    study, found = _study(researcher)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    first, _ = _submitted(standin, study, found, 1)
    second, _ = _submitted(standin, study, found, 2)
    page, fingerprints = _preview(researcher_client, "pay_bonuses", found)
    html = page.content.decode()
    plan = page.context["plans"][0][1]
    # each answers 2 study items right: 2 × 5p each
    assert [(line.pseudonym, line.amount) for line in plan.lines] == [
        (first.pseudonym, "£0.10"),
        (second.pseudonym, "£0.10"),
    ]
    assert plan.total == "£0.20" and "£0.20</span> in all" in html
    assert standin.payments == [] and not BonusBatch.objects.exists()
    _confirm(researcher_client, "pay_bonuses", found, fingerprints, confirm_cautions="on")
    assert len(standin.payments) == 1
    assert BonusBatch.objects.get().state == BonusBatch.State.PAID


def test_someone_excluded_after_the_bonus_preview_is_not_paid_and_the_preview_comes_again(
    researcher, researcher_client, implicature, standin
):
    study, found = _study(researcher)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    first, _ = _submitted(standin, study, found, 1)
    second, _ = _submitted(standin, study, found, 2)
    # computed after a preview's pull, not yet paid (as when an earlier payment stopped): the plan
    # pays the batch as computed
    _preview(researcher_client, "pay_bonuses", found)
    assert len(bonus_batch_compute(prolific_study=found).lines.all()) == 2
    page, fingerprints = _preview(researcher_client, "pay_bonuses", found)
    assert not any("excluded" in line.caution for line in page.context["plans"][0][1].lines)  # as shown
    participants_exclude(participant_ids=[second.pk], reason="answered at random")
    # the cautions box ticked (as a reviewer who confirms whatever is asked would): the amounts are
    # the same, but the exclusion was never shown
    again = _confirm(researcher_client, "pay_bonuses", found, fingerprints, confirm_cautions="on")
    html = again.content.decode()
    assert "Nothing was paid: the bonuses changed since the preview" in html
    plan = again.context["plans"][0][1]
    assert [line.pseudonym for line in plan.cautions if "excluded" in line.caution] == [second.pseudonym]
    assert "excluded from the results since the bonus was computed" in html
    assert standin.payments == [] and BonusBatch.objects.get().state == BonusBatch.State.COMPUTED
    with pytest.raises(BonusesChanged):
        prolific_bonuses_pay(prolific_study=found, expected=fingerprints[f"fingerprint-{found.pk}"])
    assert standin.payments == []
    # confirmed on the preview that showed the exclusion: paid
    renewed = {f"fingerprint-{found.pk}": plan.fingerprint}
    _confirm(researcher_client, "pay_bonuses", found, renewed, confirm_cautions="on")
    assert len(standin.payments) == 1


def test_a_flag_raised_after_the_bonus_preview_changes_what_was_shown():
    line = PlannedBonus("A1", 10, "£0.10")
    plan = BonusPlan(lines=[line], total_pence=10, total="£0.10", currency="GBP", batch_state="")
    flagged = BonusPlan(
        lines=[replace(line, flags=("bot_speed",), caution="flagged: bot speed")],
        total_pence=10,
        total="£0.10",
        currency="GBP",
        batch_state="",
    )
    excluded = BonusPlan(
        lines=[replace(line, excluded=True)], total_pence=10, total="£0.10", currency="GBP", batch_state=""
    )
    assert len({plan.fingerprint, flagged.fingerprint, excluded.fingerprint}) == 3


def test_the_reward_owed_to_a_timed_out_completer_is_previewed_then_paid_on_confirmation(
    researcher, researcher_client, implicature, standin
):
    study, found = _study(researcher)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.complete()
    standin.time_out(submission)
    page, fingerprints = _preview(researcher_client, "pay_bonuses", found)  # the preview's pull sees it
    html = page.content.decode()
    reward = f"£{study.reward_pence / 100:.2f}"
    note = f"includes the reward, {reward}: completed here, timed out on Prolific"
    assert f'<td class="amount">{reward}<div class="bonus-note">{note}</div></td>' in html
    assert standin.payments == [] and not BonusBatch.objects.exists()
    # the bot's answers carry integrity flags, which the preview asks to confirm, as in the test above
    assert page.context["plans"][0][1].lines[0].caution.startswith("flagged: ")
    _confirm(researcher_client, "pay_bonuses", found, fingerprints, confirm_cautions="on")
    assert len(standin.payments) == 1 and BonusBatch.objects.get().lines.get().reward_pence == study.reward_pence
