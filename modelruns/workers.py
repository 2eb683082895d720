"""The task workers as the sweep sees them: who a worker is, whether its process is gone, and the
database queue's rows that a stopped worker left `running`.

A worker started by `manage.py run_worker` is named `host:pid:random` in the queue's rows, and a
task names itself `host:pid:task-id` on the shards it holds (`modelruns.shards.worker_name`). On the same
host a name says whether its process still exists; a worker on another host is judged by its
shard leases instead (the sweep passes the task ids whose shards it took back). Host names must
tell worker machines (and containers) apart, as they do by default.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import get_random_string

#: host names are cut to this length in queue worker ids (the queue allows 64 characters)
HOST_CHARS = 40


class WorkerLost(Exception):
    """Recorded on a queue row whose worker stopped (killed, out of memory) while running it."""


@dataclass(frozen=True)
class LostTask:
    task_id: str
    task_path: str
    args: list


def queue_worker_id() -> str:
    """This process's id in the database queue's rows: `host:pid:random` (at most 64 characters)."""
    return f"{socket.gethostname()[:HOST_CHARS]}:{os.getpid()}:{get_random_string(8)}"


def _on_this_host(host: str) -> bool:
    here = socket.gethostname()
    return host == here or (len(host) == HOST_CHARS and here.startswith(host))


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    try:  # a killed child that its parent has not reaped yet is gone for our purposes
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def process_gone(name: str) -> bool:
    """True when `name` (`host:pid:...`) is a process of this host that no longer runs."""
    host, _, rest = name.partition(":")
    pid = rest.split(":", 1)[0]
    if not host or not pid.isdigit() or not _on_this_host(host):
        return False
    return not _process_exists(int(pid))


def task_id_of(holder: str) -> str:
    """The task-id part of a shard holder's name (`host:pid:task-id`); empty when there is none."""
    parts = holder.split(":")
    return parts[2] if len(parts) >= 3 else ""


def lost_tasks_fail(*, task_ids: Iterable[str] = ()) -> list[LostTask]:
    """Mark failed the database queue's `running` rows whose worker process is gone, or whose id
    starts with one of `task_ids` (tasks whose shard lease ran out); returns them.

    Does nothing when the task backend is not the database queue (RQ keeps its own registries).
    """
    from django_tasks import task_backends
    from django_tasks_db.backend import DatabaseBackend
    from django_tasks_db.compat import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    names = [alias for alias in task_backends if isinstance(task_backends[alias], DatabaseBackend)]
    if not names:
        return []
    prefixes = {task_id for task_id in task_ids if task_id}
    lost: list[LostTask] = []
    running = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, backend_name__in=names)
    for pk, worker_ids, task_path, args_kwargs in running.values_list("pk", "worker_ids", "task_path", "args_kwargs"):
        holder = worker_ids[-1] if worker_ids else ""
        task_id = str(pk)
        if not (process_gone(holder) or any(task_id.startswith(prefix) for prefix in prefixes)):
            continue
        why = (
            f"worker {holder or '?'} stopped while running this task; the model-run sweep marked it failed "
            "and queued its shard again"
        )
        # conditional on the row still running: a worker that finishes after all keeps its own result
        if DBTaskResult.objects.filter(Q(pk=pk) & Q(status=TaskResultStatus.RUNNING)).update(
            status=TaskResultStatus.FAILED,
            finished_at=timezone.now(),
            return_value=None,
            exception_class_path=f"{WorkerLost.__module__}.{WorkerLost.__qualname__}",
            traceback=why,
        ):
            lost.append(LostTask(task_id, task_path, list((args_kwargs or {}).get("args", []))))
    return lost
