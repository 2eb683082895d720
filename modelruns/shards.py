"""What a worker does with a model run's shards: claim a shard, score it, write its answers, finish the run.

How a run survives killed workers: a run is cut into shards (runs of whole item groups). Every
shard gets a task; a task claims a shard with a conditional UPDATE (one winner, on SQLite and
PostgreSQL alike), sends heartbeats while the engine works, and writes the shard's answers and
its `done` mark in one transaction, with the (run, item, variant) constraint turning any second
write into a no-op. A shard whose worker stops sending heartbeats for `lease_seconds` can be
claimed again. A task keeps claiming shards of its run until none is left, and while other
workers hold the last ones it waits, so as long as one task of the run is alive the run finishes.
Queueing the tasks, and the sweep that takes back what killed workers left, are in
`modelruns.services`; the task itself (`modelruns.tasks`) calls `shard_work`.

How a shard that fails is retried: an error while scoring it, its model failing to load included,
gives it back with the error, the worker that raised it and a back-off (`MODEL_SHARD_BACKOFF_SECONDS`,
doubled at each error) before which no worker claims it; any worker of the run may then take it, the
one that failed or another. Its run fails only when one shard has failed `MODEL_SHARD_TRIES` times,
with the shard, the worker and the error in the run's error; the answers of the shards finished
stay stored, and `modelruns.services.modelrun_resume` tries the failed shards again.

How a run is cancelled while it runs: `modelruns.services.modelrun_cancel` stores the request on
the run (`cancel_requested_at`). A worker reads it at every batch boundary (the engine's progress
callback) and before every shard; it then gives the shard in hand back unwritten (its partial
answers are dropped) and ends the run `cancelled`. Answers of shards finished before stay stored,
but only `done` runs count in the results.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, PositiveIntegerField, Q, Sum, When
from django.utils import timezone

from modelruns import shard_answers
from modelruns.models import ModelResponse, ModelRun, ModelShard, ModelSpec
from modelruns.storable import stored_answer
from parity.benchmarks.base import ModelAnswer, answer_variants
from studies.participants.quality_signals import signals_refresh_queue
from studies.results_token import results_changed

if TYPE_CHECKING:
    from modelruns.scorers import Scorer
    from parity.engine.api import Usage

logger = logging.getLogger(__name__)

#: a shard claimed this many times without finishing (workers keep dying on it) fails its run
MAX_CLAIMS = 6

#: called as on_progress(items done, items in the run)
RunProgress = Callable[[float, int], None]


def worker_name(suffix: str = "") -> str:
    name = f"{socket.gethostname()}:{os.getpid()}"
    return f"{name}:{suffix}" if suffix else name


def _modelrun_fail(run: ModelRun, error: str) -> None:
    if ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.ACTIVE).update(
        status=ModelRun.Status.FAILED, error=error[:10000], finished_at=timezone.now()
    ):
        results_changed(study_ids=[run.study_id])


def _modelrun_mark_running(run: ModelRun, identity: Mapping[str, Any]) -> None:
    now = timezone.now()
    # conditional on the status: a run cancelled while queued is never started
    ModelRun.objects.filter(pk=run.pk, status=ModelRun.Status.QUEUED).update(
        status=ModelRun.Status.RUNNING, started_at=now
    )
    ModelRun.objects.filter(pk=run.pk, status=ModelRun.Status.RUNNING, started_at__isnull=True).update(started_at=now)
    if identity and run.model_identity != identity:
        ModelRun.objects.filter(pk=run.pk).update(model_identity=dict(identity))


def modelrun_finish_if_complete(*, run: ModelRun) -> bool:
    """Mark the run done when every shard is; True when every shard is (now or before).

    A run asked to cancel before its last shard finished ends cancelled all the same: what the
    researcher asked for is what the run says."""
    if run.shards.exclude(status=ModelShard.Status.DONE).exists():
        return False
    if ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.ACTIVE, cancel_requested_at__isnull=True).update(
        status=ModelRun.Status.DONE, finished_at=timezone.now(), progress_done=F("progress_total")
    ):
        # a finished run enters its study's results, and the model-likeness flags compare people with it
        results_changed(study_ids=[run.study_id])
        signals_refresh_queue(study_ids=[run.study_id])
    modelrun_end_cancelled(run=run)
    return True


def modelrun_end_cancelled(*, run: ModelRun) -> bool:
    """End an active run whose cancel was asked for as `cancelled`; True when this call did."""
    ended = bool(
        ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.ACTIVE, cancel_requested_at__isnull=False).update(
            status=ModelRun.Status.CANCELLED, finished_at=timezone.now()
        )
    )
    if ended:
        results_changed(study_ids=[run.study_id])
    return ended


class RunStopped(Exception):
    """Raised at a batch boundary when the run was cancelled (or failed, or deleted) meanwhile."""


def modelrun_should_stop(*, run: ModelRun) -> bool:
    """True when the run's workers must stop: a cancel was asked, or it is no longer active."""
    row = ModelRun.objects.filter(pk=run.pk).values_list("status", "cancel_requested_at").first()
    return row is None or row[0] not in ModelRun.ACTIVE or row[1] is not None


