from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.management.options import add_owner_option, owner_named
from annotation.selectors import datasets_dir, download_dir
from annotation.services import (
    ImportResult,
    benchmark_import,
    benchmark_records_import,
    benchmark_sources_fetch,
    benchmark_sources_verify,
)
from parity import benchmarks
from parity.benchmarks.base import DatasetError
from parity.benchmarks.lm_eval import HARNESS_FEWSHOT_SEED, records_for_task

#: not a benchmark: a harness task whose items become an item set of the benchmark of named sets
LM_EVAL, ITEM_SETS = "lm_eval", "custom"


class Command(BaseCommand):
    help = (
        "Import a benchmark's items. Reads the published files from --source (or DATASETS_DIR/<name>); "
        "without either, downloads them from the pinned URLs and checks their sha256. Atomic and idempotent. "
        "`lm_eval --task NAME_OR_YAML` imports an lm-evaluation-harness task as an item set of `custom`."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("benchmark", choices=sorted([*benchmarks.REGISTRY, LM_EVAL]))
        parser.add_argument(
            "--source",
            type=Path,
            help="directory holding the published files; a file for benchmarks that read one "
            "(miqa_rating: a JSONL of question_id, model, answer; custom: a CSV or JSONL of items)",
        )
        parser.add_argument("--download-to", type=Path, help="where downloaded files go (default var/datasets/<name>)")
        parser.add_argument("--name", help="the item set's name, a slug (benchmarks of named item sets: custom)")
        add_owner_option(parser)
        parser.add_argument("--seed", type=int, help="seed for generated benchmarks")
        parser.add_argument("--episodes", type=int, help="episodes for generated benchmarks")
        parser.add_argument(
            "--task",
            help="lm_eval: a task, group or tag name the harness knows, or a task YAML; "
            "its items become the custom item set --name (default: the task's "
            "name); --seed: the few-shot sampler's (default 1234, the harness's)",
        )
        parser.add_argument("--limit", type=int, help="lm_eval: only the first N documents of each task")
        parser.add_argument(
            "--num-fewshot",
            type=int,
            help="lm_eval: few-shot examples in the model's context "
            "(as lm_eval --num_fewshot; default: the task's own)",
        )
        parser.add_argument(
            "--trust-task-code",
            action="store_true",
            help="lm_eval: let a task file's `!function` entries run: the harness imports the Python "
            "modules they name (beside the YAML), which runs their code. Without it such a task is "
            "refused before anything is imported",
        )

    def handle(
        self,
        *args,
        benchmark: str,
        source: Path | None,
        download_to: Path | None,
        seed: int | None,
        episodes: int | None,
        name: str | None = None,
        **options,
    ) -> None:
        owner = owner_named(options.pop("owner", None))
        if benchmark == LM_EVAL:
            self._report(*self._import_lm_eval(name=name, seed=seed, owner=owner, **options))
            return
        definition = benchmarks.get(benchmark)
        if definition.named_sets and not name:
            raise CommandError(f"{benchmark} imports a named item set: give --name NAME (a slug)")
        if (name or owner) and not definition.named_sets:
            raise CommandError(f"{benchmark} has no named item sets: leave out --name and --owner")
        if source is None and definition.source_files():
            shared = datasets_dir(benchmark)
            if shared is not None and shared.is_dir():
                source = shared
            else:
                target = download_to or download_dir(benchmark)
                self.stdout.write(f"Downloading {benchmark} from its pinned URLs to {target} ...")
                try:
                    source = benchmark_sources_fetch(name=benchmark, dest=target)
                except DatasetError as exc:
                    raise CommandError(str(exc)) from exc
        if definition.source_is_file:
            if source is None or not source.is_file():
                raise CommandError(
                    f"{benchmark} reads one file: give it as --source FILE"
                    + (f" ({source} is not a file)" if source is not None else "")
                )
        elif source is not None and not source.is_dir():
            raise CommandError(f"--source {source} is not a directory")
        if source is not None and not definition.source_is_file:
            for warning in benchmark_sources_verify(name=benchmark, source=source):
                self.stderr.write(f"warning: {warning}")
        opts = {
            key: value for key, value in (("seed", seed), ("episodes", episodes), ("name", name)) if value is not None
        }
        try:
            result = benchmark_import(name=benchmark, source=source, options=opts, owner=owner)
        except DatasetError as exc:
            raise CommandError(f"Refused, nothing was written: {exc}") from exc
        self._report(benchmark, result)

    def _import_lm_eval(
        self,
        *,
        task: str | None,
        name: str | None,
        seed: int | None,
        limit: int | None,
        num_fewshot: int | None,
        trust_task_code: bool = False,
        owner: Any = None,
        **options,
    ) -> tuple[str, ImportResult]:
        """The task's records become the item set `name` through the named-sets benchmark's own
        `load_records` (its `items_from_records`), written by the same atomic import."""
        if not task:
            raise CommandError("lm_eval needs --task NAME_OR_YAML")
        if ITEM_SETS not in benchmarks.REGISTRY:
            raise CommandError(f"lm_eval imports into the {ITEM_SETS!r} benchmark, which is not installed")
        try:
            task_name, records = records_for_task(
                task,
                limit=limit,
                num_fewshot=num_fewshot,
                seed=HARNESS_FEWSHOT_SEED if seed is None else seed,
                trust_code=trust_task_code,
            )
            name = name or task_name
            result = benchmark_records_import(
                name=ITEM_SETS, records=records, options={"name": name, "label": task}, owner=owner
            )
        except DatasetError as exc:
            raise CommandError(f"Refused, nothing was written: {exc}") from exc
        return f"{ITEM_SETS} item set {name} ({LM_EVAL} {task})", result

    def _report(self, benchmark: str, result: ImportResult) -> None:
        splits = ", ".join(f"{split} {count}" for split, count in sorted(result.splits.items()))
        relabelled = f", {result.relabelled} with new row numbers or labels only" if result.relabelled else ""
        self.stdout.write(
            self.style.SUCCESS(
                f"{benchmark}: {result.created} created, {result.updated} updated, {result.unchanged} unchanged"
                f"{relabelled} ({splits}); {result.assets} assets"
            )
        )
