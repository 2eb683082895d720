"""Writes about model runs: starting, claiming and completing shards, finishing, cancelling, resuming.

How a run survives killed workers: a run is cut into shards (runs of whole item groups). Every
shard gets a task; a task claims a shard with a conditional UPDATE (one winner, on SQLite and
PostgreSQL alike), sends heartbeats while the engine works, and writes the shard's answers and
its `done` mark in one transaction, with the (run, item, variant) constraint turning any second
write into a no-op. A shard whose worker stops sending heartbeats for `lease_seconds` can be
claimed again. A task keeps claiming shards of its run until none is left, and while other
workers hold the last ones it waits, so as long as one task of the run is alive the run finishes.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import traceback
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Mapping

from django.db import IntegrityError, transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from annotation.benchmarks.base import ModelAnswer
from modelruns import execution, selectors
from modelruns.engine import ENGINE_VERSION
from modelruns.models import ModelResponse, ModelRun, ModelShard, ModelSpec
from modelruns.scoring import LoadKey, Scorer, scorer_for
from studies.models import Study

logger = logging.getLogger(__name__)

#: a shard that raised this many times fails its run
MAX_ERRORS = 3
#: a shard claimed this many times without finishing (workers keep dying on it) fails its run
MAX_CLAIMS = 6
DEFAULT_SHARD_SIZE = 64
DEFAULT_LEASE_SECONDS = 120

#: called as on_progress(items done, items in the run)
RunProgress = Callable[[float, int], None]


class ModelRunError(ValueError):
    pass


@dataclass(frozen=True)
class StartedRun:
    run: ModelRun
    created: bool  # False: the same model, study and setting already had a live run


def worker_name(suffix: str = "") -> str:
    name = f"{socket.gethostname()}:{os.getpid()}"
    return f"{name}:{suffix}" if suffix else name


# -- specs and runs ---------------------------------------------------------------------------


def modelspec_get_or_create(*, model: str, revision: str = "", dtype: str = ModelSpec.Dtype.FLOAT32,
                            device: str = "auto", kind: str = ModelSpec.Kind.CAUSAL, name: str = "") -> ModelSpec:
    """The spec that loads `model` this way, created on first use (named after the model)."""
    model = model.strip()
    if not model:
        raise ModelRunError("a model is needed: a Hugging Face id, a local path or an alias such as smollm2")
    if dtype not in ModelSpec.Dtype.values:
        raise ModelRunError(f"dtype must be one of {', '.join(ModelSpec.Dtype.values)}, not {dtype!r}")
    if kind not in ModelSpec.Kind.values:
        raise ModelRunError(f"kind must be one of {', '.join(ModelSpec.Kind.values)}, not {kind!r}")
    lookup = {"model": model, "revision": revision.strip(), "dtype": dtype, "device": device.strip() or "auto", "kind": kind}
    spec = ModelSpec.objects.filter(**lookup).first()
    if spec is not None:
        return spec
    base = name.strip() or _spec_name(lookup)
    candidate, number = base, 1
    while ModelSpec.objects.filter(name=candidate).exists():
        number += 1
        candidate = f"{base} ({number})"
    try:
        with transaction.atomic():
            return ModelSpec.objects.create(name=candidate, **lookup)
    except IntegrityError:  # someone created the same spec a moment ago
        return ModelSpec.objects.get(**lookup)


def _spec_name(lookup: Mapping[str, str]) -> str:
    name = lookup["model"] + (f"@{lookup['revision']}" if lookup["revision"] else "")
    extras = [value for key, value in lookup.items()
              if key in ("dtype", "device", "kind") and value not in ("float32", "auto", "causal")]
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


def modelrun_start(*, study: Study, spec: ModelSpec, setting: Mapping[str, Any] | None = None,
                   shard_size: int = DEFAULT_SHARD_SIZE, lease_seconds: int = DEFAULT_LEASE_SECONDS,
                   enqueue: bool = True) -> StartedRun:
    """Create a run of `spec` over the study's items and queue its shards.

    Starting the same model, study and setting again returns the live run (and queues its
    unfinished shards again, which resumes a run whose workers were lost); a failed or cancelled
    run does not count, so starting again after a failure makes a fresh run.
    """
    definition = study.definition
    if spec.kind not in definition.model_kinds:
        raise ModelRunError(f"{definition.title} is scored with {' or '.join(definition.model_kinds)} models, "
                            f"not {spec.kind}")
    try:
        full = definition.model_setting(setting)
    except ValueError as exc:
        raise ModelRunError(str(exc)) from exc
    if shard_size < 1 or lease_seconds < 1:
        raise ModelRunError("shard size and lease must be at least 1")
    key = setting_key(full)
    live = ModelRun.objects.filter(study=study, spec=spec, setting_key=key).exclude(
        status__in=[ModelRun.Status.FAILED, ModelRun.Status.CANCELLED])
    existing = live.first()
    if existing is not None:
        if enqueue and existing.is_active:
            modelrun_enqueue(run=existing)
        return StartedRun(existing, False)
    items = selectors.study_items(study)
    if not items:
        raise ModelRunError(f"study {study.name!r} has no items to score")
    by_key = {item.key: item.pk for item in items}
    groups = definition.model_groups([selectors.item_data(item) for item in items], full)
    shards = _shard_item_ids([[by_key[key] for key in group] for group in groups], shard_size)
    try:
        with transaction.atomic():
            run = ModelRun.objects.create(study=study, spec=spec, setting=full, setting_key=key,
                                          progress_total=len(items), shard_size=shard_size,
                                          lease_seconds=lease_seconds, engine_version=ENGINE_VERSION)
            ModelShard.objects.bulk_create([ModelShard(run=run, index=index, item_ids=ids, size=len(ids))
                                            for index, ids in enumerate(shards)])
    except IntegrityError:  # the same run was started a moment ago, elsewhere
        return StartedRun(live.get(), False)
    if enqueue:
        modelrun_enqueue(run=run)
    return StartedRun(run, True)


def modelrun_enqueue(*, run: ModelRun) -> int:
    """Queue one task per unfinished shard (after the current transaction commits).

    A shard whose task is already queued gets a second one; the second finds nothing to claim.
    """
    from modelruns.tasks import run_shard

    ids = list(run.shards.exclude(status__in=[ModelShard.Status.DONE, ModelShard.Status.FAILED])
               .order_by("index").values_list("pk", flat=True))

    def send() -> None:
        for shard_id in ids:
            run_shard.enqueue(shard_id)

    transaction.on_commit(send)
    return len(ids)


def modelrun_cancel(*, run: ModelRun) -> ModelRun:
    """Stop a run: workers finish the shard in hand and take no more."""
    ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.ACTIVE).update(
        status=ModelRun.Status.CANCELLED, finished_at=timezone.now())
    run.refresh_from_db()
    return run


@transaction.atomic
def modelrun_resume(*, run: ModelRun) -> ModelRun:
    """Queue an active run's unfinished shards again, or retry a failed run's failed shards."""
    run = ModelRun.objects.select_for_update().get(pk=run.pk)
    if run.status == ModelRun.Status.FAILED:
        if ModelRun.objects.filter(study=run.study, spec=run.spec, setting_key=run.setting_key).exclude(
                status__in=[ModelRun.Status.FAILED, ModelRun.Status.CANCELLED]).exists():
            raise ModelRunError("another live run has the same model and setting")
        run.shards.filter(status=ModelShard.Status.FAILED).update(status=ModelShard.Status.PENDING, attempts=0, errors=0,
                                                                  error="")
        run.status, run.error, run.finished_at = ModelRun.Status.QUEUED, "", None
        run.save(update_fields=["status", "error", "finished_at"])
    if run.is_active:
        modelrun_enqueue(run=run)
    return run


def _modelrun_fail(run: ModelRun, error: str) -> None:
    ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.ACTIVE).update(
        status=ModelRun.Status.FAILED, error=error[:10000], finished_at=timezone.now())


def _modelrun_mark_running(run: ModelRun, identity: Mapping[str, str]) -> None:
    now = timezone.now()
    ModelRun.objects.filter(pk=run.pk, status=ModelRun.Status.QUEUED).update(status=ModelRun.Status.RUNNING, started_at=now)
    ModelRun.objects.filter(pk=run.pk, started_at__isnull=True).update(started_at=now)
    if identity and run.model_identity != identity:
        ModelRun.objects.filter(pk=run.pk).update(model_identity=dict(identity))


def modelrun_finish_if_complete(*, run: ModelRun) -> bool:
    """Mark the run done when every shard is; True when it is (now or before)."""
    if run.shards.exclude(status=ModelShard.Status.DONE).exists():
        return False
    ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.ACTIVE).update(
        status=ModelRun.Status.DONE, finished_at=timezone.now(), progress_done=F("progress_total"))
    return True


# -- shards -----------------------------------------------------------------------------------


def _claimable(run: ModelRun, now) -> Q:
    stale = now - timedelta(seconds=run.lease_seconds)
    return Q(status=ModelShard.Status.PENDING) | Q(status=ModelShard.Status.RUNNING, heartbeat_at__lt=stale)


def shard_claim(*, run: ModelRun, worker: str, prefer: int | None = None) -> ModelShard | None:
    """Take a pending shard, or one whose worker went silent; `prefer` is tried first.

    The claim is a conditional UPDATE: of two workers racing for a shard exactly one matches.
    """
    now = timezone.now()
    claimable = _claimable(run, now)
    candidates = list(run.shards.filter(claimable).order_by("index").values_list("pk", "attempts"))
    candidates.sort(key=lambda row: row[0] != prefer)
    for pk, attempts in candidates:
        if attempts >= MAX_CLAIMS:
            if ModelShard.objects.filter(Q(pk=pk) & claimable).update(status=ModelShard.Status.FAILED, finished_at=now,
                                                                       error="claimed too often without finishing"):
                _modelrun_fail(run, f"shard {pk} was claimed {attempts} times without finishing: "
                                    "workers keep stopping on it (out of memory?)")
            return None
        claimed = ModelShard.objects.filter(Q(pk=pk) & claimable).update(
            status=ModelShard.Status.RUNNING, worker=worker, heartbeat_at=now, attempts=F("attempts") + 1)
        if claimed:
            return ModelShard.objects.get(pk=pk)
    return None


def shard_heartbeat(*, shard: ModelShard, worker: str) -> bool:
    """Renew the lease; False when another worker took the shard over (its answers will match)."""
    return bool(ModelShard.objects.filter(pk=shard.pk, worker=worker, status=ModelShard.Status.RUNNING)
                .update(heartbeat_at=timezone.now()))


@transaction.atomic
def shard_complete(*, shard: ModelShard, worker: str, answers: Mapping[int, ModelAnswer]) -> int:
    """Write a shard's answers and mark it done; returns how many rows were new.

    Idempotent: answers already stored (a retry, a worker presumed dead that finished after all)
    are left alone by the unique constraint, and a done shard stays done.
    """
    # Locking the run row serialises the shards of one run finishing at the same moment, so the
    # progress sum each computes includes the others' committed shards.
    run = ModelRun.objects.select_for_update().get(pk=shard.run_id)
    existing = ModelResponse.objects.filter(run=run, item_id__in=list(answers)).count()
    ModelResponse.objects.bulk_create([
        ModelResponse(run=run, item_id=item_id, variant=answer.variant, raw_answer=answer.raw_answer,
                      answer=answer.answer, valid=answer.valid, correct=answer.correct, scores=dict(answer.scores),
                      truncated_tokens=answer.truncated_tokens)
        for item_id, answer in answers.items()
    ], ignore_conflicts=True, batch_size=500)
    created = ModelResponse.objects.filter(run=run, item_id__in=list(answers)).count() - existing
    now = timezone.now()
    if ModelShard.objects.filter(pk=shard.pk).exclude(status=ModelShard.Status.DONE).update(
            status=ModelShard.Status.DONE, finished_at=now, worker=worker, error=""):
        done = run.shards.filter(status=ModelShard.Status.DONE).aggregate(items=Sum("size"))["items"] or 0
        ModelRun.objects.filter(pk=run.pk).update(progress_done=min(done, run.progress_total))
    modelrun_finish_if_complete(run=run)
    return created


def shard_fail(*, shard: ModelShard, worker: str, error: str) -> None:
    """Give the shard back for another try, or fail it (and the run) after MAX_ERRORS errors."""
    errors = shard.errors + 1
    if errors >= MAX_ERRORS:
        ModelShard.objects.filter(pk=shard.pk).update(status=ModelShard.Status.FAILED, errors=errors,
                                                      error=error[-10000:], finished_at=timezone.now())
        _modelrun_fail(shard.run, f"shard {shard.index} failed {errors} times; last error:\n{error[-8000:]}")
    else:
        ModelShard.objects.filter(pk=shard.pk, worker=worker).update(status=ModelShard.Status.PENDING, errors=errors,
                                                                     error=error[-10000:])


# -- doing the work ---------------------------------------------------------------------------


def _scorer(spec: ModelSpec) -> Scorer:
    return scorer_for(LoadKey(spec.model, spec.revision, spec.dtype, spec.device, spec.kind))


def _open_shards(run: ModelRun):
    return run.shards.filter(status__in=[ModelShard.Status.PENDING, ModelShard.Status.RUNNING])


def _seconds_until_claimable(run: ModelRun) -> float | None:
    """0 when a shard can be claimed now, the wait until the next lease runs out, None when all are finished."""
    beats = list(_open_shards(run).values_list("status", "heartbeat_at"))
    if not beats:
        return None
    if any(status == ModelShard.Status.PENDING for status, _ in beats):
        return 0.0
    now = timezone.now()
    expiries = [(beat + timedelta(seconds=run.lease_seconds) - now).total_seconds() for _, beat in beats if beat]
    return max(0.0, min(expiries)) if expiries else 0.0


class _Heartbeat:
    """The engine's progress callback: renews the lease now and then and reports progress."""

    def __init__(self, shard: ModelShard, worker: str, run: ModelRun, on_progress: RunProgress | None) -> None:
        self.shard, self.worker, self.run, self.on_progress = shard, worker, run, on_progress
        self.interval = max(0.5, run.lease_seconds / 6)
        self.last = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        if time.monotonic() - self.last >= self.interval:
            shard_heartbeat(shard=self.shard, worker=self.worker)
            self.last = time.monotonic()
        if self.on_progress is not None and total:
            self.on_progress(self.run.progress_done + self.shard.size * done / total, self.run.progress_total)


