from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from parity import benchmarks, panels
from parity.stats.quality.behaviour import canary_word
from studies.bounds import INTEGER_VALIDATORS, PENCE_VALIDATORS


def _new_link() -> str:
    return secrets.token_urlsafe(9)


def new_code() -> str:
    return secrets.token_hex(4).upper()


_new_code = new_code  # the name the migrations give the codes' default


def _new_canary() -> str:
    return canary_word()


def _new_seed() -> int:
    return secrets.randbelow(10_000)


def _default_answer_floor() -> int:
    return settings.MIN_ANSWER_MS


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        LIVE = "live", "Live"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    class Sampling(models.TextChoices):
        # the methods of `parity.sampling`
        ALL = "all", "All items"
        RANDOM = "random", "A random subset"
        STRATIFIED = "stratified", "A subset stratified by category (in proportion to each category's share)"
        STRATIFIED_EACH = "stratified_each", "A subset stratified by category, at least one of each category"

    class Explanations(models.TextChoices):
        # when participants are asked why they answered as they did (`studies.design.explanations`)
        OFF = "off", "Not asked"
        NTH = "nth", "After every Nth item of a participant's sequence"
        EVERY = "every", "After every item"
        END = "end", "Once, after the last item (a closing question)"

    class PidFormat(models.TextChoices):
        PROLIFIC = "prolific", "Prolific ID: 24 hexadecimal characters"
        TOKEN = "token", "Any ID of 1–64 letters, digits, '-' or '_' (other recruiters, pilots)"

    name = models.CharField(max_length=200, unique=True)
    public_title = models.CharField(
        max_length=200,
        blank=True,
        help_text="what participants see as the study's title (their browser tab, the welcome page); the name is "
        "the researchers' alone. Empty: no title, the tab says only the step and the progress",
    )
    benchmark = models.CharField(max_length=40, choices=benchmarks.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    link = models.SlugField(max_length=40, unique=True, default=_new_link, help_text="the study's URL token")
    group = models.CharField(
        max_length=100,
        blank=True,
        help_text="studies sharing a group refuse a participant who already took one of them",
    )
    design = models.JSONField(default=dict, blank=True, help_text="the benchmark's design settings")
    consent_text = models.TextField()
    instructions_text = models.TextField()
    attention_checks = models.PositiveIntegerField(default=3, help_text="attention checks per participant")
    exclude_at = models.PositiveIntegerField(default=2, help_text="excluded at this many failures (0: never)")
    completion_code = models.CharField(max_length=40, default=new_code)
    failed_attention_code = models.CharField(
        max_length=40,
        default=new_code,
        help_text="given instead of the completion code to participants excluded for failed attention checks",
    )
    no_consent_code = models.CharField(
        max_length=40,
        blank=True,
        help_text="given to those who decline consent or fail the comprehension check, if set",
    )
    estimated_minutes = models.PositiveIntegerField(default=30, validators=INTEGER_VALIDATORS)
    reward_pence = models.PositiveIntegerField(
        default=450, validators=PENCE_VALIDATORS, help_text="reward in pence (GBP)"
    )
    reservation_timeout_minutes = models.PositiveIntegerField(default=60)
    min_answer_ms = models.PositiveIntegerField(
        default=_default_answer_floor,
        help_text="an answer that reaches the server sooner than this (milliseconds) after its item was shown "
        "is refused as unread: nothing is stored and the item is shown again (0: no floor)",
    )
    pid_format = models.CharField(
        max_length=10,
        choices=PidFormat.choices,
        default=PidFormat.PROLIFIC,
        help_text="what a PROLIFIC_PID in the study link must look like; anything else is refused",
    )
    panel = models.CharField(
        max_length=10,
        choices=panels.CHOICES,
        default=panels.PROLIFIC,
        help_text="where participants come from (parity.panels): the link's parameters, the ids' shape, where "
        "each way out of the study sends them; changed only before launch",
    )
    panel_settings = models.JSONField(
        default=dict,
        blank=True,
        help_text="the panel's own settings (parity.panels.PanelSettings): Connect's completion and partial-complete "
        "redirect URLs, SONA's credit URL, MTurk's sandbox",
    )
    is_imported = models.BooleanField(default=False, help_text="answers imported from a published human study")
    language = models.CharField(
        max_length=10,
        choices=settings.LANGUAGES,
        default="en",
        help_text="the language of the participant pages (the researcher's own texts are shown as written)",
    )
    closing_questions = models.JSONField(
        default=list,
        blank=True,
        help_text="the optional questions asked after the items (keys of studies.design.closing_questions.QUESTIONS)",
    )
    explanations = models.CharField(
        max_length=5,
        choices=Explanations.choices,
        default=Explanations.OFF,
        help_text="whether participants are asked, optionally, why they answered as they did: with an item's answer "
        "(every item, or every Nth by position, never by what the item is) or once on the done page",
    )
    explanation_every = models.PositiveIntegerField(
        default=5, help_text="with 'after every Nth item': N (the items at positions N, 2N, ... ask)"
    )
    explanation_prompt = models.CharField(
        max_length=300,
        blank=True,
        help_text="the explanation box's label; empty: 'Why did you choose this answer?' in the study's language",
    )
    canary_word = models.CharField(
        max_length=20,
        default=_new_canary,
        help_text="the made-up word that written items ask an AI, in a line no person sees, to use; "
        "an answer carrying it is flagged",
    )
    # what a reader of the paper needs about the study's people and its review (the reporting checklist
    # of Wei, Paskov et al., ICML 2025): entered while drafting, frozen with the preregistration
    population = models.CharField(
        max_length=500,
        blank=True,
        help_text="the population the human baseline is meant to stand for (e.g. adult native English speakers "
        "in the UK and the US)",
    )
    ethics_body = models.CharField(
        max_length=200, blank=True, help_text="the ethics board or committee that reviewed the study"
    )
    ethics_reference = models.CharField(
        max_length=100, blank=True, help_text="the approval's reference (protocol number)"
    )
    ethics_exemption = models.CharField(
        max_length=500, blank=True, help_text="why the study was exempt from ethics review, when it was"
    )
    paper_title = models.CharField(max_length=300, blank=True, help_text="the paper the study is for, if any")
    paper_url = models.URLField(max_length=500, blank=True, help_text="a link to the paper (arXiv, DOI, ...)")
    paper_venue = models.CharField(max_length=200, blank=True, help_text="where the paper appears")
    power_analysis = models.JSONField(
        default=dict,
        blank=True,
        help_text="the design's power analysis (studies.design.power): its inputs, where the variance came from, "
        "the smallest gap detected with 80% power and the human CI's expected half-width",
    )
    checklist_notes = models.JSONField(
        default=dict,
        blank=True,
        help_text="the researcher's answers to reporting-checklist entries Parity cannot answer from its own "
        "records, by entry number (studies.setup.checklist); never in place of a figure Parity computes",
    )
    checklist_corrections = models.JSONField(
        default=dict,
        blank=True,
        help_text="the researcher's corrections of answers Parity computed, by entry number: each its text and "
        "the reason (studies.setup.checklist); shown as corrected, beside what Parity computed",
    )
    original_study = models.JSONField(
        default=dict,
        blank=True,
        help_text="for a study whose human answers were imported: what the original paper says of its own study "
        "(materials, pay, exclusions, attrition), each as the researcher entered it with the paper's page "
        "(studies.setup.checklist); never what describes this study's model runs",
    )
    # who may take part (Prolific's prescreening, sent with the study: studies.design.screening) and which items
    # they see (parity.sampling): what the reporting checklist asks of recruitment and item sampling
    # training before the items (parity.training): practice questions answered with feedback and a
    # comprehension check passed within a set number of tries; neither is counted in the results
    practice_questions = models.JSONField(
        default=list,
        blank=True,
        help_text="practice questions shown with feedback before the items (parity.training), never counted",
    )
    comprehension_questions = models.JSONField(
        default=list,
        blank=True,
        help_text="questions on the instructions that must all be answered right before the items",
    )
    comprehension_tries = models.PositiveSmallIntegerField(
        default=2, help_text="tries at the comprehension check before the participant is asked to return the study"
    )
    prolific_filters = models.JSONField(
        default=dict,
        blank=True,
        help_text="Prolific prescreening (studies.design.screening.Screening): age range, sex, languages, countries, "
        "approval rate, earlier studies' participants excluded",
    )
    item_sampling = models.CharField(
        max_length=20,
        choices=Sampling.choices,
        default=Sampling.ALL,
        help_text="which of the benchmark's items the units are built from",
    )
    sample_size = models.PositiveIntegerField(
        null=True, blank=True, validators=INTEGER_VALIDATORS, help_text="items drawn (with a subset)"
    )
    sample_seed = models.PositiveIntegerField(
        default=_new_seed, validators=INTEGER_VALIDATORS, help_text="the seed the subset is drawn with"
    )
    sample_pool = models.PositiveIntegerField(
        null=True, blank=True, help_text="the items the units were drawn from, counted as they were built"
    )
    refused_earlier = models.JSONField(
        default=list,
        blank=True,
        help_text="digests of the IDs refused for having taken a study of the group (counted, never shown)",
    )
    pseudonyms_issued = models.PositiveIntegerField(
        default=0, help_text="pseudonyms handed out so far; the next participant is A<n+1>, whoever was deleted"
    )
    # who sees and acts on the study (pages, admin, API, exports); superusers see every study.
    # What each of them may do is decided by their permissions (see `studies.access`).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="owned_studies",
        help_text="the researcher the study belongs to",
    )
    collaborators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="shared_studies",
        help_text="other researchers who work on the study",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "studies"
        ordering = ["-created_at"]
        permissions = [("export_study", "Can export a study's answers and tables")]
        constraints = [
            # an excluded participant must never be paid as a complete one by mistake on Prolific
            models.CheckConstraint(
                condition=~models.Q(failed_attention_code="")
                & ~models.Q(failed_attention_code=models.F("completion_code")),
                name="study_failed_code_distinct",
                violation_error_message="The failed-check code must be set and differ from the completion code.",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def definition(self) -> benchmarks.Benchmark:
        return benchmarks.get(self.benchmark)

    def participant_path(self) -> str:
        return f"/s/{self.link}/"

    def participant_url(self) -> str:
        """The link pasted into the panel, with the panel's placeholders (`parity.panels`)."""
        return panels.participant_url(self.panel, f"{settings.PUBLIC_URL}{self.participant_path()}")

    @property
    def recruiting_panel(self) -> panels.Panel:
        return panels.get(self.panel)

    def reservation_cutoff(self):
        return timezone.now() - timedelta(minutes=self.reservation_timeout_minutes)


class Unit(models.Model):
    """What one participant does: an ordered list of items, answered by `capacity` participants."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="units")
    label = models.CharField(max_length=60)
    position = models.PositiveIntegerField()
    capacity = models.PositiveIntegerField()
    category = models.CharField(max_length=60, blank=True, help_text="balancing category (e.g. salient feature)")
    items = models.ManyToManyField("annotation.Item", through="UnitItem", related_name="units")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["study", "position"], name="unit_unique_position")]
        ordering = ["study_id", "position"]

    def __str__(self) -> str:
        return f"{self.study.name} / {self.label}"


class UnitItem(models.Model):
    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="unit_items")
    item = models.ForeignKey("annotation.Item", on_delete=models.PROTECT)
    order = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["unit", "item"], name="unititem_unique_item"),
            models.UniqueConstraint(fields=["unit", "order"], name="unititem_unique_order"),
        ]
        ordering = ["unit_id", "order"]

    def __str__(self) -> str:
        return f"{self.unit} #{self.order}"


class ParticipantQuerySet(models.QuerySet):
    def holding_slot(self):
        """Participants who count against their unit's capacity: working now, or complete and kept."""
        return self.filter(
            models.Q(status=Participant.Status.ACTIVE) | models.Q(status=Participant.Status.COMPLETED, excluded=False)
        )

    def stale(self, study: Study):
        return self.filter(study=study, status=Participant.Status.ACTIVE, last_seen_at__lt=study.reservation_cutoff())


class Participant(models.Model):
    """One Prolific participant in one study: their slot, their step and their progress."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active (slot reserved)"
        COMPLETED = "completed", "Completed"
        TIMED_OUT = "timed_out", "Timed out"
        RETURNED = "returned", "Returned"
        DECLINED = "declined", "Declined consent"
        SCREENED_OUT = "screened_out", "Failed the comprehension check"

    class Step(models.TextChoices):
        CONSENT = "consent", "Consent"
        INSTRUCTIONS = "instructions", "Instructions"
        PRACTICE = "practice", "Practice"
        COMPREHENSION = "comprehension", "Comprehension check"
        ITEMS = "items", "Items"
        DONE = "done", "Done"
        DECLINED = "declined", "Declined"
        RELEASED = "released", "Slot released"
        SCREENED_OUT = "screened_out", "Asked to return (comprehension check)"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    unit = models.ForeignKey(Unit, on_delete=models.PROTECT, null=True, blank=True, related_name="participants")
    prolific_pid = models.CharField(max_length=64)
    prolific_study_id = models.CharField(max_length=64, blank=True)
    prolific_session_id = models.CharField(max_length=64, blank=True)
    session_changes = models.JSONField(
        default=list,
        blank=True,
        help_text="each entry with a SESSION_ID other than the one stored: when, from, to, and whether it was let in",
    )
    pseudonym = models.CharField(max_length=12)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ACTIVE)
    step = models.CharField(max_length=14, choices=Step.choices, default=Step.CONSENT)
    sequence = models.JSONField(default=list, help_text="item ids in the order shown, attention checks included")
    answered = models.PositiveIntegerField(default=0, help_text="answers stored so far")
    current_shown_at = models.DateTimeField(null=True, blank=True, help_text="when the current item was first shown")
    attention_failures = models.PositiveIntegerField(default=0)
    excluded = models.BooleanField(default=False)
    exclusion_reason = models.CharField(max_length=200, blank=True)
    is_imported = models.BooleanField(default=False)
    started_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)
    erased_at = models.DateTimeField(
        null=True, blank=True, help_text="when the Prolific identity was erased on request"
    )
    practice_answers = models.JSONField(
        default=list, blank=True, help_text="answers to the practice questions, in order: answer and whether right"
    )
    practice_read = models.PositiveSmallIntegerField(
        default=0, help_text="practice questions whose feedback the participant has read"
    )
    comprehension_tries = models.PositiveSmallIntegerField(default=0, help_text="tries at the comprehension check")
    training_started_at = models.DateTimeField(
        null=True, blank=True, help_text="when the practice or comprehension check began"
    )
    training_ended_at = models.DateTimeField(
        null=True, blank=True, help_text="when the training ended: the check passed or failed, the practice done"
    )
    closing_answers = models.JSONField(
        default=dict, blank=True, help_text="answers to the study's optional closing questions, by question key"
    )
    closing_answered_at = models.DateTimeField(
        null=True, blank=True, help_text="when the closing questions were sent (empty: not sent)"
    )
    # signals computed from what this app cannot read (a model's run: `results.computing.quality`), kept so
    # that the admin can filter on them; flag name -> its figures. Written by `participants_signals_set`.
    review_signals = models.JSONField(
        default=dict,
        blank=True,
        help_text="review flags computed beside the model runs (model-likeness), each with its figures",
    )

    #: the fields that identify a person on Prolific: shown, filtered, searched and ordered on only for
    #: users holding `studies.view_identity` (see `studies.participants.identity`), and never exported
    IDENTITY_FIELDS: tuple[str, ...] = ("prolific_pid", "prolific_study_id", "prolific_session_id", "session_changes")

    objects = ParticipantQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "prolific_pid"], name="participant_once_per_study"),
            models.UniqueConstraint(fields=["study", "pseudonym"], name="participant_unique_pseudonym"),
        ]
        indexes = [
            # serves assignment: slots held per unit, and the sweep of stale reservations (a study's
            # active participants, filtered on `last_seen_at`). No column an answer changes is in an
            # index, so PostgreSQL updates the row in place (a HOT update) instead of adding an entry to
            # each of the table's indexes on every answer; the table leaves room for it on each page
            # (fillfactor, migration 0011).
            models.Index(fields=["study", "status"], name="participant_slots"),
            # serves the study-group refusal: has this PID taken any study of the group?
            models.Index(fields=["prolific_pid"], name="participant_pid"),
        ]
        ordering = ["study_id", "id"]
        permissions = [
            ("view_identity", "Can see Prolific IDs (payment disputes)"),
            ("erase_identity", "Can erase a participant's Prolific identity (data-erasure requests)"),
            ("exclude_participant", "Can exclude participants, include them again and mark them returned"),
        ]

    def __str__(self) -> str:
        return f"{self.study.name} / {self.pseudonym}"

    @property
    def total(self) -> int:
        return len(self.sequence)

    @property
    def duration_seconds(self) -> float | None:
        if self.completed_at is None:
            return None
        return (self.completed_at - self.started_at).total_seconds()

    def completion_code(self) -> str:
        if self.excluded and self.study.failed_attention_code:
            return self.study.failed_attention_code
        return self.study.completion_code


class Response(models.Model):
    """A participant's answer to one item. Written once by `response_submit`; never edited."""

    # no index of its own: both unique constraints' indexes begin with it
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="responses", db_index=False)
    item = models.ForeignKey("annotation.Item", on_delete=models.PROTECT, related_name="responses")
    position = models.PositiveIntegerField(help_text="1-based position in the participant's sequence")
    raw_answer = models.TextField(help_text="exactly what the participant gave")
    answer = models.TextField(blank=True, help_text="normalised; empty when invalid")
    valid = models.BooleanField()
    correct = models.BooleanField()
    is_attention_check = models.BooleanField(default=False)
    shown_at = models.DateTimeField()
    answered_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    extra = models.JSONField(default=dict, blank=True, help_text="e.g. option order shown, paste events")
    explanation = models.TextField(
        blank=True, help_text="why the participant chose the answer, in their words (optional; asked per study)"
    )
    # A researcher's mark on a written answer (instruction induction's manual verification), kept
    # beside the answer; written only by `responses_verify`.
    verified_correct = models.BooleanField(null=True, blank=True, help_text="researcher's mark; empty until verified")
    verified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # the table keeps the name it had when answers lived in the items app
        db_table = "annotation_response"
        constraints = [
            # the database refuses a second answer to the same item, whatever the race
            models.UniqueConstraint(fields=["participant", "item"], name="response_once_per_item"),
            models.UniqueConstraint(fields=["participant", "position"], name="response_once_per_position"),
        ]
        indexes = [
            # only the verified answers: every answer's INSERT would otherwise add an empty entry
            models.Index(
                fields=["verified_by"], name="response_verified_by", condition=models.Q(verified_by__isnull=False)
            ),
        ]
        ordering = ["participant_id", "position"]
        permissions = [("verify_response", "Can mark written answers correct or incorrect")]

    def __str__(self) -> str:
        return f"{self.participant} #{self.position}: {self.raw_answer[:30]}"


class VerificationMark(models.Model):
    """One mark given by one verifier to one written answer, at one time: the history of the
    answer's verification. Written only by `responses_verify`; never edited: a re-mark is a new row.

    The answer's current mark stays on the answer (`Response.verified_correct`, what the results
    read): the latest mark of a first verifier. A second verifier's marks are kept here only, to
    measure the two verifiers' agreement."""

    class Verdict(models.TextChoices):
        RIGHT = "right", "Right"
        WRONG = "wrong", "Wrong"
        CLEARED = "cleared", "Mark cleared (unverified again)"

    class Role(models.TextChoices):
        FIRST = "first", "First verifier (the mark the results read)"
        SECOND = "second", "Second verifier (agreement only)"

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="marks", db_index=False)
    verifier = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.FIRST)
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["response_id", "at", "id"]
        indexes = [
            # serves an answer's history and the latest mark per answer and role
            models.Index(fields=["response", "role", "at"], name="mark_response_role_at"),
        ]

    def __str__(self) -> str:
        return f"{self.response_id}: {self.verdict} ({self.role}) at {self.at:%Y-%m-%d %H:%M}"


