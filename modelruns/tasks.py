"""Background tasks: one per shard of a model run, on the "models" queue of whichever backend
TASK_QUEUE selects (the database queue with `manage.py run_worker`, or Redis with RQ workers).

Where the backend orders by priority (the database's), a shard's task is queued at a priority that
falls with the shard's place in its run: every run's first shard comes before any run's second, and
so on, so the workers take the runs' shards in turn and a small run queued behind a large one waits
for a shard of it, not for all of it (a worker gives way after each shard while another run waits:
`modelruns.shards.modelrun_work`). RQ serves its queue in order of arrival."""

from __future__ import annotations

from typing import Any

from django_tasks import TaskContext, task
from django_tasks.base import TASK_MIN_PRIORITY

from modelruns import shards


@task(queue_name="models", takes_context=True)
def run_shard(context: TaskContext, shard_id: int) -> int:
    """Score the shard (and more of its run while no other run waits); returns the shards this task scored.

    Safe to run any number of times, anywhere: claims and writes are idempotent.
    """
    return shards.shard_work(shard_id=shard_id, worker=shards.worker_name(context.task_result.id[:12]))


def served_in_turn() -> bool:
    """Whether the queue takes the runs' shards in turn (else in order of arrival)."""
    return bool(run_shard.get_backend().supports_priority)


def run_shard_in_turn(index: int) -> Any:
    """`run_shard` for the shard at `index` of its run (0 first), at its turn's priority where the
    backend has priorities; the runs' shards past the 100th share the lowest, in order of arrival."""
    return run_shard.using(priority=max(TASK_MIN_PRIORITY, -index)) if served_in_turn() else run_shard