# -- shards -----------------------------------------------------------------------------------


def _claimable(run: ModelRun, now) -> Q:
    stale = now - timedelta(seconds=run.lease_seconds)
    due = Q(retry_at__isnull=True) | Q(retry_at__lte=now)
    return Q(status=ModelShard.Status.PENDING) & due | Q(status=ModelShard.Status.RUNNING, heartbeat_at__lt=stale)


def shard_claim(*, run: ModelRun, worker: str, prefer: int | None = None) -> ModelShard | None:
    """Take a pending shard, or one whose worker went silent; `prefer` is tried first, and a shard
    whose last error was on this worker last.

    The claim is a conditional UPDATE: of two workers racing for a shard exactly one matches.
    """
    now = timezone.now()
    claimable = _claimable(run, now)
    candidates = list(run.shards.filter(claimable).order_by("index").values_list("pk", "attempts", "worker", "errors"))
    # `prefer` first; a shard that raised on this very worker last, so that another worker tries it
    candidates.sort(key=lambda row: (row[0] != prefer, row[2] == worker and row[3] > 0))
    for pk, attempts, _, _ in candidates:
        if attempts >= MAX_CLAIMS:
            if ModelShard.objects.filter(Q(pk=pk) & claimable).update(
                status=ModelShard.Status.FAILED, finished_at=now, error="claimed too often without finishing"
            ):
                _modelrun_fail(
                    run,
                    f"shard {pk} was claimed {attempts} times without finishing: "
                    "workers keep stopping on it (out of memory?)",
                )
            return None
        # the SET expressions read the row as it was: a RUNNING shard here is one whose lease ran out
        taken_over = Q(status=ModelShard.Status.RUNNING)
        claimed = ModelShard.objects.filter(Q(pk=pk) & claimable).update(
            status=ModelShard.Status.RUNNING,
            worker=worker,
            heartbeat_at=now,
            attempts=F("attempts") + 1,
            items_done=0,
            reclaims=Case(
                When(taken_over, then=F("reclaims") + 1), default=F("reclaims"), output_field=PositiveIntegerField()
            ),
            reclaimed_at=Case(When(taken_over, then=now), default=F("reclaimed_at")),
        )
        if claimed:
            return ModelShard.objects.get(pk=pk)
    return None


def shard_heartbeat(*, shard: ModelShard, worker: str, items_done: int | None = None) -> bool:
    """Renew the lease (and say how many of its items are answered); False when another worker
    took the shard over (its answers will match)."""
    fields: dict[str, object] = {"heartbeat_at": timezone.now()}
    if items_done is not None:
        fields["items_done"] = max(0, min(items_done, shard.size))
    return bool(
        ModelShard.objects.filter(pk=shard.pk, worker=worker, status=ModelShard.Status.RUNNING).update(**fields)
    )


def shard_release(*, shard: ModelShard, worker: str) -> None:
    """Give a shard back unfinished and unwritten (its run was stopped); not counted as an error."""
    ModelShard.objects.filter(pk=shard.pk, worker=worker, status=ModelShard.Status.RUNNING).update(
        status=ModelShard.Status.PENDING, items_done=0
    )


