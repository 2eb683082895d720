"""Writes about model runs: starting them and queueing a task per shard, cancelling, resuming, and
the sweep that recovers what killed workers left.

What a task does with its shard (claim, score, write its answers, finish the run) is in
`modelruns.shards`. Imports run one way: services → tasks → shards, and services → shards. When no task
of a run is left (its worker was killed holding the last shard), the periodic sweep
(`modelrun_sweep`, run by `manage.py run_worker` and `manage.py sweep_runs`) takes the shard back
and queues a task for it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from annotation.selectors import item_data
from annotation.services import rating_items_from_answers
from modelruns import selectors, workers
from modelruns.models import ModelRun, ModelShard, ModelSpec
from modelruns.preregistration import run_change_record
from modelruns.services_instructions import instruction_setting_resolve
from modelruns.shards import modelrun_end_cancelled, modelrun_finish_if_complete, open_shards
from modelruns.sources import model_name_problem, model_source_problem
from modelruns.tasks import run_shard, run_shard_in_turn
from parity.benchmarks.base import DatasetError
from parity.engine import ENGINE_VERSION
from studies.errors import StudyError
from studies.models import Study
from studies.results_token import results_changed
from studies.setup.studies import study_create

logger = logging.getLogger(__name__)

DEFAULT_SHARD_SIZE = 64
DEFAULT_LEASE_SECONDS = 120


class ModelRunError(ValueError):
    pass


@dataclass(frozen=True)
class StartedRun:
    run: ModelRun
    created: bool  # False: the same model, study and setting already had a live run


# -- specs and runs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiOptions:
    """How to reach a model behind an OpenAI-compatible API (see `parity.engine.api.ApiConfig`)."""

    base_url: str
    key_env: str = ""
    concurrency: int = 4
    features: tuple[str, ...] = ()
    top_k: int = 20


def _api_fields(model: str, api: ApiOptions | None) -> dict[str, Any]:
    """The spec's api_* fields, checked the way a worker will use them."""
    if api is None:
        raise ModelRunError("an api model needs its server's base URL (e.g. http://127.0.0.1:8000/v1)")
    fields: dict[str, Any] = {
        "api_base_url": api.base_url.strip().rstrip("/"),
        "api_key_env": api.key_env.strip(),
        "api_concurrency": api.concurrency,
        "api_features": sorted(set(api.features)),
        "api_top_k": api.top_k,
    }
    # the API client (and the engine it serves) is loaded when a model is added, not with the admin at every start
    from parity.engine.api import ApiConfig

    try:
        ApiConfig(
            base_url=fields["api_base_url"],
            model=model,
            key_env=fields["api_key_env"],
            concurrency=api.concurrency,
            features=tuple(fields["api_features"]),
            top_k=api.top_k,
        )
    except ValueError as exc:
        raise ModelRunError(str(exc)) from exc
    return fields


