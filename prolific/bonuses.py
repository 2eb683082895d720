"""Bonuses paid exactly once, whatever the retries, crashes and double clicks.

A local ledger drives it. Each participant gets at most one `BonusLine` (a database constraint). A
batch moves computed → created (Prolific's bulk id stored) → paying → paid, each step committed
before the next call to Prolific:

* computed: creating the bulk bonus happens under the batch's row lock; a crash before its id is
  stored leaves, at worst, an unpaid draft bonus on Prolific, and the retry creates another.
* created: the retry pays *that* bulk; it never creates a second.
* paying is committed just before the pay call. Paying is not idempotent on Prolific, so a batch
  found `paying` (the call went out, its answer was lost) is never paid again automatically: the
  researcher checks on Prolific and confirms (`bonus_batch_confirm`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from prolific.client import ProlificClient, ProlificError
from prolific.currency import money
from prolific.models import BonusBatch, BonusLine, ProlificStudy, ProlificSubmission
from prolific.services import ProlificStudyError, client_default
from studies.models import Participant
from studies.participants.quality import FLAGS, participant_flags

#: submissions whose participant may receive a bonus
BONUSABLE = ("AWAITING REVIEW", "APPROVED")
TIMED_OUT = "TIMED-OUT"
UNFINISHED = (BonusBatch.State.COMPUTED, BonusBatch.State.CREATED, BonusBatch.State.PAYING)


@dataclass(frozen=True)
class Owed:
    """One participant's bonus: `pence` in all, of which `reward_pence` is the study's reward owed to a
    completer whose submission Prolific timed out (Prolific pays nothing for it)."""

    participant: Participant
    pence: int
    reward_pence: int = 0


def bonus_amounts(prolific_study: ProlificStudy) -> list[Owed]:
    """What each completed participant with a submission and no bonus yet is owed: by the study's rule,
    `bonus_per_correct_pence` per correct answer (attention checks not counted) to kept participants
    whose submission was sent in; and the study's reward to a completer whose submission Prolific timed
    out, when the review would approve them (`prolific.services.completer_reconcile`)."""
    from prolific.review import decision_for  # the review's rule: review imports the services, as this does

    rate = prolific_study.bonus_per_correct_pence
    study = prolific_study.study
    submissions = ProlificSubmission.objects.filter(prolific_study=prolific_study, participant__isnull=False)
    sent_in = set(submissions.filter(status__in=BONUSABLE).values_list("participant_id", flat=True))
    timed_out = set(submissions.filter(status=TIMED_OUT).values_list("participant_id", flat=True)) - sent_in
    participants = (
        Participant.objects.filter(
            study=prolific_study.study_id,
            status=Participant.Status.COMPLETED,
            erased_at__isnull=True,  # no PID left to pay
            pk__in=sent_in | timed_out,
            bonus__isnull=True,
        )
        .annotate(n_correct=Count("responses", filter=Q(responses__correct=True, responses__is_attention_check=False)))
        .order_by("pk")
    )
    owed = []
    for participant in participants:
        reward = 0
        if participant.pk in timed_out:
            taken = decision_for(participant, study, prolific_study.reject_excluded)
            reward = study.reward_pence if taken and taken[0] == ProlificSubmission.Decision.APPROVE else 0
        per_correct = participant.n_correct * rate if not participant.excluded else 0
        if reward + per_correct:
            owed.append(Owed(participant, reward + per_correct, reward))
    return owed


def csv_bonuses(batch: BonusBatch) -> str:
    """Prolific's "participant_id,amount" lines, amounts in pounds. A participant erased after the batch
    was computed has no PID left to pay: their line is left out (paid by hand on Prolific, if at all)."""
    lines = batch.lines.filter(participant__erased_at__isnull=True).order_by("pk")
    return "".join(f"{line.prolific_pid},{line.amount_pence / 100:.2f}\n" for line in lines)


def bonus_batch_compute(*, prolific_study: ProlificStudy) -> BonusBatch | None:
    """The batch to pay: the unfinished one if there is one, else a new one of everyone owed a bonus
    (None if no one is). Under the Prolific study's row lock, so two clicks compute one batch."""
    with transaction.atomic():
        ProlificStudy.objects.select_for_update().only("pk").get(pk=prolific_study.pk)
        batch = prolific_study.bonus_batches.filter(state__in=UNFINISHED).first()
        if batch is not None:
            return batch
        amounts = bonus_amounts(prolific_study)
        if not amounts:
            return None
        batch = BonusBatch.objects.create(prolific_study=prolific_study, total_pence=sum(row.pence for row in amounts))
        BonusLine.objects.bulk_create(
            [
                BonusLine(
                    batch=batch,
                    participant=row.participant,
                    amount_pence=row.pence,
                    reward_pence=row.reward_pence,
                    prolific_pid=row.participant.prolific_pid,
                )
                for row in amounts
            ]
        )
        return batch


