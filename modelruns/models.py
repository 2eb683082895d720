"""Model specs, runs of a model over a study's items, their shards and the model's answers."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ModelSpec(models.Model):
    """Which model, exactly: what the engine loads, and how."""

    class Kind(models.TextChoices):
        CAUSAL = "causal", "Causal LM (decoder-only)"
        SEQ2SEQ = "seq2seq", "Seq2seq LM (encoder-decoder)"
        NLI = "nli", "NLI cross-encoder"
        EMBEDDING = "embedding", "Sentence embedding"
        API = "api", "Causal LM behind an OpenAI-compatible API"

    class Dtype(models.TextChoices):
        FLOAT32 = "float32", "float32"
        BFLOAT16 = "bfloat16", "bfloat16"
        FLOAT16 = "float16", "float16"

    #: the name's column width (services leave room in it for " (N)" after a taken name)
    NAME_LENGTH = 200

    name = models.CharField(max_length=NAME_LENGTH, unique=True, help_text="how runs and results name it")
    model = models.CharField(max_length=500, help_text="a Hugging Face id, a local path, or an alias such as smollm2")
    revision = models.CharField(max_length=100, blank=True, help_text="a Hub branch, tag or commit; blank: main")
    dtype = models.CharField(max_length=10, choices=Dtype.choices, default=Dtype.FLOAT32)
    device = models.CharField(max_length=20, default="auto", help_text="auto, cpu, cuda, cuda:1 ...")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.CAUSAL)
    # -- api specs only: `model` is the server's name for the model -------------------------------
    api_base_url = models.CharField(
        max_length=500,
        blank=True,
        help_text="api: the server's base URL up to the version, e.g. http://127.0.0.1:8000/v1",
    )
    api_key_env = models.CharField(
        max_length=100,
        blank=True,
        help_text="api: the NAME of the environment variable that holds the key on the "
        "workers (the key itself is never stored); blank: no key",
    )
    api_concurrency = models.PositiveSmallIntegerField(default=4, help_text="api: requests in flight at once")
    api_features = models.JSONField(
        default=list,
        blank=True,
        help_text="api: what the server can do (prompt_logprobs, top_logprobs, "
        "completions, chat); empty: asked of the server when a run starts",
    )
    api_top_k = models.PositiveSmallIntegerField(
        default=20, help_text="api: next-token log-probs asked for in a readout"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="model_specs",
        help_text="who first started a run of it from the pages or the API; blank: the command line",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["model", "revision", "dtype", "device", "kind", "api_base_url"], name="modelspec_unique_load"
            ),
            models.CheckConstraint(
                condition=(Q(kind="api") & ~Q(api_base_url="")) | (~Q(kind="api") & Q(api_base_url="")),
                name="modelspec_api_has_url",
            ),
        ]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_api(self) -> bool:
        return self.kind == self.Kind.API

    @property
    def scored_as(self) -> str:
        """The kind the benchmarks see: a model behind an API is a causal LM to them."""
        return self.Kind.CAUSAL if self.is_api else self.kind

    @property
    def source(self) -> str:
        """What the source allow-list must cover: the server's URL, else the model."""
        return self.api_base_url if self.is_api else self.model


#: `ModelRun.model_identity["source"]` of a run whose answers were imported from an
#: lm-evaluation-harness samples file (`modelruns.services_lm_eval`), not scored here
LM_EVAL_SOURCE = "lm-evaluation-harness"
#: ... of a run whose answers were imported from an Inspect eval log (`modelruns.services_inspect`)
INSPECT_SOURCE = "inspect"


class ModelRunQuerySet(models.QuerySet):
    def active(self) -> ModelRunQuerySet:
        return self.filter(status__in=ModelRun.ACTIVE)