@transaction.atomic
def shard_complete(
    *, shard: ModelShard, worker: str, answers: Mapping[int, ModelAnswer | Sequence[ModelAnswer]]
) -> int:
    """Write a shard's answers and mark it done; returns how many rows were new.

    Idempotent: answers already stored (a retry, a worker presumed dead that finished after all)
    are left alone by the unique constraint, and a done shard stays done.
    """
    # Locking the run row serialises the shards of one run finishing at the same moment, so the
    # progress sum each computes includes the others' committed shards.
    run = ModelRun.objects.select_for_update().get(pk=shard.run_id)
    existing = ModelResponse.objects.filter(run=run, item_id__in=list(answers)).count()
    ModelResponse.objects.bulk_create(
        [
            stored_answer(run, item_id, answer, answer.scores)
            for item_id, given in answers.items()
            for answer in answer_variants(given)
        ],
        ignore_conflicts=True,
        batch_size=500,
    )
    created = ModelResponse.objects.filter(run=run, item_id__in=list(answers)).count() - existing
    now = timezone.now()
    if (
        ModelShard.objects.filter(pk=shard.pk)
        .exclude(status=ModelShard.Status.DONE)
        .update(status=ModelShard.Status.DONE, finished_at=now, worker=worker, error="")
    ):
        done = run.shards.filter(status=ModelShard.Status.DONE).aggregate(items=Sum("size"))["items"] or 0
        ModelRun.objects.filter(pk=run.pk).update(progress_done=min(done, run.progress_total))
    modelrun_finish_if_complete(run=run)
    return created


def shard_fail(*, shard: ModelShard, worker: str, error: str) -> None:
    """Give the shard back for another try after a back-off, or fail it, and its run, once it has
    failed `MODEL_SHARD_TRIES` times. The run's error names the shard, the worker and the error."""
    errors = shard.errors + 1
    now = timezone.now()
    if errors >= settings.MODEL_SHARD_TRIES:
        ModelShard.objects.filter(pk=shard.pk).update(
            status=ModelShard.Status.FAILED, errors=errors, error=error[-10000:], finished_at=now, retry_at=None
        )
        _modelrun_fail(
            shard.run,
            f"shard {shard.index} failed {errors} times, the last time on worker {worker}; its error:\n{error[-8000:]}",
        )
    else:
        ModelShard.objects.filter(pk=shard.pk, worker=worker).update(
            status=ModelShard.Status.PENDING,
            errors=errors,
            error=error[-10000:],
            retry_at=now + timedelta(seconds=backoff_seconds(errors)),
        )


def backoff_seconds(errors: int) -> float:
    """How long a shard that has failed `errors` times waits before its next try."""
    return float(settings.MODEL_SHARD_BACKOFF_SECONDS * 2 ** (errors - 1))


# -- doing the work ---------------------------------------------------------------------------


def modelrun_add_usage(*, run: ModelRun, usage: Usage) -> None:
    """Add what an API server counted for this run's work (spent whether or not the shard finished)."""
    if usage.requests or usage.prompt_tokens or usage.completion_tokens:
        ModelRun.objects.filter(pk=run.pk).update(
            prompt_tokens=F("prompt_tokens") + usage.prompt_tokens,
            completion_tokens=F("completion_tokens") + usage.completion_tokens,
            api_requests=F("api_requests") + usage.requests,
        )


def open_shards(run: ModelRun):
    return run.shards.filter(status__in=[ModelShard.Status.PENDING, ModelShard.Status.RUNNING])


def _seconds_until_claimable(run: ModelRun) -> float | None:
    """0 when a shard can be claimed now, the wait until the next lease runs out or the next back-off
    ends, None when all are finished."""
    beats = list(open_shards(run).values_list("status", "heartbeat_at", "retry_at"))
    if not beats:
        return None
    now = timezone.now()
    if any(status == ModelShard.Status.PENDING and (retry is None or retry <= now) for status, _, retry in beats):
        return 0.0
    expiries = [
        (beat + timedelta(seconds=run.lease_seconds) - now).total_seconds()
        for status, beat, _ in beats
        if status == ModelShard.Status.RUNNING and beat
    ]
    # shards backing off after an error are claimable at their retry time
    expiries += [(retry - now).total_seconds() for status, _, retry in beats if retry and retry > now]
    return max(0.0, min(expiries)) if expiries else 0.0


#: the most seconds between two writes of a shard's progress (the runs panel polls every 2 s)
PROGRESS_SECONDS = 1.0


