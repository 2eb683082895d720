"""A study run on Prolific end to end against the stand-in: created, published, participants arrive
(scripted bots), webhooks arrive (replayed and forged ones too), the submissions are reviewed,
bonuses paid and the study stopped."""

from __future__ import annotations

from decimal import Decimal

from prolific.bonuses import prolific_bonuses_pay
from prolific.models import (
    BonusBatch,
    ProlificEvent,
    ProlificFlag,
    ProlificHookSecret,
    ProlificStudy,
    ProlificSubmission,
)
from prolific.review import prolific_review
from prolific.services import prolific_study_configure, prolific_study_create, prolific_study_transition, prolific_sync
from prolific.subscriptions import prolific_hooks_subscribe
from studies.models import Participant
from tests.factories import Bot, pid
from tests.prolific.helpers import arrive, deliver, failing_checks, prolific_study


def test_a_study_runs_on_prolific_from_draft_to_stop(implicature, standin, client):
    study = prolific_study()
    found = prolific_study_create(study=study)
    draft = standin.studies[found.prolific_id]
    assert (draft["status"], draft["total_available_places"], draft["reward"], draft["estimated_completion_time"]) == (
        "UNPUBLISHED",
        4,
        450,
        10,
    )
    assert draft["external_study_url"].endswith(
        f"/s/{study.link}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
        "&SESSION_ID={{%SESSION_ID%}}"
    )
    assert [(code["code_type"], code["code"]) for code in draft["completion_codes"]] == [
        ("COMPLETED", study.completion_code),
        ("FAILED_ATTENTION_CHECK", study.failed_attention_code),
    ]
    assert [code["actions"] for code in draft["completion_codes"]] == [[{"action": "MANUALLY_REVIEW"}]] * 2

    prolific_hooks_subscribe(target_url="https://parity.example.org/prolific/hooks/")
    assert ProlificHookSecret.objects.get().secret == standin.secrets[-1]
    assert sorted(hook["event_type"] for hook in standin.subscriptions) == [
        "study.status.change",
        "submission.status.change",
    ]
    prolific_study_transition(prolific_study=found, action="publish")
    assert standin.studies[found.prolific_id]["status"] == "ACTIVE"

    # four people take the four places; two finish (one failing both attention checks), one returns,
    # one times out; their places reopen at once and a fifth person takes one
    careful, careful_sub = arrive(standin, study, found.prolific_id, 1)
    careless, careless_sub = arrive(standin, study, found.prolific_id, 2)
    returner, returner_sub = arrive(standin, study, found.prolific_id, 3)
    sleeper, sleeper_sub = arrive(standin, study, found.prolific_id, 4)
    careful.complete()
    careless.complete(failing_checks)
    returner.start_items()
    sleeper.start_items()
    assert careless.participant.excluded and careless.participant.attention_failures == 2

    returned = standin.submission_set(returner_sub, "RETURNED")
    assert deliver(client, standin, returned).status_code == 200
    assert returner.participant.status == Participant.Status.RETURNED
    assert deliver(client, standin, standin.submission_set(sleeper_sub, "TIMED-OUT")).status_code == 200
    assert sleeper.participant.status == Participant.Status.TIMED_OUT
    late = Bot(study, pid(5), session=standin.submission_add(found.prolific_id, pid(5)))
    late.start_items()
    assert late.participant.status == Participant.Status.ACTIVE and late.participant.unit is not None

    # a replayed delivery is acknowledged and changes nothing; a forged one is refused and not stored
    events = ProlificEvent.objects.count()
    again = deliver(client, standin, returned)
    assert again.status_code == 200 and again.json()["duplicate"] is True
    forged = deliver(client, standin, {**returned, "event_id": "forged-1", "status": "APPROVED"}, secret="guess")
    assert forged.status_code == 403
    assert ProlificEvent.objects.count() == events

    for submission, bot in ((careful_sub, careful), (careless_sub, careless)):
        code = bot.participant.completion_code()
        assert deliver(client, standin, standin.submission_set(submission, "AWAITING REVIEW", code)).status_code == 200
    # someone sends in a submission without ever opening the study; a pilot completes outside Prolific
    stranger = standin.submission_add(found.prolific_id, pid(9), status="AWAITING REVIEW")
    Bot(study, pid(8)).complete()

    result = prolific_sync(prolific_study=found)
    assert result.submissions == 6
    flags = {(flag.kind, flag.subject) for flag in ProlificFlag.objects.filter(resolved=False)}
    # a flag names Parity's number of the submission; its Prolific ids are read through it
    stranger_record = ProlificSubmission.objects.get(submission_id=stranger)
    assert ProlificFlag.objects.get(kind=ProlificFlag.Kind.NO_PARTICIPANT).submission == stranger_record
    assert flags == {
        (ProlificFlag.Kind.NO_PARTICIPANT, f"submission #{stranger_record.pk}"),
        (ProlificFlag.Kind.NO_SUBMISSION, Participant.objects.get(prolific_pid=pid(8)).pseudonym),
    }

    review = prolific_review(prolific_study=found)
    # the stranger is left for the researcher
    assert (review.approved, review.rejected, review.approved_flagged, review.left) == (1, 1, 0, 1)
    assert sorted(standin.decisions) == sorted([(careful_sub, "APPROVE"), (careless_sub, "REJECT")])
    assert standin.submissions[stranger]["status"] == "AWAITING REVIEW"  # left for the researcher
    rejected = ProlificSubmission.objects.get(submission_id=careless_sub)
    assert len(rejected.decision_reason) >= 100 and "failed 2 attention checks" in rejected.decision_reason
    assert prolific_review(prolific_study=found).approved == 0 and len(standin.decisions) == 2

    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    paid = prolific_bonuses_pay(prolific_study=found)
    assert paid.paid_now and paid.batch.state == BonusBatch.State.PAID
    correct = careful.participant.responses.filter(correct=True, is_attention_check=False).count()
    assert correct == 3
    assert standin.bulk_bonuses[paid.batch.bulk_id]["rows"] == [(pid(1), Decimal("0.15"))]
    assert prolific_bonuses_pay(prolific_study=found).batch is None  # nothing more is owed
    assert standin.payments == [paid.batch.bulk_id]

    prolific_study_transition(prolific_study=found, action="stop")
    assert standin.studies[found.prolific_id]["status"] == "AWAITING REVIEW"
    assert ProlificStudy.objects.get().status == ProlificStudy.Status.AWAITING_REVIEW
