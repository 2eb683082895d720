"""The model-run sweep in one process: shards whose lease ran out, queue rows of stopped workers,
runs left unfinished; and `manage.py sweep_runs`. (tests/modelruns/test_run_worker.py kills a real
worker process.)"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from modelruns import services, shards, workers
from modelruns.models import ModelResponse, ModelRun, ModelShard
from modelruns.tasks import run_shard

pytestmark = pytest.mark.django_db


def _start(study, spec, **kwargs):
    return services.modelrun_start(study=study, spec=spec, enqueue=False, **kwargs).run


def _gone_pid() -> int:
    """The pid of a process that ran here and has exited (and been reaped)."""
    return int(
        subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
        ).stdout
    )


def _claimed_row(shard: ModelShard, worker_id: str) -> DBTaskResult:
    """The shard's task in the database queue, taken by `worker_id` as db_worker takes it."""
    row = DBTaskResult.objects.get(pk=run_shard.enqueue(shard.pk).id)
    row.claim(worker_id)
    return row


def _ready_shard_tasks() -> list[int]:
    rows = DBTaskResult.objects.ready().filter(task_path="modelruns.tasks.run_shard")
    return sorted(row.args_kwargs["args"][0] for row in rows)


def test_a_shard_whose_lease_ran_out_goes_back_to_pending_with_a_task_and_the_run_finishes(
    small_implicature_study, tiny_spec, django_capture_on_commit_callbacks
):
    run = _start(small_implicature_study, tiny_spec, shard_size=100, lease_seconds=30)
    held = shards.shard_claim(run=run, worker=f"{socket.gethostname()}:{_gone_pid()}:abcdef012345")
    ModelShard.objects.filter(pk=held.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31))

    with django_capture_on_commit_callbacks(execute=True):
        report = services.modelrun_sweep()

    assert report == services.SweepReport(reclaimed=1, lost_tasks=0, requeued=1, finished=0)
    held.refresh_from_db()
    assert held.status == ModelShard.Status.PENDING and held.reclaims == 1 and held.reclaimed_at is not None
    assert _ready_shard_tasks() == [held.pk]
    # the queued task is what a worker runs: it scores the shard and finishes the run
    assert shards.shard_work(shard_id=held.pk, worker="fresh") == 1
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE and ModelResponse.objects.filter(run=run).count() == 10
    held.refresh_from_db()
    assert held.attempts == 2 and held.reclaims == 1


def test_a_live_lease_is_left_alone(small_implicature_study, tiny_spec, django_capture_on_commit_callbacks):
    run = _start(small_implicature_study, tiny_spec, shard_size=100, lease_seconds=30)
    held = shards.shard_claim(run=run, worker="busy")
    with django_capture_on_commit_callbacks(execute=True):
        assert services.modelrun_sweep() == services.SweepReport(0, 0, 0, 0)
    held.refresh_from_db()
    assert held.status == ModelShard.Status.RUNNING and held.worker == "busy" and held.reclaims == 0
    assert _ready_shard_tasks() == []


def test_the_queue_row_of_a_killed_worker_is_marked_failed_and_its_unclaimed_shard_queued_again(
    small_implicature_study, tiny_spec, django_capture_on_commit_callbacks
):
    """The worker died loading the model: its row says `running`, its shard was never claimed."""
    run = _start(small_implicature_study, tiny_spec, shard_size=100)
    shard = run.shards.get()
    dead = _claimed_row(shard, f"{socket.gethostname()}:{_gone_pid()}:deadbeef")
    alive = _claimed_row(shard, workers.queue_worker_id())  # this process: alive

    with django_capture_on_commit_callbacks(execute=True):
        report = services.modelrun_sweep()

    assert report == services.SweepReport(reclaimed=0, lost_tasks=1, requeued=1, finished=0)
    dead.refresh_from_db()
    alive.refresh_from_db()
    assert dead.status == TaskResultStatus.FAILED and dead.finished_at is not None
    assert dead.exception_class_path == "modelruns.workers.WorkerLost" and "stopped" in dead.traceback
    assert alive.status == TaskResultStatus.RUNNING
    assert _ready_shard_tasks() == [shard.pk]


def test_a_task_on_another_host_is_judged_by_its_shard_lease(
    small_implicature_study, tiny_spec, django_capture_on_commit_callbacks
):
    run = _start(small_implicature_study, tiny_spec, shard_size=100, lease_seconds=30)
    shard = run.shards.get()
    row = _claimed_row(shard, "gpu-box-7:4242:k3y")
    shards.shard_claim(run=run, worker=f"gpu-box-7:4242:{str(row.pk)[:12]}")
    with django_capture_on_commit_callbacks(execute=True):
        assert services.modelrun_sweep().lost_tasks == 0  # another host, lease alive: nothing to say
    ModelShard.objects.filter(pk=shard.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31))

    with django_capture_on_commit_callbacks(execute=True):
        report = services.modelrun_sweep()

    assert report == services.SweepReport(reclaimed=1, lost_tasks=1, requeued=1, finished=0)
    row.refresh_from_db()
    assert row.status == TaskResultStatus.FAILED
    assert _ready_shard_tasks() == [shard.pk]


def test_a_run_whose_shards_are_all_done_is_finished(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec, shard_size=4)
    shards.modelrun_work(run=run, worker="w1")
    ModelRun.objects.filter(pk=run.pk).update(status=ModelRun.Status.RUNNING, finished_at=None)  # a lost finish
    assert services.modelrun_sweep().finished == 1
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE and run.finished_at is not None


def test_a_worker_taking_over_a_silent_shard_records_the_reclaim(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec, shard_size=100, lease_seconds=30)
    held = shards.shard_claim(run=run, worker="silent")
    assert held.reclaims == 0 and held.reclaimed_at is None
    ModelShard.objects.filter(pk=held.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31))
    taken = shards.shard_claim(run=run, worker="survivor")
    assert taken.pk == held.pk and taken.reclaims == 1 and taken.reclaimed_at is not None
    assert shards.shard_claim(run=run, worker="third") is None


def test_sweep_runs_reports_what_it_did(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec, shard_size=100, lease_seconds=30)
    held = shards.shard_claim(run=run, worker="silent")
    ModelShard.objects.filter(pk=held.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31))
    out = StringIO()
    call_command("sweep_runs", stdout=out)
    assert (
        out.getvalue().strip()
        == "1 shard(s) taken back, 0 lost task(s) marked failed, 1 task(s) queued, 0 run(s) finished"
    )
    assert ModelShard.objects.get(pk=held.pk).status == ModelShard.Status.PENDING


def test_process_gone_tells_this_hosts_dead_processes_only():
    host = socket.gethostname()
    assert workers.process_gone(f"{host}:{_gone_pid()}:x")
    assert not workers.process_gone(f"{host}:{os.getpid()}:x")
    assert not workers.process_gone(workers.queue_worker_id())
    assert not workers.process_gone(f"elsewhere:{_gone_pid()}:x")  # another host: not ours to judge
    assert not workers.process_gone("a5c2e0f9b1d34e7f8a6c2b1d0e9f8a7c")  # a plain db_worker id


def test_run_worker_refuses_a_sweep_interval_that_is_not_a_positive_number():
    from django.core.management import CommandError

    for bad in ("0", "-5", "soon", "inf"):
        with pytest.raises(CommandError, match="sweep-every"):
            call_command("run_worker", "--sweep-every", bad, "--batch")
