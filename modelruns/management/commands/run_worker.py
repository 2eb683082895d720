"""`db_worker` with the model-run sweep beside it, in a thread of the same process."""

from __future__ import annotations

import logging
import os
import threading
from argparse import ArgumentParser, ArgumentTypeError
from typing import Any

from django.db import close_old_connections, connection
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from modelruns import services, workers

logger = logging.getLogger(__name__)
#: seconds between sweeps, unless --sweep-every says otherwise
SWEEP_EVERY = 30.0


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not 0 < seconds < float("inf"):
        raise ArgumentTypeError("must be a positive number of seconds")
    return seconds


def _sweep_forever(every: float, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            close_old_connections()
            report = services.modelrun_sweep()
            if report.reclaimed or report.lost_tasks or report.finished or report.cancelled:
                logger.warning("sweep: %s", report)
        except Exception:  # noqa: BLE001 - a failed sweep (database away a moment) is tried again
            logger.exception("the model-run sweep failed")
        finally:
            connection.close()
        stop.wait(every)


class Command(db_worker.Command):
    help = (
        "Run a database task worker (as `db_worker`, same options) and, in the same process, the "
        "model-run sweep every --sweep-every seconds: shards of killed workers are queued again and "
        "their runs finish without anyone restarting them."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        # names the process in the queue's rows, so the sweep can tell when its worker is gone
        parser.set_defaults(worker_id=workers.queue_worker_id())
        parser.add_argument(
            "--sweep-every",
            type=_seconds,
            default=SWEEP_EVERY,
            help="seconds between sweeps for shards and tasks of stopped workers (default: %(default)s)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        sweep_every: float = options.pop("sweep_every", SWEEP_EVERY)
        # with --reload the sweep runs in the reloaded child, beside the worker
        if not options.get("reload") or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
            stop = threading.Event()
            threading.Thread(
                target=_sweep_forever, args=(sweep_every, stop), name="model-run sweep", daemon=True
            ).start()
        super().handle(*args, **options)
