"""The order the model runs' shards are served in (`modelruns.tasks`).

Where the task backend orders by priority (the database's), a shard's task is queued at a priority
that falls with the shard's place in its run: every run's first shard comes before any run's second,
and so on, so the workers take the runs' shards in turn and a small run queued behind a large one
waits for a shard of it, not for all of it (a worker gives way after each shard while another run
waits: `modelruns.shards.modelrun_work`). A background run (the demo's own, queued by `setup_demo`)
takes the priorities below every other run's: a researcher's run waits only for the shard in hand,
not for the first shards of the demo's runs. The results' tasks come before every shard
(`results.pipeline.PRIORITY`). RQ serves its queue in order of arrival."""

from __future__ import annotations

from django_tasks import default_task_backend
from django_tasks.base import TASK_MAX_PRIORITY, TASK_MIN_PRIORITY

#: the first shard of a run that is not in the background; its later shards fall from there, and
#: those past the 98th share the lowest of these (1), in order of arrival. Above it: the results'
#: tasks (`TASK_MAX_PRIORITY`); below it, from 0 down, the background runs' shards
FOREGROUND_FIRST = TASK_MAX_PRIORITY - 1


def served_in_turn() -> bool:
    """Whether the queue takes the runs' shards in turn (else in order of arrival)."""
    return bool(default_task_backend.supports_priority)


def turn_priority(index: int, *, background: bool = False) -> int:
    """The priority of the task of the shard at `index` of its run (0 first): from 99 down to 1 for
    a run in the foreground, from 0 down to −100 for one in the background; the shards past the
    last share the lowest, in order of arrival."""
    if background:
        return max(TASK_MIN_PRIORITY, -index)
    return max(1, FOREGROUND_FIRST - index)