def _create_bulk(batch: BonusBatch, client: ProlificClient) -> BonusBatch | None:
    """The batch created on Prolific; None when every participant in it was erased since it was
    computed: nothing can be paid, nothing was sent, so the batch goes (an empty list would be
    refused by Prolific at every try and hold up every later bonus of the study)."""
    with transaction.atomic():
        batch = BonusBatch.objects.select_for_update().select_related("prolific_study").get(pk=batch.pk)
        if batch.state != BonusBatch.State.COMPUTED:
            return batch
        lines = csv_bonuses(batch)
        if not lines:
            batch.delete()
            return None
        answer = client.bonus_create(batch.prolific_study.prolific_id, lines)
        if not isinstance(answer, dict) or not answer.get("id"):
            raise ProlificError("Prolific created no bulk bonus (its answer names no id)")
        batch.bulk_id, batch.state, batch.created_at = str(answer["id"]), BonusBatch.State.CREATED, timezone.now()
        batch.save(update_fields=["bulk_id", "state", "created_at"])
        return batch


def _pay_bulk(batch: BonusBatch, client: ProlificClient) -> BonusBatch:
    """Claim the batch (created → paying) and pay it. A 429 is Prolific refusing under load, before
    paying (https://docs.prolific.com/documentation/core-concepts/managing-high-loads): the batch goes
    back to created and, after the client's back-off, is claimed again, which reads its state anew, so a
    batch another run paid or a researcher confirmed meanwhile is never paid twice. Nothing else is
    tried again: paying is not idempotent (https://docs.prolific.com/api-reference/bonuses/pay-bonus-payments)
    and Prolific publishes no call that reads a bulk bonus's state."""
    attempt = 0
    while True:
        with transaction.atomic():
            claimed = BonusBatch.objects.filter(pk=batch.pk, state=BonusBatch.State.CREATED).update(
                state=BonusBatch.State.PAYING
            )
        if not claimed:  # someone else is paying it, or has paid it
            return BonusBatch.objects.get(pk=batch.pk)
        try:
            client.bonus_pay(batch.bulk_id)
        except ProlificError as exc:
            if not exc.sent:  # refused or never delivered: nothing was paid, the next run pays it
                BonusBatch.objects.filter(pk=batch.pk).update(state=BonusBatch.State.CREATED, note=str(exc))
                if exc.rate_limited and attempt < client.retries:
                    client.wait(attempt)
                    attempt += 1
                    continue
                raise
            BonusBatch.objects.filter(pk=batch.pk).update(note=str(exc))
            raise ProlificError(
                f"{exc}. Bulk bonus {batch.bulk_id} may have been paid: check it on Prolific, then "
                "confirm with `manage.py prolific bonuses STUDY --confirm paid` (or `--confirm unpaid` "
                "to pay it again)",
                status=exc.status,
                sent=True,
            ) from None
        BonusBatch.objects.filter(pk=batch.pk).update(state=BonusBatch.State.PAID, paid_at=timezone.now(), note="")
        return BonusBatch.objects.get(pk=batch.pk)


@dataclass(frozen=True)
class PlannedBonus:
    pseudonym: str
    pence: int
    amount: str  # in the workspace's currency
    flags: tuple[str, ...] = ()
    caution: str = ""  # why paying it asks for the reviewer's explicit confirmation
    excluded: bool = False
    #: what the bonus pays besides the study's rule ("" when nothing): the reward of a timed-out completer
    note: str = ""


@dataclass(frozen=True)
class BonusPlan:
    """What `prolific_bonuses_pay` would pay now: the unfinished batch's lines if there is one (it is
    paid as it was computed), else everyone owed a bonus."""

    lines: list[PlannedBonus]
    total_pence: int
    total: str
    currency: str
    batch_state: str  # the unfinished batch's state, "" when a new batch would be computed

    @property
    def cautions(self) -> list[PlannedBonus]:
        return [line for line in self.lines if line.caution]

    @property
    def fingerprint(self) -> str:
        """What was shown, as a digest: each line's amount, its person's exclusion and flags, the
        caution and the note it showed; a payment confirmed on a preview pays only if it would still show exactly
        this (someone excluded since would pay what the reviewer never saw cautioned)."""
        shown = sorted(
            (line.pseudonym, line.pence, line.excluded, list(line.flags), line.caution, line.note)
            for line in self.lines
        )
        return hashlib.sha256(json.dumps([self.batch_state, shown]).encode()).hexdigest()


