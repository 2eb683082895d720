"""Prolific: the study there, its submissions, webhook deliveries, flags and bonuses.

Written only by the services of this app. The tables keep the names they had when these models lived
in the studies app (migration 0001 here takes them over without touching the database).
"""

from __future__ import annotations

from django.db import models

from prolific.currency import money
from studies.models import Participant, Study


class RecruitTarget(models.TextChoices):
    CI_WIDTH = "ci_width", "95% CI of human accuracy at most this wide (points)"
    PER_UNIT = "per_unit", "completions in every unit"


class RecruitRule(models.TextChoices):
    """How a CI-width target is met (`parity.stats.recruitment.RULES`)."""

    PLANNED_LOOKS = "planned_looks", "planned looks (a fixed-width interval; stop only at the looks)"
    SEQUENCE = "confidence_sequence", "confidence sequence (valid whenever the study stops)"


class ProlificStudy(models.Model):
    """The Prolific study that recruits for a Parity study, and the policies Parity applies to it."""

    class Status(models.TextChoices):
        """Every status of https://docs.prolific.com/api-reference/studies/the-study-object."""

        UNPUBLISHED = "UNPUBLISHED", "Draft on Prolific"
        PUBLISHING = "PUBLISHING", "Being published"
        SCHEDULED = "SCHEDULED", "Scheduled to publish"
        ACTIVE = "ACTIVE", "Published (recruiting)"
        PAUSED = "PAUSED", "Paused"
        AWAITING_REVIEW = "AWAITING REVIEW", "Stopped, awaiting review"
        COMPLETED = "COMPLETED", "Completed"

    study = models.OneToOneField(Study, on_delete=models.CASCADE, related_name="prolific")
    prolific_id = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.UNPUBLISHED)
    places = models.PositiveIntegerField(help_text="total_available_places on Prolific (only ever raised)")
    reject_excluded = models.BooleanField(
        default=True,
        help_text="reject excluded participants where Prolific's rules allow it (several failed "
        "attention checks on studies of 5 minutes or more, one on shorter ones); otherwise approve and flag",
    )
    bonus_per_correct_pence = models.PositiveIntegerField(
        default=0,
        help_text="bonus per correct answer (attention checks not counted), in the smallest unit of the "
        "workspace's currency (pence, cents); 0: no bonus",
    )
    currency = models.CharField(
        max_length=3,
        blank=True,
        help_text="the Prolific workspace's currency (GBP, USD), read when the study was created there: "
        "every amount is in its smallest unit",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    synced_at = models.DateTimeField(null=True, blank=True, help_text="the last pull of the submissions")
    status_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="when Prolific said `status`: the study last read back, or the sending time of the webhook "
        "delivery that set it (a delivery sent before this moves nothing)",
    )
    # recruiting until precise (`manage.py prolific recruit`): no target kind, no recruiting
    target_kind = models.CharField(
        max_length=10,
        blank=True,
        choices=RecruitTarget.choices,
        help_text="recruit until this target is met, then stop the study",
    )
    target_value = models.FloatField(null=True, blank=True, help_text="CI width in points, or completions per unit")
    target_step = models.PositiveIntegerField(
        default=10, help_text="places added per raise (the confidence sequence and per-unit targets)"
    )
    target_rule = models.CharField(
        max_length=20,
        choices=RecruitRule.choices,
        default=RecruitRule.PLANNED_LOOKS,
        help_text="how a CI-width target is met: planned looks need fewer participants but hold only if the study "
        "stops at its looks; the confidence sequence holds whenever it stops",
    )
    max_spend_pence = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="most spent on rewards (reward × places), in the smallest unit of the workspace's currency "
        "(pence, cents); Prolific's fee is on top",
    )

    class Meta:
        db_table = "studies_prolificstudy"
        verbose_name = "Prolific study"
        verbose_name_plural = "Prolific studies"

    def __str__(self) -> str:
        return f"{self.study.name} on Prolific ({self.prolific_id})"