def modelspec_get_or_create(
    *,
    model: str,
    revision: str = "",
    dtype: str = ModelSpec.Dtype.FLOAT32,
    device: str = "auto",
    kind: str = ModelSpec.Kind.CAUSAL,
    name: str = "",
    api: ApiOptions | None = None,
    created_by: Any = None,
) -> ModelSpec:
    """The spec that loads `model` this way, created on first use (named after the model), by
    `created_by` (a researcher starting a run; None on the command line).

    An api spec (`kind="api"`, with `api`) is the server's model at the server's URL; asked for
    again with another key variable, concurrency, features or top k, the spec takes them (they
    say how to reach the server, not which model answers).
    """
    model = model.strip()
    problem = model_name_problem(model)
    if problem is not None:
        raise ModelRunError(problem)
    if dtype not in ModelSpec.Dtype.values:
        raise ModelRunError(f"dtype must be one of {', '.join(ModelSpec.Dtype.values)}, not {dtype!r}")
    if kind not in ModelSpec.Kind.values:
        raise ModelRunError(f"kind must be one of {', '.join(ModelSpec.Kind.values)}, not {kind!r}")
    lookup = {
        "model": model,
        "revision": revision.strip(),
        "dtype": dtype,
        "device": device.strip() or "auto",
        "kind": kind,
    }
    reach: dict[str, Any] = {}
    if kind == ModelSpec.Kind.API:
        reach = _api_fields(model, api)
        lookup["api_base_url"] = reach.pop("api_base_url")
    _check_source(lookup.get("api_base_url") or model)
    spec = ModelSpec.objects.filter(**lookup).first()
    if spec is not None:
        return _modelspec_reach_update(spec, reach)
    # room for " (N)" within the name's column (a long path or server URL would not fit)
    base = (name.strip() or _spec_name(lookup))[: ModelSpec.NAME_LENGTH - 8]
    candidate, number = base, 1
    while ModelSpec.objects.filter(name=candidate).exists():
        number += 1
        candidate = f"{base} ({number})"
    try:
        with transaction.atomic():
            return ModelSpec.objects.create(name=candidate, created_by=created_by, **lookup, **reach)
    except IntegrityError:  # someone created the same spec a moment ago
        return _modelspec_reach_update(ModelSpec.objects.get(**lookup), reach)


def _modelspec_reach_update(spec: ModelSpec, reach: Mapping[str, Any]) -> ModelSpec:
    changed = [field for field, value in reach.items() if getattr(spec, field) != value]
    for field in changed:
        setattr(spec, field, reach[field])
    if changed:
        spec.save(update_fields=changed)
    return spec


def _check_source(model: str) -> None:
    problem = model_source_problem(model)
    if problem is not None:
        raise ModelRunError(problem)


def _spec_name(lookup: Mapping[str, str]) -> str:
    name = lookup["model"] + (f"@{lookup['revision']}" if lookup["revision"] else "")
    if lookup.get("api_base_url"):
        return f"{name} @ {lookup['api_base_url']}"
    extras = [
        value
        for key, value in lookup.items()
        if key in ("dtype", "device", "kind") and value not in ("float32", "auto", "causal")
    ]
    return name + (f" ({', '.join(extras)})" if extras else "")


def setting_key(setting: Mapping[str, Any]) -> str:
    return json.dumps(setting, sort_keys=True, separators=(",", ":"))


def _shard_item_ids(groups: list[list[int]], shard_size: int) -> list[list[int]]:
    """Whole groups packed in order into shards of about `shard_size` items."""
    shards: list[list[int]] = []
    current: list[int] = []
    for group in groups:
        if current and len(current) + len(group) > shard_size:
            shards.append(current)
            current = []
        current.extend(group)
    if current:
        shards.append(current)
    return shards


