from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.management.options import add_owner_option, owner_named
from annotation.services import INSPECT_ITEM_SETS, inspect_task_import
from parity import benchmarks
from parity.benchmarks.base import DatasetError


class Command(BaseCommand):
    help = (
        "Import an Inspect task's samples as an item set of `custom`: TASK is file.py@name (or file.py with one "
        "task) or package/name registered by an installed package (inspect_evals/gpqa_diamond). Inspect builds "
        "the task with -T arguments and runs its solvers against its mock model, so each item carries the prompt "
        "the model is sent; choices keep their letters and order, written answers are scored by the task's match, "
        "includes or exact rule (other scorers: imported unscored). Tasks that need a sandbox, tools, images or more "
        "than one model call per sample are refused. Atomic and idempotent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("task", help="file.py@name, file.py, or package/name (e.g. inspect_evals/gpqa_diamond)")
        parser.add_argument(
            "-T",
            dest="task_args",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a task argument, as `inspect eval -T` takes it (the value read as YAML); repeat for several",
        )
        parser.add_argument("--name", help="the item set's name, a slug (default: the task's name)")
        parser.add_argument("--limit", type=int, help="only the first N samples (as `inspect eval --limit N`)")
        add_owner_option(parser)

    def handle(
        self, *args: Any, task: str, task_args: list[str], name: str | None, limit: int | None, **options: Any
    ) -> None:
        owner = owner_named(options.get("owner"))
        if INSPECT_ITEM_SETS not in benchmarks.REGISTRY:
            raise CommandError(f"Inspect tasks import into the {INSPECT_ITEM_SETS!r} benchmark, which is not installed")
        try:
            imported = inspect_task_import(
                spec=task,
                arguments=task_args,
                name=name or "",
                limit=limit,
                owner=owner,
            )
        except DatasetError as exc:
            raise CommandError(f"Refused, nothing was written: {exc}") from exc
        read, result = imported.task, imported.result
        splits = ", ".join(f"{split} {count}" for split, count in sorted(result.splits.items()))
        self.stdout.write(
            self.style.SUCCESS(
                f"{INSPECT_ITEM_SETS} item set {imported.name} (Inspect task {read.name}, version {read.version}, "
                f"Inspect {read.inspect_version}): {result.created} created, {result.updated} updated, "
                f"{result.unchanged} unchanged ({splits})"
            )
        )
        if read.unscored:
            self.stdout.write(
                f"Note: {read.unscored} of {len(read.records)} samples are scored by {read.scorer}, whose rule Parity "
                "does not reproduce: people's answers to them are kept unscored (free text), their targets beside them."
            )