class ProlificSubmission(models.Model):
    """A submission as Prolific last reported it, and the one review decision Parity took on it."""

    class Decision(models.TextChoices):
        APPROVE = "approve", "Approve"
        REJECT = "reject", "Reject"

    prolific_study = models.ForeignKey(ProlificStudy, on_delete=models.CASCADE, related_name="submissions")
    submission_id = models.CharField(max_length=64, unique=True)
    prolific_pid = models.CharField(max_length=64)
    participant = models.ForeignKey(
        Participant, on_delete=models.SET_NULL, null=True, blank=True, related_name="prolific_submissions"
    )
    status = models.CharField(max_length=20)
    study_code = models.CharField(max_length=40, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    # one decision per submission, stored before it is sent: a retry sends the same one again
    decision = models.CharField(max_length=10, choices=Decision.choices, blank=True)
    decision_reason = models.TextField(blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_sent_at = models.DateTimeField(null=True, blank=True)
    #: how many times the approval was sent: a bulk approval is accepted and applied later, so one
    #: Prolific still lists as awaiting review is sent again by the next sync, up to a limit
    approval_sends = models.PositiveSmallIntegerField(default=0)

    #: Prolific's SESSION_ID is the submission's id: both name the person (`studies.participants.identity`)
    IDENTITY_FIELDS: tuple[str, ...] = ("submission_id", "prolific_pid")

    class Meta:
        db_table = "studies_prolificsubmission"
        ordering = ["prolific_study_id", "id"]
        indexes = [
            # serves matching Prolific's submissions to Parity's participants
            models.Index(fields=["prolific_study", "prolific_pid"], name="prolific_submission_pid"),
        ]

    def __str__(self) -> str:
        who = self.participant.pseudonym if self.participant is not None else "no participant"
        return f"{self.prolific_study.study.name} / {who}: {self.status}"


class RecruitmentPoint(models.Model):
    """One step of recruiting until precise: where the study stood and what Parity did."""

    prolific_study = models.ForeignKey(ProlificStudy, on_delete=models.CASCADE, related_name="recruitment_points")
    at = models.DateTimeField(auto_now_add=True)
    completed = models.PositiveIntegerField(help_text="completed participants (excluded ones too)")
    kept = models.PositiveIntegerField(help_text="completed, non-excluded participants (the CI's)")
    ci_width = models.FloatField(null=True, blank=True, help_text="95% CI width of human accuracy, points")
    places = models.PositiveIntegerField(help_text="places on Prolific after the step")
    action = models.CharField(max_length=10)
    reason = models.TextField()

    class Meta:
        db_table = "studies_recruitmentpoint"
        ordering = ["prolific_study_id", "at", "id"]

    def __str__(self) -> str:
        return f"{self.prolific_study.study.name} at {self.at:%Y-%m-%d %H:%M}: {self.action}"


class ProlificEvent(models.Model):
    """A webhook delivery, stored before it is acknowledged. Its event id (Prolific's, the same across
    Prolific's retries) and the digest of what its signature covers each make a replay a no-op."""

    event_id = models.CharField(max_length=100, unique=True)
    # the event id arrives in a header the signature does not cover: a captured delivery sent again
    # under a new id is recognised by this instead (empty for deliveries stored before it existed)
    signed_digest = models.CharField(
        max_length=64,
        unique=True,
        null=True,
        blank=True,
        help_text="SHA-256 of the signed timestamp and body: the same signed delivery is applied once",
    )
    event_type = models.CharField(max_length=60)
    payload = models.JSONField()
    received_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    #: Prolific's `X-Timestamp`, when the event was sent: deliveries arrive in any order
    #: (https://docs.prolific.com/api-reference/webhooks/handling-event-order-with-x-timestamp)
    sent_at = models.DateTimeField(null=True, blank=True)
    superseded = models.BooleanField(
        default=False, help_text="sent before what Parity already had from Prolific: recorded, not applied"
    )
    error = models.TextField(blank=True, help_text="why applying it failed (the next sync applies it again)")

    #: a submission's delivery names its submission and the participant's PID (`studies.participants.identity`)
    IDENTITY_FIELDS: tuple[str, ...] = ("payload",)

    class Meta:
        db_table = "studies_prolificevent"
        ordering = ["-received_at"]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id}"


class ProlificHookSecret(models.Model):
    """A webhook signing secret made by `manage.py prolific hooks`: accepted until its `retired_at`."""

    secret = models.CharField(max_length=200)
    workspace_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    retired_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="replaced on Prolific by a newer secret: deliveries signed with this one are accepted until then",
    )

    class Meta:
        db_table = "studies_prolifichooksecret"

    def __str__(self) -> str:
        return f"webhook secret of {self.workspace_id or 'Prolific'} ({self.created_at:%Y-%m-%d})"


