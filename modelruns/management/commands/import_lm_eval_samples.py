from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from modelruns.management.options import study_named
from modelruns.services import ModelRunError
from modelruns.services_lm_eval import modelrun_import_lm_eval_samples


class Command(BaseCommand):
    help = (
        "Import an lm-evaluation-harness run's per-document answers (its --log_samples file, "
        "samples_<task>_<date>.jsonl) as a model run of a study imported from the same task "
        "(`import_benchmark lm_eval --task ...`): each document is matched to its item by the task and doc_id, "
        "its choice or generated text scored as Parity scores its own runs (the harness's acc, acc_norm or "
        "exact_match must agree), and the run enters the results, the tests and the report beside Parity's own. "
        "A file of another task, or with documents that are not the study's items, is refused whole; importing "
        "the same file again changes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="the study's name")
        parser.add_argument("file", help="the harness's samples_<task>_<date>.jsonl")
        parser.add_argument("--model", required=True, help="the model the harness ran (its Hugging Face id or path)")
        parser.add_argument("--revision", default="", help="the model's revision the harness loaded (blank: main)")
        parser.add_argument("--task", help="the task, when the file is not named as the harness names it")
        parser.add_argument("--filter", dest="filter_name", help="the filter's answers, when the file has several")

    def handle(self, *args: Any, study: str, file: str, model: str, revision: str, **options: Any) -> None:
        found = study_named(study)
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"{file}: no such file")
        try:
            imported = modelrun_import_lm_eval_samples(
                study=found,
                content=path.read_bytes(),
                file_name=path.name,
                model=model,
                revision=revision,
                task=options.get("task"),
                filter_name=options.get("filter_name"),
            )
        except ModelRunError as exc:
            raise CommandError(f"Refused, nothing was written: {exc}") from exc
        run = imported.run
        if not imported.created:
            self.stdout.write(f"Already imported as run #{run.pk} ({imported.answers} answers): nothing changed.")
            return
        self.stdout.write(
            f"Imported {imported.answers} answers of {run.spec.name} to {found.name!r} as run #{run.pk} "
            f"({run.model_identity['task']}, filter {run.model_identity['filter']})."
        )
        if imported.contexts_differ:
            self.stdout.write(
                f"Note: {imported.contexts_differ} documents were asked with another context than the items' "
                "(another --num_fewshot or seed than the import's): the answers are the harness's, to its prompts."
            )
