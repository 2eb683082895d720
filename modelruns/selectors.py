"""Reads about model runs (who may see them is decided by `results.selectors`)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet

from annotation.models import BenchmarkAsset, Item
from annotation.selectors import item_data
from modelruns.models import ModelResponse, ModelRun, ModelShard, ModelSpec
from parity.benchmarks.base import ItemData
from studies.models import Participant, Response, Study, UnitItem


def runs_for_study(study: Study) -> QuerySet[ModelRun]:
    """A study's runs, newest first, with their spec, answer counts (accuracy = correct / scored,
    the answers to items with a right answer, as in the results) and, as `reclaimed_shards`, the
    shards taken back from a stopped worker."""
    return (
        ModelRun.objects.filter(study=study)
        .select_related("spec", "study")
        .prefetch_related(
            Prefetch(
                "shards",
                queryset=ModelShard.objects.filter(reclaims__gt=0).order_by("index"),
                to_attr="reclaimed_shards",
            )
        )
        .annotate(
            n_answered=Count("responses"),
            n_correct=Count("responses", filter=Q(responses__correct=True)),
            n_invalid=Count("responses", filter=Q(responses__valid=False)),
            n_scored=Count("responses", filter=~Q(responses__item__gold="")),
        )
        .order_by("-created_at", "-pk")
    )


def run_accuracy(run: ModelRun) -> float | None:
    """Correct answers among those to items with a right answer (ratings and free texts have none)."""
    counts = (
        ModelResponse.objects.filter(run=run)
        .exclude(item__gold="")
        .aggregate(total=Count("pk"), correct=Count("pk", filter=Q(correct=True)))
    )
    return counts["correct"] / counts["total"] if counts["total"] else None


def known_specs() -> QuerySet[ModelSpec]:
    return ModelSpec.objects.order_by("name")


# -- what a run reads -------------------------------------------------------------------------


def study_items(study: Study) -> list[Item]:
    """The items a model run scores: every item of the study's units, once, in unit order."""
    rows = (
        UnitItem.objects.filter(unit__study=study, item__is_attention_check=False)
        .select_related("item")
        .order_by("unit__position", "order")
    )
    seen: dict[int, Item] = {}
    for row in rows:
        seen.setdefault(row.item_id, row.item)
    return list(seen.values())


def items_by_id(item_ids: list[int]) -> list[Item]:
    """Items in the order of `item_ids`."""
    found = Item.objects.in_bulk(item_ids)
    missing = [pk for pk in item_ids if pk not in found]
    if missing:
        raise LookupError(f"items {missing[:5]} no longer exist")
    return [found[pk] for pk in item_ids]


def pool_items(benchmark: str, split: str) -> list[ItemData]:
    """The items k-shot examples are drawn from."""
    return [
        item_data(item)
        for item in Item.objects.filter(benchmark=benchmark, split=split, is_attention_check=False).order_by("key")
    ]


def benchmark_assets(benchmark: str) -> dict[str, Any]:
    return dict(BenchmarkAsset.objects.filter(benchmark=benchmark).values_list("key", "data"))


def written_instructions(study: Study) -> QuerySet[Response]:
    """The instructions a study's kept participants wrote: valid answers of completed, not excluded
    participants (the answers the results page counts), with their items."""
    return (
        Response.objects.filter(
            participant__study=study,
            participant__excluded=False,
            participant__status=Participant.Status.COMPLETED,
            is_attention_check=False,
            valid=True,
        )
        .select_related("item", "participant")
        .order_by("participant_id", "position")
    )


def study_tasks(study: Study) -> list[str]:
    """The instruction-induction tasks a study's items come from, sorted."""
    return sorted(
        {task for item in study_items(study) if (task := study.definition.category_of(item.meta)) is not None}
    )
