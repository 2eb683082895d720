from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from modelruns.management.options import study_named
from modelruns.services import ModelRunError
from modelruns.services_inspect import modelrun_import_inspect_log


class Command(BaseCommand):
    help = (
        "Import an Inspect eval log (a .eval or .json file `inspect eval` wrote) as a model run of a study whose "
        "items were imported from the same task: each sample, in each epoch, is matched to its item by the task "
        "and the sample's id, and its answer and whether it is right are the scorer's. A log of another task, "
        "with samples that are not the study's items (another id, or another revision of the dataset), unscored "
        "or ended in an error, is refused whole; importing the same file again changes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="the study's name")
        parser.add_argument("log", help="the eval log (.eval or .json)")
        parser.add_argument("--scorer", help="whose scores to read, when the task has several (default: its first)")

    def handle(self, *args: Any, study: str, log: str, scorer: str | None, **options: Any) -> None:
        found = study_named(study)
        path = Path(log)
        if not path.is_file():
            raise CommandError(f"{log}: no such file")
        try:
            imported = modelrun_import_inspect_log(
                study=found, content=path.read_bytes(), file_name=path.name, scorer=scorer
            )
        except ModelRunError as exc:
            raise CommandError(f"Refused, nothing was written: {exc}") from exc
        run = imported.run
        if not imported.created:
            self.stdout.write(f"Already imported as run #{run.pk} ({imported.answers} answers): nothing changed.")
            return
        identity = run.model_identity
        epochs = int(identity["epochs"])
        self.stdout.write(
            f"Imported {imported.answers} answers of {run.spec.name} to {imported.items} items of {found.name!r} "
            f"as run #{run.pk} ({identity['task']}, scorer {identity['scorer']}"
            + (f", {epochs} epochs" if epochs > 1 else "")
            + f"; Inspect {identity['inspect_version']})."
        )