class ProlificFlag(models.Model):
    """Something a researcher should look at: Prolific and Parity disagree, or a decision was softened."""

    class Kind(models.TextChoices):
        NO_PARTICIPANT = "no_participant", "Submission with no Parity participant"
        NO_SUBMISSION = "no_submission", "Parity completion with no Prolific submission"
        UNFINISHED = "unfinished", "Submitted on Prolific, not finished in Parity (left for review by hand)"
        EXCLUDED_APPROVED = "excluded_approved", "Excluded, but approved (rejection not allowed)"
        UNKNOWN_STUDY = "unknown_study", "Webhook for a study Parity does not know"
        BUDGET_REACHED = "budget_reached", "Budget reached before the recruitment target"
        COMPLETED_TIMED_OUT = "completed_timed_out", "Completed in Parity, timed out on Prolific (owed the reward)"
        COMPLETED_RETURNED = "completed_returned", "Completed in Parity, then returned on Prolific"
        APPROVAL_NOT_APPLIED = "approval_unapplied", "Approval accepted by Prolific but not applied"

    prolific_study = models.ForeignKey(
        ProlificStudy, on_delete=models.CASCADE, null=True, blank=True, related_name="flags"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    #: what the flag is about, in words that name no one (one flag per subject and kind): a participant's
    #: pseudonym, Parity's number of a submission ("submission #12"), the Prolific study
    subject = models.CharField(max_length=100)
    participant = models.ForeignKey(Participant, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    #: the submission a flag is about: its Prolific ids are read through it, by those who may see them
    submission = models.ForeignKey(
        ProlificSubmission, on_delete=models.SET_NULL, null=True, blank=True, related_name="flags"
    )
    detail = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    resolved = models.BooleanField(default=False)

    class Meta:
        db_table = "studies_prolificflag"
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["prolific_study", "kind", "subject"], name="prolific_flag_once")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.subject}"


class BonusBatch(models.Model):
    """One bulk bonus on Prolific. computed → created (Prolific's bulk id stored) → paying → paid.

    A retry continues from the stored state: a created batch is paid, never created again; a batch
    left `paying` (the pay call was sent, its answer lost) is never paid again automatically."""

    class State(models.TextChoices):
        COMPUTED = "computed", "Computed"
        CREATED = "created", "Created on Prolific"
        PAYING = "paying", "Pay sent, answer unknown (check on Prolific)"
        PAID = "paid", "Paid"

    prolific_study = models.ForeignKey(ProlificStudy, on_delete=models.CASCADE, related_name="bonus_batches")
    state = models.CharField(max_length=10, choices=State.choices, default=State.COMPUTED)
    bulk_id = models.CharField(max_length=64, blank=True)
    total_pence = models.PositiveIntegerField()
    computed_at = models.DateTimeField(auto_now_add=True)
    created_at = models.DateTimeField(null=True, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)

    class Meta:
        db_table = "studies_bonusbatch"
        verbose_name_plural = "bonus batches"
        ordering = ["-computed_at"]

    def __str__(self) -> str:
        return (
            f"{self.prolific_study.study.name}: {money(self.total_pence, self.prolific_study.currency)} ({self.state})"
        )


class BonusLine(models.Model):
    """A participant's bonus: at most one per participant, whatever the retries."""

    batch = models.ForeignKey(BonusBatch, on_delete=models.CASCADE, related_name="lines")
    participant = models.OneToOneField(Participant, on_delete=models.CASCADE, related_name="bonus")
    #: the PID as it was when the bonus was computed (the CSV sent to Prolific is built from it)
    prolific_pid = models.CharField(max_length=64)
    amount_pence = models.PositiveIntegerField()
    #: of which the study's reward, paid as a bonus to a completer whose submission Prolific timed out
    #: (Prolific pays nothing for a timed-out submission); 0 for a bonus by the study's rule alone
    reward_pence = models.PositiveIntegerField(default=0)

    #: see `studies.participants.identity`
    IDENTITY_FIELDS: tuple[str, ...] = ("prolific_pid",)

    class Meta:
        db_table = "studies_bonusline"

    def __str__(self) -> str:
        return f"{self.participant}: {money(self.amount_pence, self.batch.prolific_study.currency)}"