class _Heartbeat:
    """The engine's progress callback, called at every batch boundary: renews the lease and writes
    the shard's progress now and then, reports progress, and stops the shard (RunStopped) once
    the run is cancelled."""

    def __init__(self, shard: ModelShard, worker: str, run: ModelRun, on_progress: RunProgress | None) -> None:
        self.shard, self.worker, self.run, self.on_progress = shard, worker, run, on_progress
        self.interval = min(PROGRESS_SECONDS, max(0.5, run.lease_seconds / 6))
        self.last = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        if time.monotonic() - self.last >= self.interval:
            items = int(self.shard.size * done / total) if total else None
            shard_heartbeat(shard=self.shard, worker=self.worker, items_done=items)
            self.last = time.monotonic()
        if self.on_progress is not None and total:
            self.on_progress(self.run.progress_done + self.shard.size * done / total, self.run.progress_total)
        if modelrun_should_stop(run=self.run):
            raise RunStopped(f"run {self.run.pk} was cancelled or has ended")


def _usage(scorers: Sequence[Scorer]) -> Usage:
    """What the API servers behind a run's model and its executor counted so far, together."""
    # the API client is loaded by a worker that scores, not with the admin at every start
    from parity.engine.api import Usage

    counted = [scorer.usage() for scorer in scorers]
    return Usage(
        sum(u.prompt_tokens for u in counted),
        sum(u.completion_tokens for u in counted),
        sum(u.requests for u in counted),
    )


def _shard_process(
    run: ModelRun,
    shard: ModelShard,
    scorer: Scorer,
    worker: str,
    on_progress: RunProgress | None,
    executor: Scorer | None = None,
) -> bool:
    """Score the shard and write its answers; False when it raised (and was given back or failed)."""
    scorers = [scorer] if executor is None else [scorer, executor]
    before = _usage(scorers)
    try:
        answers = shard_answers.shard_answers(
            run, shard, scorer, _Heartbeat(shard, worker, run, on_progress), executor=executor
        )
    except RunStopped:
        shard_release(shard=shard, worker=worker)
        raise
    except Exception:  # noqa: BLE001 - any error of one shard is recorded on it, and retried
        logger.exception("shard %s of run %s failed", shard.index, run.pk)
        shard_fail(shard=shard, worker=worker, error=traceback.format_exc())
        return False
    finally:
        modelrun_add_usage(run=run, usage=_usage(scorers) - before)
    shard_complete(shard=shard, worker=worker, answers=answers)
    return True


def _executor_spec(run: ModelRun) -> ModelSpec | None:
    """The spec that executes the run's instructions when its setting names another model than the
    run's own (instruction induction); None when the run's own model does. LookupError when the
    named spec is gone."""
    name = run.study.definition.model_executor(run.setting)
    if not name or name == run.spec.name:
        return None
    spec = ModelSpec.objects.filter(name=name).first()
    if spec is None:
        raise LookupError(f"the run's executor {name!r} is no model known here (renamed or deleted?)")
    return spec


def _models_load(run: ModelRun, loads: Sequence[tuple[ModelSpec, Scorer]]) -> str:
    """Load the run's model (and its executor); what went wrong, or "" when both loaded."""
    scorers = [loading for _, loading in loads]
    before = _usage(scorers)
    try:
        for spec, loading in loads:
            try:
                loading.load()
            except Exception as exc:  # noqa: BLE001 - the shard records why, and is retried
                logger.exception("loading %s failed", spec)
                return f"loading {spec.model!r} failed: {type(exc).__name__}: {exc}"
    finally:  # asking an API server what it can do costs a few tokens
        modelrun_add_usage(run=run, usage=_usage(scorers) - before)
    return ""


