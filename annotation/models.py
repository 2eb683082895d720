from __future__ import annotations

from django.conf import settings
from django.db import models

from parity import benchmarks


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


class ItemSet(models.Model):
    """A named set of items of a benchmark of named sets (a researcher's own items) and whose it is.
    Its owner alone (and superusers) may import into it from the web and build studies on it; a set
    imported on the command line without --owner has none, and every researcher may build on it."""

    benchmark = models.CharField(max_length=40, choices=benchmarks.choices)
    name = models.CharField(max_length=40)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="item_sets",
        help_text="blank: imported by the operator, open to all",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["benchmark", "name"], name="itemset_unique_name")]
        ordering = ["benchmark", "name"]

    def __str__(self) -> str:
        return f"{self.benchmark}:{self.name}"
