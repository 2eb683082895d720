"""Background tasks: one per shard of a model run, on the "models" queue of whichever backend
TASK_QUEUE selects (the database queue with `manage.py run_worker`, or Redis with RQ workers)."""

from __future__ import annotations

from django_tasks import TaskContext, task

from modelruns import shards


@task(queue_name="models", takes_context=True)
def run_shard(context: TaskContext, shard_id: int) -> int:
    """Score the shard (and whatever else of its run is left); returns the shards this task scored.

    Safe to run any number of times, anywhere: claims and writes are idempotent.
    """
    return shards.shard_work(shard_id=shard_id, worker=shards.worker_name(context.task_result.id[:12]))
