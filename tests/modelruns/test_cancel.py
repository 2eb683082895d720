"""Queue places and cancelling: a queued run is cancelled before any worker starts it, a running
one stops at its next batch, and a cancelled run never counts in the results."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from modelruns import selectors, services, shards
from modelruns.models import ModelResponse, ModelRun, ModelShard
from modelruns.scorers import scorer_of
from results.loading.selectors import load_study_data

pytestmark = pytest.mark.django_db


class WorkerKilled(BaseException):
    """Stands in for SIGKILL: nothing in the worker catches it, so it leaves what it held behind."""


def _start(study, spec, template: int = 2, **kwargs):
    kwargs.setdefault("shard_size", 4)
    kwargs.setdefault("enqueue", False)
    return services.modelrun_start(study=study, spec=spec, setting={"template": template}, **kwargs).run


@pytest.fixture
def batch_by_batch(tiny_spec, monkeypatch):
    """The tiny model scores one row per batch and reads no cached scores, so a shard of four items
    takes several batches: a cancel can land between two of them."""
    engine = scorer_of(tiny_spec).engine()
    monkeypatch.setattr(engine, "max_batch_rows", 1)
    monkeypatch.setattr(engine, "cache", None)
    return engine


def test_a_queued_run_counts_the_runs_waiting_before_it_not_the_running_ones(small_implicature_study, tiny_spec):
    first, second, third = (_start(small_implicature_study, tiny_spec, template) for template in (1, 2, 3))
    assert selectors.queue_positions() == {first.pk: 1, second.pk: 2, third.pk: 3}
    seen_while_running = []

    def watch(done: float, total: int) -> None:
        if ModelRun.objects.get(pk=first.pk).status == ModelRun.Status.RUNNING:
            seen_while_running.append(selectors.queue_positions())

    shards.modelrun_work(run=first, worker="w1", on_progress=watch)
    # the running run's later shards come after a queued run's first (the queue takes shards in turn)
    assert seen_while_running and all(seen == {second.pk: 1, third.pk: 2} for seen in seen_while_running)
    assert selectors.queue_positions() == {second.pk: 1, third.pk: 2}
    panel = {run.pk: run.queue_position for run in selectors.runs_panel(small_implicature_study)}
    assert panel == {first.pk: None, second.pk: 1, third.pk: 2}


@pytest.mark.django_db(transaction=True)  # the database worker closes its connection between tasks
def test_a_queued_run_is_cancelled_at_once_and_no_worker_starts_it(small_implicature_study, tiny_spec):
    # their tasks are in the database queue
    first = _start(small_implicature_study, tiny_spec, 1, enqueue=True)
    second = _start(small_implicature_study, tiny_spec, 2, enqueue=True)
    cancelled = services.modelrun_cancel(run=first)
    assert cancelled.status == ModelRun.Status.CANCELLED and cancelled.started_at is None
    assert cancelled.cancel_requested_at == cancelled.finished_at is not None
    assert selectors.queue_positions() == {second.pk: 1}
    assert DBTaskResult.objects.filter(queue_name="models").count() == 6  # a task per shard, 3 each
    call_command(
        "db_worker", "--queue-name", "models", "--batch", "--no-startup-delay", stdout=StringIO(), stderr=StringIO()
    )
    first.refresh_from_db()
    assert first.status == ModelRun.Status.CANCELLED and first.started_at is None
    assert not first.responses.exists() and not first.shards.exclude(attempts=0).exists()  # never claimed
    second.refresh_from_db()
    assert second.status == ModelRun.Status.DONE and second.responses.count() == 10
    # a second click changes nothing
    again = services.modelrun_cancel(run=first)
    assert again.status == ModelRun.Status.CANCELLED and again.finished_at == cancelled.finished_at


def test_a_running_run_stops_at_the_next_batch_and_keeps_only_finished_shards(
    small_implicature_study, tiny_spec, batch_by_batch
):
    run = _start(small_implicature_study, tiny_spec)  # shards of 4, 4 and 2 items
    reported: list[float] = []
    states: list[tuple[str, bool]] = []

    def cancel_in_the_second_shard(done: float, total: int) -> None:
        reported.append(done)
        if done >= 5 and not states:  # one item into the second shard
            asked = services.modelrun_cancel(run=run)
            states.append((asked.status, asked.is_stopping))

    shards.modelrun_work(run=run, worker="w1", on_progress=cancel_in_the_second_shard)
    # the request is stored on the running run; the worker, not the request, ends it
    assert states == [(ModelRun.Status.RUNNING, True)]
    assert reported[-1] == 5  # nothing more was scored after the batch where the cancel landed
    run.refresh_from_db()
    assert run.status == ModelRun.Status.CANCELLED and run.finished_at >= run.cancel_requested_at
    rows = list(run.shards.order_by("index").values_list("status", "items_done", "attempts"))
    assert rows == [
        (ModelShard.Status.DONE, rows[0][1], 1),
        (ModelShard.Status.PENDING, 0, 1),  # given back unwritten: its partial answers are dropped
        (ModelShard.Status.PENDING, 0, 0),  # never claimed
    ]
    assert ModelResponse.objects.filter(run=run).count() == 4 == run.progress_done
    assert load_study_data(small_implicature_study).runs == []  # a cancelled run never counts
    # a fresh start of the same setting is a new run, not the cancelled one resumed
    fresh = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, setting={"template": 2})
    assert fresh.created and fresh.run.pk != run.pk


def test_the_engines_progress_is_written_on_the_shard_while_it_runs(
    small_implicature_study, tiny_spec, batch_by_batch, monkeypatch
):
    monkeypatch.setattr(shards, "PROGRESS_SECONDS", 0)
    run = _start(small_implicature_study, tiny_spec, shard_size=100)
    seen: list[tuple[int, int]] = []

    def watch(done: float, total: int) -> None:
        panel = {row.pk: row for row in selectors.runs_panel(small_implicature_study)}[run.pk]
        seen.append((panel.progress_now, panel.percent))

    shards.modelrun_work(run=run, worker="w1", on_progress=watch)
    done_in_flight = [progress for progress, _ in seen if 0 < progress < 10]
    assert done_in_flight and done_in_flight == sorted(done_in_flight)  # it moves within the one shard


def test_cancelling_a_running_run_that_no_worker_holds_ends_it_at_once(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec)

    def killed_between_shards(done: float, total: int) -> None:
        if done >= 4 and not ModelShard.objects.filter(run=run, status=ModelShard.Status.RUNNING).exists():
            raise WorkerKilled

    with pytest.raises(WorkerKilled):
        shards.modelrun_work(run=run, worker="w1", on_progress=killed_between_shards)
    assert ModelRun.objects.get(pk=run.pk).status == ModelRun.Status.RUNNING
    cancelled = services.modelrun_cancel(run=run)
    assert cancelled.status == ModelRun.Status.CANCELLED and cancelled.progress_done == 4
    assert cancelled.finished_at >= cancelled.cancel_requested_at  # no worker left to wait for


def test_the_sweep_ends_a_cancelled_run_whose_worker_was_killed_holding_a_shard(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec, lease_seconds=30)

    def killed_in_the_first_shard(done: float, total: int) -> None:
        raise WorkerKilled

    with pytest.raises(WorkerKilled):
        shards.modelrun_work(run=run, worker="w1", on_progress=killed_in_the_first_shard)
    asked = services.modelrun_cancel(run=run)
    assert asked.is_stopping  # the dead worker's lease has not run out: it might still be alive
    assert services.modelrun_sweep() == services.SweepReport(0, 0, 0, 0)
    later = timezone.now() + timedelta(seconds=31)
    report = services.modelrun_sweep(now=later)
    assert report == services.SweepReport(reclaimed=1, lost_tasks=0, requeued=0, finished=0, cancelled=1)
    run.refresh_from_db()
    assert run.status == ModelRun.Status.CANCELLED and not run.responses.exists()
