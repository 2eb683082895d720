"""Reads about model runs (who may see a study's runs is decided by `studies.access`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum

from annotation.models import BenchmarkAsset, Item
from annotation.selectors import item_data
from modelruns.models import ModelResponse, ModelRun, ModelShard, ModelSpec
from modelruns.turns import served_in_turn
from parity.benchmarks.base import ItemData
from studies.access import studies_for_user
from studies.models import Participant, Response, Study, UnitItem

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class RunCounts(TypedDict):
    """What `runs_for_study` adds to each run (besides `reclaimed_shards`)."""

    n_answered: int
    n_correct: int
    n_invalid: int
    n_scored: int
    items_in_flight: int | None


def runs_for_study(study: Study) -> QuerySet[WithAnnotations[ModelRun, RunCounts]]:
    """A study's runs, newest first, with their spec, answer counts (accuracy = correct / scored,
    the answers to items with a right answer, as in the results), the items the engine reported
    from shards being scored (`items_in_flight`) and, as `reclaimed_shards`, the shards taken back
    from a stopped worker."""
    # a subquery, not a join: joined to the responses it would be counted once per answer
    in_flight = (
        ModelShard.objects.filter(run=OuterRef("pk"), status=ModelShard.Status.RUNNING)
        .order_by()
        .values("run")
        .annotate(items=Sum("items_done"))
        .values("items")
    )
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
            items_in_flight=Subquery(in_flight, output_field=IntegerField()),
        )
        .order_by("-created_at", "-pk")
    )


def queue_positions() -> dict[int, int]:
    """Each queued run's place in the queue (1 = next). Where the queue takes the runs' shards in
    turn (`modelruns.turns`), a queued run's first shard comes before the later shards of the runs
    already running: only the runs queued before it and still waiting for a worker are ahead of it,
    and a run in the background (the demo's) comes after every other waiting run. Where it serves
    them in order of arrival, every unfinished run queued before it is."""
    active = ModelRun.objects.active()
    if served_in_turn():
        active = active.filter(status=ModelRun.Status.QUEUED).order_by("background", "created_at", "pk")
    else:
        active = active.order_by("created_at", "pk")
    rows = active.values_list("pk", "status")
    return {pk: place for place, (pk, status) in enumerate(rows, start=1) if status == ModelRun.Status.QUEUED}


def runs_panel(study: Study) -> list[ModelRun]:
    """The study's runs as the runs panel shows them: `runs_for_study`, each queued run with its
    `queue_position` (None for the others)."""
    runs: list[ModelRun] = list(runs_for_study(study))
    positions = queue_positions() if any(run.status == ModelRun.Status.QUEUED for run in runs) else {}
    for run in runs:
        run.queue_position = positions.get(run.pk)
    return runs


def run_accuracy(run: ModelRun) -> float | None:
    """Correct answers among those to items with a right answer (ratings and free texts have none)."""
    counts = (
        ModelResponse.objects.filter(run=run)
        .exclude(item__gold="")
        .aggregate(total=Count("pk"), correct=Count("pk", filter=Q(correct=True)))
    )
    return counts["correct"] / counts["total"] if counts["total"] else None


def specs_for_user(user: Any) -> QuerySet[ModelSpec]:
    """The model specs `user` may see: those of runs of the studies they may see and those they
    created; every spec for a superuser. Another researcher's local paths and server URLs stay theirs."""
    if user is None or not user.is_authenticated or not user.is_active:
        return ModelSpec.objects.none()
    if user.is_superuser:
        return ModelSpec.objects.all()
    seen_runs = ModelRun.objects.filter(study__in=studies_for_user(user)).values("spec_id")
    return ModelSpec.objects.filter(Q(created_by=user) | Q(pk__in=seen_runs))


def known_specs(user: Any) -> QuerySet[ModelSpec]:
    """The run form's suggestions for the model field."""
    return specs_for_user(user).order_by("name")


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


def study_runs(study: Study) -> list[ModelRun]:
    """A study's runs with their specs, newest first: the choices of the item view."""
    return list(ModelRun.objects.filter(study=study).select_related("spec", "study").order_by("-created_at", "-pk"))


def item_answers(run: ModelRun, item_key: str) -> QuerySet[ModelResponse]:
    """A run's answers to one item, one per variant (MiQA's two option orders)."""
    return ModelResponse.objects.filter(run=run, item__key=item_key).order_by("variant")


def active_run_counts(study_ids: Sequence[int]) -> dict[tuple[int, str], int]:
    """(study id, status) -> how many model runs are queued or running, for the studies given."""
    rows = (
        ModelRun.objects.filter(study_id__in=study_ids, status__in=ModelRun.ACTIVE)
        .values_list("study_id", "status")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {(study_id, status): n for study_id, status, n in rows}