def modelrun_start(
    *,
    study: Study,
    spec: ModelSpec,
    setting: Mapping[str, Any] | None = None,
    shard_size: int = DEFAULT_SHARD_SIZE,
    lease_seconds: int = DEFAULT_LEASE_SECONDS,
    enqueue: bool = True,
    actor: Any = None,
    background: bool = False,
) -> StartedRun:
    """Create a run of `spec` over the study's items and queue its shards. A run added to a launched
    study goes into its audit trail (`actor`: who asked for it). A `background` run (the demo's own)
    is served after every other run's shards (`modelruns.turns`).

    Starting the same model, study and setting again returns the live run (and queues its
    unfinished shards again, which resumes a run whose workers were lost); a failed or cancelled
    run does not count, so starting again after a failure makes a fresh run.
    """
    _check_source(spec.source)
    definition = study.definition
    if spec.scored_as not in definition.model_kinds:
        raise ModelRunError(
            f"{definition.title} is scored with {' or '.join(definition.model_kinds)} models, not {spec.kind}"
        )
    try:
        full = definition.model_setting(setting)
        if definition.executes_instructions:
            full = instruction_setting_resolve(study=study, setting=full)
    except ValueError as exc:
        raise ModelRunError(str(exc)) from exc
    if shard_size < 1 or lease_seconds < 1:
        raise ModelRunError("shard size and lease must be at least 1")
    key = setting_key(full)
    live = ModelRun.objects.filter(study=study, spec=spec, setting_key=key).exclude(
        status__in=[ModelRun.Status.FAILED, ModelRun.Status.CANCELLED]
    )
    existing = live.first()
    if existing is not None:
        if enqueue and existing.is_active:
            modelrun_enqueue(run=existing)
        return StartedRun(existing, False)
    items = selectors.study_items(study)
    if not items:
        raise ModelRunError(f"study {study.name!r} has no items to score")
    by_key = {item.key: item.pk for item in items}
    groups = definition.model_groups([item_data(item) for item in items], full)
    shards = _shard_item_ids([[by_key[key] for key in group] for group in groups], shard_size)
    try:
        with transaction.atomic():
            run = ModelRun.objects.create(
                study=study,
                spec=spec,
                setting=full,
                setting_key=key,
                progress_total=len(items),
                shard_size=shard_size,
                lease_seconds=lease_seconds,
                engine_version=ENGINE_VERSION,
                background=background,
            )
            ModelShard.objects.bulk_create(
                [ModelShard(run=run, index=index, item_ids=ids, size=len(ids)) for index, ids in enumerate(shards)]
            )
            run_change_record(run=run, added=True, actor=actor)
    except IntegrityError:  # the same run was started a moment ago, elsewhere
        return StartedRun(live.get(), False)
    if enqueue:
        modelrun_enqueue(run=run)
    return StartedRun(run, True)


def modelrun_enqueue(*, run: ModelRun) -> int:
    """Queue one task per unfinished shard (after the current transaction commits).

    A shard whose task is already queued gets a second one; the second finds nothing to claim.
    """
    ids = list(
        run.shards.exclude(status__in=[ModelShard.Status.DONE, ModelShard.Status.FAILED])
        .order_by("index")
        .values_list("pk", flat=True)
    )
    _shards_enqueue(ids)
    return len(ids)


def _shards_enqueue(shard_ids: list[int]) -> None:
    """One task per shard, each at its turn (`modelruns.tasks`): the runs' shards are taken in turn,
    a background run's after every other run's."""
    turns = {
        pk: (index, background)
        for pk, index, background in ModelShard.objects.filter(pk__in=shard_ids).values_list(
            "pk", "index", "run__background"
        )
    }

    def send() -> None:
        for shard_id in shard_ids:
            index, background = turns.get(shard_id, (0, False))
            run_shard_in_turn(index, background=background).enqueue(shard_id)

    transaction.on_commit(send)


def modelrun_cancel(*, run: ModelRun, actor: Any = None) -> ModelRun:
    """Cancel a run; safe to call any number of times (a finished run is left as it is).

    A queued run is cancelled at once: its queued tasks find it cancelled and no worker starts
    it. A running run is asked to stop (`cancel_requested_at`): its workers stop at their next
    batch, drop the shard in hand unwritten and end it `cancelled` (`modelruns.shards`); when no
    worker holds a shard of it, it ends now. The answers of shards finished before are kept, but a
    cancelled run never counts in the results (only done runs do).
    """
    now = timezone.now()
    # each step is conditional on the status it changes: a worker that starts the run in between wins
    cancelled = ModelRun.objects.filter(pk=run.pk, status=ModelRun.Status.QUEUED).update(
        status=ModelRun.Status.CANCELLED, cancel_requested_at=now, finished_at=now
    )
    if cancelled:
        results_changed(study_ids=[run.study_id])
    cancelled += ModelRun.objects.filter(
        pk=run.pk, status=ModelRun.Status.RUNNING, cancel_requested_at__isnull=True
    ).update(cancel_requested_at=now)
    if cancelled:  # the first request only: a second click records nothing
        run_change_record(run=run, added=False, actor=actor)
    run.refresh_from_db()
    if run.is_stopping and not run.shards.filter(status=ModelShard.Status.RUNNING).exists():
        modelrun_end_cancelled(run=run)
        run.refresh_from_db()
    return run


