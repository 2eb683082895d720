"""Bonuses by the study's rule, paid exactly once across double clicks, errors and lost answers."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import call_command

from prolific.bonuses import bonus_batch_confirm, prolific_bonuses_pay
from prolific.client import ProlificError
from prolific.models import BonusBatch, BonusLine
from prolific.services import ProlificStudyError, prolific_study_configure, prolific_study_create, prolific_sync
from tests.factories import pid
from tests.prolific.helpers import arrive, failing_checks, prolific_study, wrong


def _owed(standin, per_correct: int = 10):
    study = prolific_study()
    found = prolific_study_create(study=study)
    answers = {1: None, 2: lambda item: wrong(item) if item.key < "5" else item.gold, 3: failing_checks}
    for n, choose in answers.items():
        bot, submission = arrive(standin, study, found.prolific_id, n)
        bot.complete(choose)
        standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    prolific_sync(prolific_study=found)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=per_correct)
    return study, found


def test_the_rule_pays_per_correct_answer_and_skips_excluded_participants(implicature, standin):
    study, found = _owed(standin)
    expected = {}
    for line in study.participants.filter(excluded=False):
        correct = line.responses.filter(correct=True, is_attention_check=False).count()
        if correct:
            expected[line.prolific_pid] = Decimal(correct * 10) / 100
    assert pid(3) not in expected and expected  # excluded: no bonus
    result = prolific_bonuses_pay(prolific_study=found)
    assert dict(standin.bulk_bonuses[result.batch.bulk_id]["rows"]) == expected
    assert result.batch.total_pence == int(sum(expected.values()) * 100)


def test_a_double_click_pays_once_and_a_later_completion_gets_its_own_bulk(implicature, standin):
    study, found = _owed(standin)
    first = prolific_bonuses_pay(prolific_study=found)
    assert prolific_bonuses_pay(prolific_study=found).batch is None
    call_command("prolific", "bonuses", study.name)
    assert standin.payments == [first.batch.bulk_id]
    late, submission = arrive(standin, study, found.prolific_id, 4)
    late.complete()
    standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    prolific_sync(prolific_study=found)
    second = prolific_bonuses_pay(prolific_study=found)
    assert [pid_ for pid_, _ in standin.bulk_bonuses[second.batch.bulk_id]["rows"]] == [pid(4)]
    assert standin.payments == [first.batch.bulk_id, second.batch.bulk_id]
    assert BonusLine.objects.filter(participant=late.participant).count() == 1


def test_a_failed_creation_is_created_again_and_paid_once(implicature, standin):
    _, found = _owed(standin)
    standin.fail("POST", "/bonus-payments/", "500")
    with pytest.raises(ProlificError, match="HTTP 500"):
        prolific_bonuses_pay(prolific_study=found)
    assert BonusBatch.objects.get().state == BonusBatch.State.COMPUTED and standin.payments == []
    result = prolific_bonuses_pay(prolific_study=found)
    assert result.paid_now and standin.payments == [result.batch.bulk_id]


def test_a_lost_pay_answer_is_never_paid_again_until_confirmed(implicature, standin):
    _, found = _owed(standin)
    standin.fail("POST", "/pay/", "timeout", after=True)  # Prolific pays, its answer is lost
    with pytest.raises(ProlificError, match="may have been paid: check it on Prolific"):
        prolific_bonuses_pay(prolific_study=found)
    batch = BonusBatch.objects.get()
    assert batch.state == BonusBatch.State.PAYING and len(standin.payments) == 1
    with pytest.raises(ProlificStudyError, match="its pay answer was lost"):
        prolific_bonuses_pay(prolific_study=found)
    assert len(standin.payments) == 1
    assert bonus_batch_confirm(prolific_study=found, paid=True).state == BonusBatch.State.PAID
    assert prolific_bonuses_pay(prolific_study=found).batch is None and len(standin.payments) == 1


def test_a_pay_that_prolific_did_not_make_is_paid_after_the_researcher_says_so(implicature, standin):
    _, found = _owed(standin)
    standin.fail("POST", "/pay/", "500")  # refused before paying
    with pytest.raises(ProlificError):
        prolific_bonuses_pay(prolific_study=found)
    assert standin.payments == []
    bonus_batch_confirm(prolific_study=found, paid=False)
    result = prolific_bonuses_pay(prolific_study=found)
    assert result.paid_now and standin.payments == [result.batch.bulk_id]


def test_the_rule_cannot_change_once_bonuses_were_computed(implicature, standin):
    _, found = _owed(standin)
    prolific_bonuses_pay(prolific_study=found)
    with pytest.raises(ProlificStudyError, match="cannot change"):
        prolific_study_configure(prolific_study=found, bonus_per_correct_pence=20)


def test_a_batch_whose_participants_were_all_erased_before_it_was_sent_holds_up_no_later_bonus(implicature, standin):
    """Computed, then every participant in it erased on request before it reached Prolific: nothing
    can be paid and nothing is sent (an empty list would be refused at every try), and a participant
    who completes later is paid."""
    from prolific.bonuses import bonus_batch_compute
    from studies.participants.erasure import participant_erase

    study, found = _owed(standin)
    batch = bonus_batch_compute(prolific_study=found)
    for line in batch.lines.select_related("participant"):
        participant_erase(study=study, prolific_pid=line.participant.prolific_pid)
    assert prolific_bonuses_pay(prolific_study=found).batch is None
    assert standin.bulk_bonuses == {} and not BonusBatch.objects.exists()
    late, submission = arrive(standin, study, found.prolific_id, 4)
    late.complete()
    standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    prolific_sync(prolific_study=found)
    paid = prolific_bonuses_pay(prolific_study=found)
    assert paid.paid_now and [row for row, _ in standin.bulk_bonuses[paid.batch.bulk_id]["rows"]] == [pid(4)]