class ModelRun(models.Model):
    """One model over one study's items under one setting (template, k-shot, format ...)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    ACTIVE = (Status.QUEUED, Status.RUNNING)
    FINISHED = (Status.DONE, Status.FAILED, Status.CANCELLED)

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="model_runs")
    spec = models.ForeignKey(ModelSpec, on_delete=models.PROTECT, related_name="runs")
    setting = models.JSONField(default=dict, help_text="the benchmark's model setting, defaults filled in")
    setting_key = models.CharField(max_length=500, help_text="the setting as canonical JSON (one live run per setting)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress_done = models.PositiveIntegerField(default=0, help_text="items in finished shards")
    progress_total = models.PositiveIntegerField(default=0)
    shard_size = models.PositiveIntegerField(default=64)
    lease_seconds = models.PositiveIntegerField(
        default=300, help_text="a shard whose worker sent no heartbeat for this long is taken over"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    cancel_requested_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="when someone asked to cancel it; a running run's workers stop at their next batch",
    )
    error = models.TextField(blank=True)
    engine_version = models.CharField(max_length=40, blank=True)
    model_identity = models.JSONField(
        default=dict, blank=True, help_text="what the engine loaded: model id, resolved revision, dtype, device"
    )
    prompt_tokens = models.PositiveBigIntegerField(default=0, help_text="api: prompt tokens the server counted")
    completion_tokens = models.PositiveBigIntegerField(default=0, help_text="api: completion tokens the server counted")
    api_requests = models.PositiveIntegerField(default=0, help_text="api: HTTP requests the server answered")
    background = models.BooleanField(
        default=False,
        help_text="queued behind every other run's shards (the demo's own runs): a researcher's run never waits for it",
    )

    objects = ModelRunQuerySet.as_manager()
    #: the run's place in the queue while it waits, as the runs panel shows it (`selectors.runs_panel`
    #: sets it; not stored)
    queue_position: int | None = None

    class Meta:
        constraints = [
            # a second start of the same model, study and setting returns the live run instead
            models.UniqueConstraint(
                fields=["study", "spec", "setting_key"],
                condition=~Q(status__in=["failed", "cancelled"]),
                name="modelrun_once_per_setting",
            ),
            models.CheckConstraint(
                condition=Q(progress_done__lte=models.F("progress_total")), name="modelrun_progress_within_total"
            ),
        ]
        # serves the study's runs partial: a study's runs, newest first
        indexes = [models.Index(fields=["study", "-created_at"], name="modelrun_study_recent")]
        ordering = ["-created_at"]
        permissions = [("run_model", "Can start, cancel and resume model runs")]

    def __str__(self) -> str:
        return f"{self.spec} on {self.study} #{self.pk}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def is_stopping(self) -> bool:
        """Asked to cancel while running: its workers stop at their next batch."""
        return self.status == self.Status.RUNNING and self.cancel_requested_at is not None

    @property
    def progress_now(self) -> int:
        """Items of finished shards, plus those the engine reported from shards being scored (as
        `items_in_flight`, annotated by `modelruns.selectors.runs_for_study`)."""
        if self.status != self.Status.RUNNING:
            return self.progress_done
        return min(self.progress_total, self.progress_done + (getattr(self, "items_in_flight", 0) or 0))

    @property
    def percent(self) -> int:
        return int(100 * self.progress_now / self.progress_total) if self.progress_total else 0

    @property
    def duration_seconds(self) -> float | None:
        """Seconds since it started: until it finished, or until now while it is active."""
        if self.started_at is None:
            return None
        end = self.finished_at or (timezone.now() if self.is_active else self.started_at)
        return max(0.0, (end - self.started_at).total_seconds())

    def setting_label(self) -> str:
        return self.study.definition.model_setting_label(self.setting)


class ModelShard(models.Model):
    """A slice of a run's items that one task scores; claimed with a lease, written idempotently."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="shards")
    index = models.PositiveIntegerField()
    item_ids = models.JSONField(help_text="the items this shard scores, in order")
    size = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0, help_text="times claimed")
    errors = models.PositiveIntegerField(default=0, help_text="times its scoring raised an error")
    worker = models.CharField(max_length=200, blank=True, help_text="who holds or last held the shard")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    reclaims = models.PositiveIntegerField(default=0, help_text="times taken back from a worker whose lease ran out")
    reclaimed_at = models.DateTimeField(null=True, blank=True, help_text="when it was last taken back")
    items_done = models.PositiveIntegerField(
        default=0, help_text="while running: its items the engine has answered so far (written with the heartbeat)"
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    retry_at = models.DateTimeField(
        null=True, blank=True, help_text="after an error: not claimed again before this time (the back-off)"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="modelshard_unique_index")]
        # serves claiming: a run's pending or stale shards, in order
        indexes = [models.Index(fields=["run", "status", "index"], name="modelshard_claim")]
        ordering = ["run_id", "index"]

    def __str__(self) -> str:
        return f"run {self.run_id} shard {self.index}"