@transaction.atomic
def modelrun_resume(*, run: ModelRun) -> ModelRun:
    """Queue an active run's unfinished shards again, or retry a failed run's failed shards."""
    run = ModelRun.objects.select_for_update().select_related("spec").get(pk=run.pk)
    _check_source(run.spec.source)
    if run.status == ModelRun.Status.FAILED:
        if (
            ModelRun.objects.filter(study=run.study, spec=run.spec, setting_key=run.setting_key)
            .exclude(status__in=[ModelRun.Status.FAILED, ModelRun.Status.CANCELLED])
            .exists()
        ):
            raise ModelRunError("another live run has the same model and setting")
        run.shards.filter(status=ModelShard.Status.FAILED).update(
            status=ModelShard.Status.PENDING, attempts=0, errors=0, error="", retry_at=None
        )
        run.status, run.error, run.finished_at = ModelRun.Status.QUEUED, "", None
        run.save(update_fields=["status", "error", "finished_at"])
    if run.is_active:
        modelrun_enqueue(run=run)
    return run


# -- the sweep: what killed workers leave behind -----------------------------------------------


@dataclass(frozen=True)
class SweepReport:
    reclaimed: int  # shards taken back from workers whose lease ran out
    lost_tasks: int  # queue rows of stopped workers marked failed
    requeued: int  # tasks queued for those shards
    finished: int  # runs marked done because every shard was
    cancelled: int = 0  # runs asked to cancel that no worker held any more, ended cancelled