def _shard_process(run: ModelRun, shard: ModelShard, scorer: Scorer, worker: str,
                   on_progress: RunProgress | None) -> None:
    try:
        answers = execution.shard_answers(run, shard, scorer, _Heartbeat(shard, worker, run, on_progress))
    except Exception:  # noqa: BLE001 - any error of one shard is recorded on it, and retried
        logger.exception("shard %s of run %s failed", shard.index, run.pk)
        shard_fail(shard=shard, worker=worker, error=traceback.format_exc())
        return
    shard_complete(shard=shard, worker=worker, answers=answers)


def modelrun_work(*, run: ModelRun, worker: str, prefer: int | None = None,
                  on_progress: RunProgress | None = None, sleep: Callable[[float], None] = time.sleep) -> int:
    """Claim and score shards of `run` until none is left; returns how many this call scored.

    While every remaining shard is held by another worker, wait: if that worker dies its lease
    runs out and this call takes the shard over.
    """
    run = ModelRun.objects.select_related("spec", "study").filter(pk=run.pk).first()
    if run is None:  # deleted while its tasks waited in the queue
        return 0
    if run.status not in ModelRun.ACTIVE or _seconds_until_claimable(run) is None:
        modelrun_finish_if_complete(run=run)
        return 0
    scorer = _scorer(run.spec)
    try:
        scorer.load()
    except Exception as exc:  # noqa: BLE001 - the run says why, instead of retrying forever
        logger.exception("loading %s failed", run.spec)
        _modelrun_fail(run, f"loading {run.spec.model!r} failed: {type(exc).__name__}: {exc}")
        return 0
    _modelrun_mark_running(run, scorer.identity())
    scored = 0
    while True:
        run.refresh_from_db(fields=["status", "progress_done"])
        if run.status not in ModelRun.ACTIVE:
            break
        shard = shard_claim(run=run, worker=worker, prefer=prefer)
        if shard is not None:
            _shard_process(run, shard, scorer, worker, on_progress)
            scored += 1
            if on_progress is not None:
                run.refresh_from_db(fields=["progress_done"])
                on_progress(run.progress_done, run.progress_total)
            continue
        wait = _seconds_until_claimable(run)
        if wait is None:
            break
        sleep(min(max(wait, 0.2), 2.0))
    modelrun_finish_if_complete(run=run)
    return scored


def shard_work(*, shard_id: int, worker: str) -> int:
    """The task body: work on the shard's run, starting with that shard."""
    shard = ModelShard.objects.select_related("run").filter(pk=shard_id).first()
    if shard is None:
        return 0
    return modelrun_work(run=shard.run, worker=worker, prefer=shard_id)


def modelruns_start(*, study: Study, spec: ModelSpec, overrides: Mapping[str, Any] | None = None, sweep: bool = False,
                    shard_size: int = DEFAULT_SHARD_SIZE, lease_seconds: int = DEFAULT_LEASE_SECONDS,
                    enqueue: bool = True) -> list[StartedRun]:
    """One run with the default setting (plus `overrides`), or with `sweep` one per setting of the
    benchmark's grid (each with `overrides` applied)."""
    definition = study.definition
    try:
        settings = [{**grid, **(overrides or {})} for grid in definition.model_settings(sweep=True)] if sweep \
            else [dict(overrides or {})]
    except ValueError as exc:
        raise ModelRunError(str(exc)) from exc
    return [modelrun_start(study=study, spec=spec, setting=setting, shard_size=shard_size,
                           lease_seconds=lease_seconds, enqueue=enqueue) for setting in settings]
