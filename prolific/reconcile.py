"""Reconciling Parity's participants with what Prolific did to their submissions on its own: flags (one
per subject and kind, with the figures), completers Prolific timed out or who returned, and approvals
Prolific accepted but did not apply. Called by the sync and the webhook deliveries (`prolific.services`).
"""

from __future__ import annotations

from django.db.models import F

from prolific.client import ProlificClient
from prolific.currency import money
from prolific.models import ProlificFlag, ProlificStudy, ProlificSubmission
from studies.models import Participant


def submission_subject(record: ProlificSubmission) -> str:
    """What a flag about a submission is about, in words: Parity's number for it. Prolific's ids are
    read through the flag's submission, by those who may see them (`studies.participants.identity`)."""
    return f"submission #{record.pk}"


def flag_once(
    prolific_study: ProlificStudy | None,
    kind: str,
    subject: str,
    detail: str,
    participant: Participant | None = None,
    submission: ProlificSubmission | None = None,
) -> None:
    """Raise a flag, once per study, kind and subject (a flag already raised keeps its first words)."""
    ProlificFlag.objects.get_or_create(
        prolific_study=prolific_study,
        kind=kind,
        subject=subject,
        defaults={"detail": detail, "participant": participant, "submission": submission},
    )


def flag_settle(prolific_study: ProlificStudy, kind: str, subject: str) -> None:
    """Prolific and Parity agree again on what the flag was about: it is resolved."""
    ProlificFlag.objects.filter(prolific_study=prolific_study, kind=kind, subject=subject).update(resolved=True)


def completer_reconcile(*, prolific_study: ProlificStudy, record: ProlificSubmission) -> None:
    """A participant who completed in Parity whose submission Prolific then timed out or returned: the
    slot-freeing that suits an active participant would be wrong (their answers are in), and doing
    nothing would leave them unpaid unseen, so each is flagged with what Parity does about it.

    Timed out: Prolific pays nothing for a timed-out submission, and its help for researchers says to
    pay a participant who completed but timed out, by a bonus
    (https://researcher-help.prolific.co/hc/en-gb/articles/360009094694-Setting-the-Maximum-Allowed-Time;
    "Timed-out submissions do not need to be returned for a partial payment to be made",
    https://researcher-help.prolific.com/en/article/cbb084). The reward is offered with the study's
    other bonuses (`prolific.bonuses`), previewed before it is paid, to those the review would approve.

    Returned: the participant cancelled their own reward after submitting ("Return and cancel
    reward", https://participant-help.prolific.com/en/articles/445041-how-to-return-a-submission-on-prolific).
    Nothing is paid; their answers stay in the results unless the reviewer excludes them."""
    participant = record.participant
    assert participant is not None  # called for a submission matched to a completed participant
    subject = submission_subject(record)
    answers = participant.responses.filter(is_attention_check=False).count()
    completed = f"completed the study in Parity ({answers} answers"
    completed += f", {participant.completed_at:%Y-%m-%d %H:%M} UTC)" if participant.completed_at else ")"
    if record.status == "TIMED-OUT":
        reward = money(prolific_study.study.reward_pence, prolific_study.currency)
        flag_once(
            prolific_study,
            ProlificFlag.Kind.COMPLETED_TIMED_OUT,
            subject,
            f"{participant.pseudonym} {completed}, but Prolific timed out {subject}: Prolific pays nothing for "
            f"it. The reward, {reward}, is offered as a bonus under Pay the bonuses owed, if the review "
            "would approve them",
            participant,
            record,
        )
    elif record.status == "RETURNED":
        flag_once(
            prolific_study,
            ProlificFlag.Kind.COMPLETED_RETURNED,
            subject,
            f"{participant.pseudonym} {completed}, then returned {subject} on Prolific, which cancels their "
            "reward: nothing is paid. Their answers stay in the results unless you exclude them",
            participant,
            record,
        )
    else:
        # Prolific moved it on (a timed-out participant who submitted after all): the flag is settled
        ProlificFlag.objects.filter(
            prolific_study=prolific_study,
            kind__in=[ProlificFlag.Kind.COMPLETED_TIMED_OUT, ProlificFlag.Kind.COMPLETED_RETURNED],
            subject=subject,
        ).update(resolved=True)


#: how many times an approval is sent (the review's bulk approval, then the syncs' approvals one by one)
#: before Parity stops sending it and flags it
APPROVAL_SENDS = 3


def approvals_resend(*, prolific_study: ProlificStudy, client: ProlificClient) -> int:
    """Send again each approval Prolific accepted but has not applied: Parity sent it, and Prolific still
    lists the submission as awaiting review. A bulk approval's success means the request was accepted
    ("Bulk approve in progress", https://docs.prolific.com/api-reference/submissions/bulk-approve-submissions),
    not that each submission was approved. It is sent again as one submission's approval, which Prolific
    documents as idempotent ("if you make the same request twice, the second request will be ignored",
    https://docs.prolific.com/api-reference/submissions/transition-submission), so a send that crosses
    Prolific applying the first never pays twice. After `APPROVAL_SENDS` sends it is flagged instead.
    Returns how many were sent again."""
    sent_not_applied = ProlificSubmission.objects.filter(
        prolific_study=prolific_study,
        decision=ProlificSubmission.Decision.APPROVE,
        decision_sent_at__isnull=False,
        status="AWAITING REVIEW",
        participant__erased_at__isnull=True,
    ).select_related("participant")
    resent = 0
    for record in sent_not_applied.order_by("pk"):
        if record.approval_sends >= APPROVAL_SENDS:
            assert record.decision_sent_at is not None  # the filter above
            who = record.participant.pseudonym if record.participant is not None else "no participant"
            flag_once(
                prolific_study,
                ProlificFlag.Kind.APPROVAL_NOT_APPLIED,
                submission_subject(record),
                f"Parity approved {submission_subject(record)} ({who}) {record.approval_sends} times, the first "
                f"at {record.decision_sent_at:%Y-%m-%d %H:%M} UTC, and Prolific accepted each, but it still lists "
                "the submission as awaiting review: approve it on Prolific, which otherwise approves it by itself "
                "once its review period has passed",
                record.participant,
                record,
            )
            continue
        answer = client.submission_transition(record.submission_id, "APPROVE")
        fields: dict = {"approval_sends": F("approval_sends") + 1}
        # the answer is the submission as Prolific holds it now
        # (https://docs.prolific.com/api-reference/submissions/transition-submission): an approval it
        # applied shows as approved at once, not only after the next sync
        if isinstance(answer, dict) and isinstance(answer.get("status"), str) and answer["status"]:
            fields["status"] = answer["status"]
        ProlificSubmission.objects.filter(pk=record.pk).update(**fields)
        resent += 1
    # applied at last: the flag is settled
    ProlificFlag.objects.filter(
        prolific_study=prolific_study, kind=ProlificFlag.Kind.APPROVAL_NOT_APPLIED, resolved=False
    ).exclude(submission__status="AWAITING REVIEW").update(resolved=True)
    return resent