class Preregistration(models.Model):
    """What the researcher planned before the data came in: their hypotheses and notes, and, from
    launch on, the whole plan frozen as one JSON document with its SHA-256 (`studies.preregistration.document`).
    Written only by `studies.preregistration.services`; once frozen it never changes."""

    study = models.OneToOneField(Study, on_delete=models.CASCADE, related_name="preregistration")
    hypotheses = models.TextField(blank=True, help_text="what the study is expected to show, written before launch")
    notes = models.TextField(blank=True, help_text="anything else planned: analyses, comparisons, caveats")
    document = models.JSONField(null=True, blank=True, help_text="the plan as frozen at launch")
    sha256 = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the document's canonical JSON")
    frozen_at = models.DateTimeField(null=True, blank=True, help_text="when the study was launched")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            # frozen means all three: a document, its hash and the time; a draft's has none of them
            models.CheckConstraint(
                condition=(
                    models.Q(frozen_at__isnull=True, sha256="", document__isnull=True)
                    | (models.Q(frozen_at__isnull=False, document__isnull=False) & ~models.Q(sha256=""))
                ),
                name="preregistration_frozen_whole",
            ),
        ]

    def __str__(self) -> str:
        return f"Preregistration of {self.study.name}"

    @property
    def is_frozen(self) -> bool:
        return self.frozen_at is not None


class StudyEvent(models.Model):
    """One change to a study after its launch: the audit trail, written by the service that makes
    the change (`studies.preregistration.events.study_event_record`), never edited."""

    class Kind(models.TextChoices):
        LAUNCHED = "launched", "Launched (preregistration frozen)"
        STATUS = "status", "Status changed"
        PLACES = "places", "Places changed"
        SETTINGS = "settings", "Settings changed"
        EXCLUDED = "excluded", "Participants excluded"
        INCLUDED = "included", "Participants included again"
        ERASED = "erased", "Participant erased on request"
        RUN_ADDED = "run_added", "Model run added"
        RUN_CANCELLED = "run_cancelled", "Model run cancelled"
        PROLIFIC = "prolific", "Prolific action"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(default=timezone.now)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="who made the change (empty: a command, a worker or Prolific)",
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    summary = models.CharField(max_length=300)
    data = models.JSONField(default=dict, blank=True, help_text="what changed, from what to what")

    class Meta:
        ordering = ["study_id", "at", "id"]

    def __str__(self) -> str:
        return f"{self.study.name} · {self.at:%Y-%m-%d %H:%M} · {self.summary}"
