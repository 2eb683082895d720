from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation import benchmarks


class Item(models.Model):
    """One thing a human answers and a model scores. `prompt` may be shown; `gold` never is before
    that item's answer is stored."""

    benchmark = models.CharField(max_length=40, choices=benchmarks.choices)
    key = models.CharField(max_length=120)
    split = models.CharField(max_length=40)
    prompt = models.JSONField()
    gold = models.CharField(max_length=200, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    is_attention_check = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["benchmark", "key"], name="item_unique_key")]
        # serves the importer and unit building: all items of one split of a benchmark
        indexes = [models.Index(fields=["benchmark", "split"], name="item_benchmark_split")]
        ordering = ["benchmark", "key"]

    def __str__(self) -> str:
        return f"{self.benchmark}:{self.key}"


class BenchmarkAsset(models.Model):
    """Non-item data of a benchmark: prompt templates, references, execute sets."""

    benchmark = models.CharField(max_length=40, choices=benchmarks.choices)
    key = models.CharField(max_length=80)
    data = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["benchmark", "key"], name="asset_unique_key")]

    def __str__(self) -> str:
        return f"{self.benchmark}:{self.key}"


class Response(models.Model):
    """A participant's answer to one item. Written once by `response_submit`; never edited."""

    participant = models.ForeignKey("studies.Participant", on_delete=models.CASCADE, related_name="responses")
    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="responses")
    position = models.PositiveIntegerField(help_text="1-based position in the participant's sequence")
    raw_answer = models.TextField(help_text="exactly what the participant gave")
    answer = models.CharField(max_length=200, blank=True, help_text="normalised; empty when invalid")
    valid = models.BooleanField()
    correct = models.BooleanField()
    is_attention_check = models.BooleanField(default=False)
    shown_at = models.DateTimeField()
    answered_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    extra = models.JSONField(default=dict, blank=True, help_text="e.g. option order shown, paste events")
    # A researcher's mark on a written answer (instruction induction's manual verification), kept
    # beside the answer; written only by `responses_verify`.
    verified_correct = models.BooleanField(null=True, blank=True, help_text="researcher's mark; empty until verified")
    verified_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="+")
    verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # the database refuses a second answer to the same item, whatever the race
            models.UniqueConstraint(fields=["participant", "item"], name="response_once_per_item"),
            models.UniqueConstraint(fields=["participant", "position"], name="response_once_per_position"),
        ]
        ordering = ["participant_id", "position"]
        permissions = [("verify_response", "Can mark written answers correct or incorrect")]

    def __str__(self) -> str:
        return f"{self.participant} #{self.position}: {self.raw_answer[:30]}"
