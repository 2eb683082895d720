"""Reviewing a study's submissions on Prolific: one decision per submission, stored before it is sent.

Completed, kept participants are approved in bulk. Excluded ones follow the study's policy: they are
rejected, with the stored reason, only where Prolific's rules allow it (several failed attention
checks on studies of 5 minutes or more, one on shorter ones); otherwise they are approved and
flagged. A decision once stored is the only one ever sent for that submission, so a retry after an
error sends the same decision again and never the other.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import ngettext

from prolific.client import BULK_APPROVE_MAX, ProlificClient, chunks
from prolific.models import BonusLine, ProlificFlag, ProlificStudy, ProlificSubmission
from prolific.reconcile import submission_subject
from prolific.services import ProlificStudyError, client_default, prolific_sync
from studies.models import Participant, Study
from studies.participants.quality import FLAGS, participant_flags

REJECTION_CATEGORY = "FAILED_CHECK"
#: Prolific asks for a rejection message of at least this many characters
MESSAGE_MIN = 100
#: what a rejection message closes with while it is shorter than Prolific accepts, each sentence once
CLOSINGS = (
    "Thank you for taking part.",
    "If you think this decision is wrong, please write to us through Prolific's messages.",
    "Prolific's rules allow a rejection for failed attention checks such as these.",
)
#: studies this long or longer may reject only for failing several attention checks
LONG_STUDY_MINUTES = 5


def failures_needed(study: Study) -> int:
    return 2 if study.estimated_minutes >= LONG_STUDY_MINUTES else 1


def rejection_allowed(participant: Participant, study: Study) -> bool:
    return participant.excluded and participant.attention_failures >= failures_needed(study)


def rejection_message(participant: Participant) -> str:
    """The message of a rejection, stating the attention checks failed as they stand when the review
    decides (an automatic exclusion's reason was written at the threshold and may say fewer)."""
    failures = participant.attention_failures
    failed = ngettext("failed %(n)d attention check", "failed %(n)d attention checks", failures) % {"n": failures}
    message = (
        f"Your submission was not accepted: you {failed}. The study's instructions "
        "asked for careful answers, and its attention checks said plainly what to answer."
    )
    # Prolific refuses a shorter message: closing sentences are added, each once, until it is long enough
    for closing in CLOSINGS:
        if len(message) >= MESSAGE_MIN:
            break
        message += " " + closing
    return message


def reward_paid_by_bonus(participant: Participant) -> bool:
    """Whether the study's reward went to them as a bonus, Prolific having timed them out after they
    completed (`prolific.bonuses`): should Prolific later list that submission as awaiting review, an
    approval would pay the reward again, so the review leaves it to be decided by hand."""
    return BonusLine.objects.filter(participant=participant, reward_pence__gt=0).exists()


@dataclass(frozen=True)
class ReviewResult:
    approved: int
    rejected: int
    approved_flagged: int  # excluded, but rejection is not allowed: approved and flagged
    left: int  # sent in on Prolific but not finished in Parity, or no participant: left for review by hand
    already_sent: int


def decision_for(participant: Participant | None, study: Study, policy_rejects: bool) -> tuple[str, str] | None:
    """(decision, its message or reason) the review takes for a submission of `participant`; None when
    it is left for review by hand (no participant, or one not finished in Parity)."""
    if participant is None or participant.status != Participant.Status.COMPLETED:
        return None
    if reward_paid_by_bonus(participant):
        return None  # approving would pay the reward a second time
    if not participant.excluded:
        return ProlificSubmission.Decision.APPROVE, ""
    if policy_rejects and rejection_allowed(participant, study):
        return ProlificSubmission.Decision.REJECT, rejection_message(participant)
    return ProlificSubmission.Decision.APPROVE, (
        f"excluded ({participant.exclusion_reason or 'no reason given'}), approved: "
        + (
            "the study approves excluded participants"
            if not policy_rejects
            else f"Prolific allows rejection only for at least {failures_needed(study)} failed attention checks "
            f"on a study of {study.estimated_minutes} minutes"
        )
    )


def _decide(record: ProlificSubmission, study: Study, policy_rejects: bool) -> str | None:
    taken = decision_for(record.participant, study, policy_rejects)
    if taken is None:
        return None
    record.decision, record.decision_reason = taken
    record.decided_at = timezone.now()
    record.save(update_fields=["decision", "decision_reason", "decided_at"])
    return record.decision


def decisions_take(*, prolific_study: ProlificStudy) -> tuple[int, int]:
    """Store a decision for each submission awaiting review that has none; returns (decided, left)."""
    study = prolific_study.study
    decided = left = 0
    with transaction.atomic():
        pending = (
            ProlificSubmission.objects.select_for_update(of=("self",))
            .select_related("participant")
            .filter(prolific_study=prolific_study, status="AWAITING REVIEW", decision="")
        )
        for record in pending:
            decision = _decide(record, study, prolific_study.reject_excluded)
            if decision is None:
                left += 1
                if record.participant is not None:
                    ProlificFlag.objects.get_or_create(
                        prolific_study=prolific_study,
                        kind=ProlificFlag.Kind.UNFINISHED,
                        subject=submission_subject(record),
                        defaults={
                            "participant": record.participant,
                            "submission": record,
                            "detail": (
                                f"{record.participant.pseudonym} was paid the study's reward as a bonus when "
                                "Prolific had timed them out, and their submission now awaits review: approving "
                                "it would pay the reward again. Review it by hand"
                                if reward_paid_by_bonus(record.participant)
                                else f"{record.participant.pseudonym} sent in a submission on Prolific but is "
                                f"{record.participant.get_status_display().lower()} in Parity: review it by hand"
                            ),
                        },
                    )
                continue
            decided += 1
            participant = record.participant
            assert participant is not None  # `decision_for` decides for a participant only
            if record.decision == ProlificSubmission.Decision.APPROVE and participant.excluded:
                ProlificFlag.objects.get_or_create(
                    prolific_study=prolific_study,
                    kind=ProlificFlag.Kind.EXCLUDED_APPROVED,
                    subject=participant.pseudonym,
                    defaults={"participant": participant, "detail": record.decision_reason},
                )
    return decided, left


@dataclass(frozen=True)
class PlannedDecision:
    """One decision the review would send: to whom, which, with what message, and why it asks for a look."""

    submission_pk: int
    pseudonym: str
    decision: str
    message: str  # the rejection's message, or why an excluded participant is approved ("" for a plain approval)
    stored: bool  # taken by an earlier review and not sent yet: it is sent as it was taken
    attention_failures: int
    flags: tuple[str, ...] = ()
    #: why sending it asks for the reviewer's explicit confirmation ("" when it does not)
    caution: str = ""


@dataclass(frozen=True)
class ReviewPlan:
    decisions: list[PlannedDecision]
    left: list[str] = field(default_factory=list)  # pseudonyms (or "submission #n") left for review by hand

    @property
    def approvals(self) -> list[PlannedDecision]:
        return [d for d in self.decisions if d.decision == ProlificSubmission.Decision.APPROVE]

    @property
    def rejections(self) -> list[PlannedDecision]:
        return [d for d in self.decisions if d.decision == ProlificSubmission.Decision.REJECT]

    @property
    def cautions(self) -> list[PlannedDecision]:
        return [d for d in self.decisions if d.caution]

    @property
    def fingerprint(self) -> str:
        """What was shown, as a digest: the review sends only if it would still send exactly this."""
        shown = sorted((d.submission_pk, d.decision, d.message, list(d.flags), d.caution) for d in self.decisions)
        return hashlib.sha256(json.dumps(shown).encode()).hexdigest()


class ReviewChanged(ProlificStudyError):
    """The decisions differ from those previewed (a submission came in, an exclusion changed): nothing was sent."""


def _caution(participant: Participant, decision: str, study: Study, flags: list[str]) -> str:
    if decision == ProlificSubmission.Decision.REJECT:
        return "" if participant.excluded else "rejected by an earlier review, included in the results since"
    if participant.excluded:
        return ""  # approved as the policy asks for excluded participants (flagged for the researcher)
    said = []
    if participant.attention_failures >= failures_needed(study):
        said.append(f"failed {participant.attention_failures} attention checks but is included")
    if flags:
        said.append("flagged: " + ", ".join(FLAGS[name] for name in flags))
    return "; ".join(said)


def review_plan(*, prolific_study: ProlificStudy) -> ReviewPlan:
    """What `prolific_review` would send now, from what Parity holds (pull first to see Prolific's
    latest): the decisions already taken and not sent, and those it would take. Writes nothing."""
    study = prolific_study.study
    awaiting = (
        ProlificSubmission.objects.filter(prolific_study=prolific_study, status="AWAITING REVIEW")
        .filter(decision_sent_at__isnull=True)
        .exclude(participant__erased_at__isnull=False)
        .select_related("participant")
        .order_by("pk")
    )
    records = list(awaiting)
    flagged = participant_flags(
        Participant.objects.filter(pk__in=[r.participant_id for r in records if r.participant_id])
    )
    decisions, left = [], []
    for record in records:
        participant = record.participant
        taken = (record.decision, record.decision_reason) if record.decision else None
        taken = taken or decision_for(participant, study, prolific_study.reject_excluded)
        if taken is None or participant is None:
            left.append(participant.pseudonym if participant is not None else f"submission #{record.pk}")
            continue
        flags = flagged.get(participant.pk, [])
        decisions.append(
            PlannedDecision(
                submission_pk=record.pk,
                pseudonym=participant.pseudonym,
                decision=taken[0],
                message=taken[1],
                stored=bool(record.decision),
                attention_failures=participant.attention_failures,
                flags=tuple(flags),
                caution=_caution(participant, taken[0], study, flags),
            )
        )
    return ReviewPlan(decisions=decisions, left=left)


def prolific_review(
    *, prolific_study: ProlificStudy, client: ProlificClient | None = None, expected: str | None = None
) -> ReviewResult:
    """Pull the submissions, decide those awaiting review, and send the decisions not yet sent.

    Approvals go in bulk calls of submission ids, at most `BULK_APPROVE_MAX` each, one after the
    other (https://docs.prolific.com/documentation/core-concepts/managing-high-loads); each
    rejection in its own call. What was sent is marked as it is sent; an error stops the review with
    the remaining decisions stored and unsent, for the next run. With `expected` (a `ReviewPlan`'s
    fingerprint, from a preview) it sends nothing unless, after the pull, it would send exactly that."""
    client = client_default(client)
    prolific_sync(prolific_study=prolific_study, client=client)
    if expected is not None and review_plan(prolific_study=prolific_study).fingerprint != expected:
        raise ReviewChanged("the decisions changed since the preview (nothing was sent): look at them again")
    _, left = decisions_take(prolific_study=prolific_study)
    # an erased participant's submission id is gone: their decision can only be taken on Prolific, by hand
    unsent = ProlificSubmission.objects.filter(
        prolific_study=prolific_study, decision_sent_at__isnull=True, participant__erased_at__isnull=True
    ).exclude(decision="")
    # Prolific moved them on by itself (e.g. auto-approved after 21 days): nothing to send
    already = unsent.exclude(status="AWAITING REVIEW").update(decision_sent_at=timezone.now())
    approvals = list(unsent.filter(status="AWAITING REVIEW", decision=ProlificSubmission.Decision.APPROVE))
    rejections = list(unsent.filter(status="AWAITING REVIEW", decision=ProlificSubmission.Decision.REJECT))
    flagged = sum(1 for record in approvals if record.decision_reason)
    by_id = {record.submission_id: record.pk for record in approvals}
    for chunk in chunks(list(by_id), BULK_APPROVE_MAX):
        client.submissions_bulk_approve(chunk)
        # accepted, not yet applied (Prolific applies a bulk approval later): the next sync reads the status
        ProlificSubmission.objects.filter(pk__in=[by_id[submission_id] for submission_id in chunk]).update(
            status="APPROVED", decision_sent_at=timezone.now(), approval_sends=F("approval_sends") + 1
        )
    for record in rejections:
        client.submission_transition(
            record.submission_id, "REJECT", message=record.decision_reason, rejection_category=REJECTION_CATEGORY
        )
        ProlificSubmission.objects.filter(pk=record.pk).update(status="REJECTED", decision_sent_at=timezone.now())
    return ReviewResult(
        approved=len(approvals) - flagged,
        rejected=len(rejections),
        approved_flagged=flagged,
        left=left,
        already_sent=already,
    )
