from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper

from modelruns import selectors, services, shards
from modelruns.forms import parse_setting_pairs
from modelruns.management.options import add_model_options, model_spec, study_named
from modelruns.models import ModelRun, ModelSpec
from modelruns.tasks import run_shard


class ProgressBar:
    """A one-line text progress bar, redrawn at most every `every` seconds."""

    def __init__(self, out: OutputWrapper, label: str, width: int = 30, every: float = 0.2) -> None:
        self.out, self.label, self.width, self.every = out, label, width, every
        self.started = time.monotonic()
        self.drawn = -1.0

    def __call__(self, done: float, total: int) -> None:
        now = time.monotonic()
        if now - self.drawn < self.every and done < total:
            return
        self.drawn = now
        filled = int(self.width * done / total) if total else self.width
        self.out.write(
            f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
            f"{int(done)}/{total} items  {now - self.started:.1f} s",
            ending="",
        )
        self.out.flush()


def _runs_in_process() -> bool:
    from django_tasks.backends.immediate import ImmediateBackend

    return isinstance(run_shard.get_backend(), ImmediateBackend)


class Command(BaseCommand):
    help = (
        "Run a model over a study's items: creates the run(s) and queues one task per shard for the "
        "task workers (`manage.py run_worker`, or with TASK_QUEUE=redis `manage.py rqworker models "
        "--job-class django_tasks_rq.Job --worker-class rq.worker.SimpleWorker`). With --wait, or "
        "TASK_QUEUE=immediate, it runs here with a progress bar. Starting the same model, study and "
        "setting again resumes the run instead of duplicating it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_model_options(
            parser, "--model", ModelSpec.Kind.values, "model setting of the benchmark, e.g. template=2 k=5"
        )
        parser.add_argument("--sweep", action="store_true", help="one run per setting of the paper's grid")
        parser.add_argument("--wait", action="store_true", help="run here and now, with a progress bar")
        parser.add_argument("--shard-size", type=int, default=services.DEFAULT_SHARD_SIZE, help="items per task")
        parser.add_argument(
            "--lease",
            type=int,
            default=services.DEFAULT_LEASE_SECONDS,
            help="seconds without a heartbeat after which a shard is taken over",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_named(options["study"])
        try:
            overrides = parse_setting_pairs(options["setting"])
            spec = model_spec(options, "model")
            here = options["wait"] or _runs_in_process()
            started = services.modelrun_start_many(
                study=study,
                spec=spec,
                overrides=overrides,
                sweep=options["sweep"],
                shard_size=options["shard_size"],
                lease_seconds=options["lease"],
                enqueue=not here,
            )
        except (ValueError, services.ModelRunError) as exc:
            raise CommandError(str(exc)) from exc
        for item in started:
            run = item.run
            state = "created" if item.created else f"already {run.get_status_display().lower()}"
            self.stdout.write(
                f"Run {run.pk}: {spec.name} on {study.name!r}, {run.setting_label()} "
                f"({run.progress_total} items, {run.shards.count()} shards) — {state}"
            )
        if not here:
            self.stdout.write("Queued for the task workers.")
            return
        failed = [self._work(item.run) for item in started]
        if any(failed):
            raise CommandError(f"{sum(failed)} run(s) failed")

    def _work(self, run: ModelRun) -> bool:
        """Score the run here; True when it failed."""
        bar = ProgressBar(self.stdout, f"run {run.pk}")
        started = time.monotonic()
        shards.modelrun_work(run=run, worker=shards.worker_name("run_model"), on_progress=bar)
        self.stdout.write("")
        run.refresh_from_db()
        if run.status == ModelRun.Status.FAILED:
            self.stderr.write(f"Run {run.pk} failed: {run.error}")
            return True
        accuracy = selectors.run_accuracy(run)
        score = f"accuracy {accuracy:.1%}" if accuracy is not None else "no answers"
        identity = run.model_identity
        self.stdout.write(
            f"Run {run.pk}: {run.get_status_display().lower()} in {time.monotonic() - started:.1f} s, "
            f"{run.progress_done}/{run.progress_total} items, {score} "
            f"(model {identity.get('model_id', run.spec.model)} @ {identity.get('revision', '?')}, "
            f"engine {run.engine_version})"
        )
        return False