def modelrun_work(
    *,
    run: ModelRun,
    worker: str,
    prefer: int | None = None,
    on_progress: RunProgress | None = None,
    sleep: Callable[[float], None] = time.sleep,
    give_way: bool = False,
) -> int:
    """Claim and score shards of `run` until none is left; returns how many this call scored.

    While every remaining shard is held by another worker, wait: if that worker dies its lease
    runs out and this call takes the shard over. `give_way` (a queued task): stop after a scored
    shard when another run has a shard waiting that no worker holds; the run's other shards keep
    their own queued tasks (a task ends having scored a shard, or with none of its run left open),
    which the queue serves in turn with the other runs'.
    """
    fresh = ModelRun.objects.select_related("spec", "study").filter(pk=run.pk).first()
    if fresh is None:  # deleted while its tasks waited in the queue
        return 0
    run = fresh
    if run.cancel_requested_at is not None:
        modelrun_end_cancelled(run=run)
        return 0
    if run.status not in ModelRun.ACTIVE or _seconds_until_claimable(run) is None:
        modelrun_finish_if_complete(run=run)
        return 0
    try:
        executor_spec = _executor_spec(run)
    except LookupError as exc:
        _modelrun_fail(run, str(exc))
        return 0
    # the engine and its scorers are loaded by a worker that scores, not with the admin at every start
    from modelruns.scorers import scorer_of

    # the run's model and its executor stay loaded together while the run's shards last
    scorer = scorer_of(run.spec, alongside=[executor_spec] if executor_spec else [])
    executor = scorer_of(executor_spec, alongside=[run.spec]) if executor_spec else None
    loads = [(run.spec, scorer)] + ([(executor_spec, executor)] if executor_spec and executor else [])
    loaded = False
    load_again_at = 0.0  # after a failed load, this worker waits the back-off before loading again
    scored = 0
    while True:
        run.refresh_from_db(fields=["status", "progress_done", "cancel_requested_at"])
        if run.status not in ModelRun.ACTIVE or run.cancel_requested_at is not None:
            break
        if not loaded:
            if time.monotonic() < load_again_at:
                sleep(min(load_again_at - time.monotonic(), 2.0))
                continue
            # loaded before a shard is claimed (a shard's lease is renewed only while it is scored):
            # a model that fails to load on this worker (a file missing here, a GPU out of memory) is
            # an error of the shard it would have scored, which is tried again after its back-off
            failure = _models_load(run, loads)
            if failure:
                failed = shard_claim(run=run, worker=worker, prefer=prefer)
                if failed is not None:
                    shard_fail(shard=failed, worker=worker, error=failure)
                    load_again_at = time.monotonic() + backoff_seconds(failed.errors + 1)
                    continue
                wait = _seconds_until_claimable(run)  # none to claim now: try again when there is
                if wait is None:
                    break
                load_again_at = time.monotonic() + max(wait, 0.2)
                continue
            loaded = True
            identity: dict[str, Any] = dict(scorer.identity())
            if executor is not None and executor_spec is not None:
                identity["executor"] = {"name": executor_spec.name, **executor.identity()}
            _modelrun_mark_running(run, identity)
        shard = shard_claim(run=run, worker=worker, prefer=prefer)
        if shard is not None:
            try:
                completed = _shard_process(run, shard, scorer, worker, on_progress, executor)
            except RunStopped:
                break
            scored += completed
            if on_progress is not None:
                run.refresh_from_db(fields=["progress_done"])
                on_progress(run.progress_done, run.progress_total)
            if give_way and another_run_waits(run):
                break
            continue
        wait = _seconds_until_claimable(run)
        if wait is None:
            break
        sleep(min(max(wait, 0.2), 2.0))
    if not modelrun_end_cancelled(run=run):
        modelrun_finish_if_complete(run=run)
    return scored


def shard_work(*, shard_id: int, worker: str) -> int:
    """The task body: work on the shard's run, starting with that shard."""
    shard = ModelShard.objects.select_related("run").filter(pk=shard_id).first()
    if shard is None:
        return 0
    return modelrun_work(run=shard.run, worker=worker, prefer=shard_id, give_way=True)


def another_run_waits(run: ModelRun) -> bool:
    """Whether a run other than `run`, active and not being cancelled, has a shard ready to claim;
    for a run in the foreground, a run in the background does not count (it is served after it)."""
    now = timezone.now()
    waiting = (
        ModelShard.objects.filter(
            status=ModelShard.Status.PENDING,
            run__status__in=ModelRun.ACTIVE,
            run__cancel_requested_at__isnull=True,
        )
        .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now))
        .exclude(run_id=run.pk)
    )
    if not run.background:
        waiting = waiting.filter(run__background=False)
    return waiting.exists()
