"""Background tasks: one per shard of a model run, on the "models" queue of whichever backend
TASK_QUEUE selects (the database queue with `manage.py run_worker`, or Redis with RQ workers),
queued so that the runs' shards are served in turn where the backend can (`modelruns.turns`)."""

from __future__ import annotations

from typing import Any

from django_tasks import TaskContext, task

from modelruns import shards
from modelruns.turns import served_in_turn, turn_priority


@task(queue_name="models", takes_context=True)
def run_shard(context: TaskContext, shard_id: int) -> int:
    """Score the shard (and more of its run while no other run waits); returns the shards this task scored.

    Safe to run any number of times, anywhere: claims and writes are idempotent.
    """
    return shards.shard_work(shard_id=shard_id, worker=shards.worker_name(context.task_result.id[:12]))


def run_shard_in_turn(index: int, *, background: bool = False) -> Any:
    """`run_shard` for the shard at `index` of its run, at its turn's priority where the backend has
    priorities (`background`: a run served after every other run's shards)."""
    return run_shard.using(priority=turn_priority(index, background=background)) if served_in_turn() else run_shard