class ModelResponse(models.Model):
    """A model's answer to one item, in the result schema of `studies.Response`."""

    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="responses")
    item = models.ForeignKey("annotation.Item", on_delete=models.PROTECT, related_name="model_responses")
    variant = models.CharField(
        max_length=40, blank=True, default="", help_text="when a setting answers an item more than once"
    )
    raw_answer = models.TextField(help_text="what the model gave, before normalisation")
    answer = models.TextField(blank=True, help_text="normalised; empty when invalid")
    valid = models.BooleanField()
    correct = models.BooleanField()
    scores = models.JSONField(default=dict, blank=True, help_text="log-probs, probabilities, metrics")
    truncated_tokens = models.PositiveIntegerField(default=0, help_text="prompt tokens cut to fit the window")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # a shard that runs twice (a retry, a worker that was presumed dead) writes nothing new
            models.UniqueConstraint(fields=["run", "item", "variant"], name="modelresponse_once_per_item"),
        ]
        ordering = ["run_id", "item_id", "variant"]

    def __str__(self) -> str:
        return f"run {self.run_id} / {self.item_id}: {self.answer or self.raw_answer[:30]}"


class InstructionScore(models.Model):
    """A written or gold instruction of an instruction-induction study, executed by a chosen model
    and compared with the gold instructions, exactly as a model's own instructions are."""

    class Source(models.TextChoices):
        WRITTEN = "written", "Written by a participant"
        GOLD = "gold", "Gold (the benchmark's references)"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="instruction_scores")
    executor = models.ForeignKey(ModelSpec, on_delete=models.PROTECT, related_name="instruction_scores")
    source = models.CharField(max_length=10, choices=Source.choices)
    task = models.CharField(max_length=100)
    response = models.ForeignKey(
        "studies.Response",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="instruction_scores",
        help_text="the written answer (written only)",
    )
    gold_index = models.PositiveIntegerField(null=True, blank=True, help_text="position in the task's gold list")
    instruction = models.TextField()
    execution_accuracy = models.FloatField()
    reference_similarity = models.FloatField(
        null=True, blank=True, help_text="best F1 over the gold set (without itself, for gold)"
    )
    similarity_model = models.CharField(max_length=200)
    similarity_scorer = models.CharField(
        max_length=100, blank=True, help_text="bert-score VERSION or greedy matching here; blank: not recorded"
    )
    similarity_layer = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="the layer whose token vectors were matched"
    )
    similarity_rescaled = models.BooleanField(default=False, help_text="baseline-rescaled, as the paper's figures are")
    similarity_baseline = models.FloatField(
        null=True, blank=True, help_text="the baseline F1 subtracted, when rescaled"
    )
    setting = models.JSONField(default=dict, help_text="execute_limit, executor and similarity model used")
    outputs = models.JSONField(default=list, blank=True, help_text="the executor's outputs, in execute-set order")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["study", "executor", "response"],
                condition=Q(source="written"),
                name="instructionscore_once_per_written",
            ),
            models.UniqueConstraint(
                fields=["study", "executor", "task", "gold_index"],
                condition=Q(source="gold"),
                name="instructionscore_once_per_gold",
            ),
            models.CheckConstraint(
                condition=(
                    Q(source="written", response__isnull=False, gold_index__isnull=True)
                    | Q(source="gold", response__isnull=True, gold_index__isnull=False)
                ),
                name="instructionscore_written_or_gold",
            ),
        ]
        indexes = [
            # the results page reads a study's scores
            models.Index(fields=["study", "executor"], name="instructionscore_study"),
        ]
        ordering = ["study_id", "executor_id", "source", "task", "pk"]

    def __str__(self) -> str:
        return f"{self.source} {self.task}: {self.instruction[:40]}"