def shards_reclaim_stale(*, run: ModelRun, now: datetime | None = None) -> list[ModelShard]:
    """Give the run's shards whose worker sent no heartbeat for the lease back to `pending`;
    returns them as they were (with the worker that held them)."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=run.lease_seconds)
    reclaimed = []
    for shard in run.shards.filter(status=ModelShard.Status.RUNNING, heartbeat_at__lt=stale):
        # conditional on the same holder and a lease still run out: a heartbeat or a takeover in between wins
        if ModelShard.objects.filter(
            pk=shard.pk, status=ModelShard.Status.RUNNING, worker=shard.worker, heartbeat_at__lt=stale
        ).update(status=ModelShard.Status.PENDING, reclaims=F("reclaims") + 1, reclaimed_at=now):
            logger.warning(
                "run %s: shard %s taken back from %s (no heartbeat for %s s)",
                run.pk,
                shard.index,
                shard.worker,
                run.lease_seconds,
            )
            reclaimed.append(shard)
    return reclaimed


def modelrun_sweep(*, now: datetime | None = None) -> SweepReport:
    """Recover what stopped workers left: shards whose lease ran out go back to `pending` with a
    task queued for each, queue rows of stopped workers are marked failed (and their shard queued
    again when nothing else holds it), and runs whose shards are all done are finished.

    A run asked to cancel whose shards no worker holds any more (its workers were killed) ends
    cancelled instead of being queued again.

    Safe to run at any time, from any number of processes: every change is a conditional UPDATE,
    and a task too many finds nothing to claim.
    """
    now = now or timezone.now()
    runs = list(ModelRun.objects.active())
    reclaimed = [shard for run in runs for shard in shards_reclaim_stale(run=run, now=now)]
    ended = {
        run.pk
        for run in runs
        if run.cancel_requested_at is not None
        and not run.shards.filter(status=ModelShard.Status.RUNNING).exists()
        and modelrun_end_cancelled(run=run)
    }
    lost = workers.lost_tasks_fail(task_ids=[workers.task_id_of(shard.worker) for shard in reclaimed])
    lost_shards = [
        int(task.args[0])
        for task in lost
        if task.task_path == run_shard.module_path and task.args and str(task.args[0]).isdigit()
    ]
    orphans = ModelShard.objects.filter(
        pk__in=lost_shards, status=ModelShard.Status.PENDING, run__status__in=ModelRun.ACTIVE
    ).values_list("pk", flat=True)
    requeue = sorted({shard.pk for shard in reclaimed if shard.run_id not in ended} | set(orphans))
    _shards_enqueue(requeue)
    finished = sum(
        1
        for run in runs
        if run.pk not in ended and not open_shards(run).exists() and modelrun_finish_if_complete(run=run)
    )
    return SweepReport(
        reclaimed=len(reclaimed), lost_tasks=len(lost), requeued=len(requeue), finished=finished, cancelled=len(ended)
    )


def modelrun_start_many(
    *,
    study: Study,
    spec: ModelSpec,
    overrides: Mapping[str, Any] | None = None,
    sweep: bool = False,
    shard_size: int = DEFAULT_SHARD_SIZE,
    lease_seconds: int = DEFAULT_LEASE_SECONDS,
    enqueue: bool = True,
    actor: Any = None,
) -> list[StartedRun]:
    """The runs a researcher asks for (page, command): one with the default setting (plus
    `overrides`), or with `sweep` one per setting of the benchmark's grid (each with `overrides`
    applied). Each is started by `modelrun_start`."""
    definition = study.definition
    try:
        settings = (
            [{**grid, **(overrides or {})} for grid in definition.model_settings(sweep=True)]
            if sweep
            else [dict(overrides or {})]
        )
    except ValueError as exc:
        raise ModelRunError(str(exc)) from exc
    return [
        modelrun_start(
            study=study,
            spec=spec,
            setting=setting,
            shard_size=shard_size,
            lease_seconds=lease_seconds,
            enqueue=enqueue,
            actor=actor,
        )
        for setting in settings
    ]


# -- MiQA's generative task: a run's written answers become a rating study ------------------------

#: the paper's design (Section 5.2): each rater grades a share of the answers, several per answer
RATING_RATERS_PER_BLOCK = 3
RATING_BLOCK_SIZE = 50


@transaction.atomic
def modelrun_rating_study(
    *, run: ModelRun, raters_per_block: int = RATING_RATERS_PER_BLOCK, block_size: int = RATING_BLOCK_SIZE
) -> Study:
    """A `miqa_rating` study of a finished generative MiQA run's answers, in blocks of
    `block_size` answers each graded by `raters_per_block` raters (a rater takes one block).

    Idempotent: the same run gives back the study made the first time. The answers are imported
    under "<model> (run <id>)", so two runs of one model never overwrite each other's answers.
    """
    definition = run.study.definition
    rating_benchmark = definition.rating_benchmark
    variant = definition.rated_variant(run.setting) if rating_benchmark else ""
    if not variant:
        raise ModelRunError(f"run {run.pk} is not a generative MiQA run (setting wording=generative)")
    if run.status != ModelRun.Status.DONE:
        raise ModelRunError(f"run {run.pk} is {run.get_status_display().lower()}: rate its answers once it is done")
    name = f"{run.study.name}: answers of run {run.pk} rated"
    existing = Study.objects.filter(name=name, benchmark=rating_benchmark).first()
    if existing is not None:
        return existing
    model = f"{run.spec.name} (run {run.pk})"
    answers = run.responses.filter(variant=variant).select_related("item").order_by("item__key")
    records = [
        {"question_id": definition.rated_question_id(response.item.meta), "model": model, "answer": response.answer}
        for response in answers
    ]
    if not records:
        raise ModelRunError(f"run {run.pk} has no written answers to rate")
    try:
        rating_items_from_answers(records)
        # the rating study belongs to those who work on the rated study
        rating = study_create(
            name=name,
            benchmark=rating_benchmark,
            owner=run.study.owner,
            design={"models": model, "per_unit": raters_per_block, "unit_size": block_size},
        )
        rating.collaborators.set(run.study.collaborators.all())
        return rating
    except (DatasetError, StudyError, ValueError) as exc:
        raise ModelRunError(str(exc)) from exc
