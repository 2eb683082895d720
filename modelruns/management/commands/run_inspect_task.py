from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from modelruns.management.options import study_named
from modelruns.models import ModelSpec
from modelruns.services import ModelRunError, modelspec_get_or_create
from modelruns.services_inspect_eval import modelrun_queue_inspect, modelrun_run_inspect


class Command(BaseCommand):
    help = (
        "Run a local Hugging Face model through the Inspect task a study's items were imported from (their "
        "inspect_task_spec and inspect_task_args): Inspect's own solvers and scorer ask the model on the study's "
        "samples (its hf/ provider, on a worker, or here with --here), and the log it writes is imported as the "
        "run, as import_inspect_log imports one made elsewhere."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="the study's name (or id)")
        parser.add_argument("--model", required=True, help="a Hugging Face id, a local path, or an alias (smollm2)")
        parser.add_argument("--revision", default="", help="Hub branch, tag or commit")
        parser.add_argument("--dtype", default=ModelSpec.Dtype.FLOAT32, choices=ModelSpec.Dtype.values)
        parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:1 ...")
        parser.add_argument("--here", action="store_true", help="run the eval in this process, not on a worker")
        parser.add_argument(
            "--trust-task-code",
            action="store_true",
            help="allow a task in a file (tasks.py@name): Inspect imports and runs its Python",
        )

    def handle(self, *args: Any, study: str, model: str, here: bool, trust_task_code: bool, **options: Any) -> None:
        found = study_named(study)
        try:
            spec = modelspec_get_or_create(
                model=model, revision=options["revision"], dtype=options["dtype"], device=options["device"]
            )
            if not here:
                task = modelrun_queue_inspect(study=found, spec=spec, trust_task_code=trust_task_code)
                self.stdout.write(
                    f"Queued {spec.name} on {len(task.sample_ids)} samples of the Inspect task {task.name}: "
                    "a worker runs it (`manage.py run_worker`), and its run appears when its log is imported."
                )
                return
            imported = modelrun_run_inspect(study=found, spec=spec, trust_task_code=trust_task_code)
        except ModelRunError as exc:
            raise CommandError(f"Refused, nothing was written: {exc}") from exc
        run = imported.run
        self.stdout.write(
            f"Inspect ran {spec.name} on {imported.items} items of {found.name!r}: run #{run.pk}, "
            f"{imported.answers} answers ({run.model_identity['task']}, scorer {run.model_identity['scorer']}; "
            f"Inspect {run.model_identity['inspect_version']})."
        )
