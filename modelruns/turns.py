"""The order the model runs' shards are served in (`modelruns.tasks`).

Where the task backend orders by priority (the database's), a shard's task is queued at a priority
that falls with the shard's place in its run: every run's first shard comes before any run's second,
and so on, so the workers take the runs' shards in turn and a small run queued behind a large one
waits for a shard of it, not for all of it (a worker gives way after each shard while another run
waits: `modelruns.shards.modelrun_work`). RQ serves its queue in order of arrival."""

from __future__ import annotations

from django_tasks import default_task_backend
from django_tasks.base import TASK_MIN_PRIORITY


def served_in_turn() -> bool:
    """Whether the queue takes the runs' shards in turn (else in order of arrival)."""
    return bool(default_task_backend.supports_priority)


def turn_priority(index: int) -> int:
    """The priority of the task of the shard at `index` of its run (0 first); the runs' shards past
    the 100th share the lowest, in order of arrival."""
    return max(TASK_MIN_PRIORITY, -index)