class BonusesChanged(ProlificStudyError):
    """The bonuses differ from those previewed: nothing was paid."""


def bonus_plan(*, prolific_study: ProlificStudy) -> BonusPlan:
    """The bonuses the next payment would pay, with each one's flags. Writes nothing."""
    currency = prolific_study.currency
    batch = prolific_study.bonus_batches.filter(state__in=UNFINISHED).first()
    if batch is not None:
        owed = [
            Owed(line.participant, line.amount_pence, line.reward_pence)
            for line in batch.lines.select_related("participant")
        ]
    else:
        owed = bonus_amounts(prolific_study)
    flagged = participant_flags(Participant.objects.filter(pk__in=[row.participant.pk for row in owed]))
    lines = []
    for row in sorted(owed, key=lambda row: row.participant.pk):
        participant = row.participant
        flags = flagged.get(participant.pk, [])
        said = []
        if participant.excluded and not row.reward_pence:
            said.append("excluded from the results since the bonus was computed")
        if flags:
            said.append("flagged: " + ", ".join(FLAGS[name] for name in flags))
        note = (
            f"includes the reward, {money(row.reward_pence, currency)}: completed here, timed out on Prolific"
            if row.reward_pence
            else ""
        )
        lines.append(
            PlannedBonus(
                participant.pseudonym,
                row.pence,
                money(row.pence, currency),
                tuple(flags),
                caution="; ".join(said),
                excluded=participant.excluded,
                note=note,
            )
        )
    total = sum(line.pence for line in lines)
    return BonusPlan(
        lines=lines,
        total_pence=total,
        total=money(total, currency),
        currency=currency or "",
        batch_state=batch.state if batch is not None else "",
    )


@dataclass(frozen=True)
class BonusResult:
    batch: BonusBatch | None
    paid_now: bool


def prolific_bonuses_pay(
    *, prolific_study: ProlificStudy, client: ProlificClient | None = None, expected: str | None = None
) -> BonusResult:
    """Compute, create and pay the study's bonuses, continuing from wherever a previous run stopped.
    With `expected` (a `BonusPlan`'s fingerprint, from a preview) it pays nothing unless it would
    pay exactly that."""
    client = client_default(client)
    if expected is not None and bonus_plan(prolific_study=prolific_study).fingerprint != expected:
        raise BonusesChanged("the bonuses changed since the preview (nothing was paid): look at them again")
    batch = bonus_batch_compute(prolific_study=prolific_study)
    if batch is None:
        return BonusResult(None, paid_now=False)
    if batch.state == BonusBatch.State.PAYING:
        # another run is paying it this moment, or a run's pay call went out and its answer was lost
        raise ProlificStudyError(
            f"bulk bonus {batch.bulk_id} is being paid, or its pay answer was lost: look again "
            "in a minute; if it is still not paid, check it on Prolific, then confirm with "
            "`--confirm paid` or `--confirm unpaid`"
        )
    batch = _create_bulk(batch, client)
    if batch is None:
        return BonusResult(None, paid_now=False)
    if batch.state == BonusBatch.State.CREATED:
        batch = _pay_bulk(batch, client)
        return BonusResult(batch, paid_now=batch.state == BonusBatch.State.PAID)
    return BonusResult(batch, paid_now=False)


def bonus_batch_confirm(*, prolific_study: ProlificStudy, paid: bool) -> BonusBatch:
    """The researcher checked on Prolific a batch left `paying`: paid (done) or not (pay it again)."""
    batch = prolific_study.bonus_batches.filter(state=BonusBatch.State.PAYING).first()
    if batch is None:
        raise ProlificStudyError("no bonus is waiting for confirmation")
    batch.state = BonusBatch.State.PAID if paid else BonusBatch.State.CREATED
    batch.paid_at = timezone.now() if paid else None
    batch.note = "confirmed paid on Prolific" if paid else "confirmed not paid on Prolific"
    batch.save(update_fields=["state", "paid_at", "note"])
    return batch
