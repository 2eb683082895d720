from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.selectors import datasets_dir
from parity.benchmarks.base import DatasetError
from studies.setup.imports import PUBLISHED_READERS, ImportRefused, human_baseline_import


class Command(BaseCommand):
    help = (
        "Import a published human study (implicature: Ruis et al.'s human_eval_*.csv) as a closed study of "
        "imported participants A1..An. Atomic and idempotent: the same --name twice writes nothing new."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("benchmark", choices=sorted(PUBLISHED_READERS))
        parser.add_argument(
            "--source", type=Path, help="directory holding the files (default DATASETS_DIR/<benchmark>)"
        )
        parser.add_argument("--name", required=True, help="name of the study to create")
        parser.add_argument("--dry-run", action="store_true", help="read and check everything, write nothing")

    def handle(self, *args, benchmark: str, source: Path | None, name: str, dry_run: bool, **options) -> None:
        if source is None:
            source = datasets_dir(benchmark)
            if source is None:
                raise CommandError("--source is required (or set DATASETS_DIR)")
        if not source.is_dir():
            raise CommandError(f"--source {source} is not a directory")
        try:
            result = human_baseline_import(benchmark=benchmark, source=source, name=name, dry_run=dry_run)
        except DatasetError as exc:
            raise CommandError(f"Refused, nothing was written: {exc}") from exc
        except ImportRefused as exc:
            raise CommandError(f"Refused, nothing was written: {exc}") from exc
        if dry_run and result.created:
            self.stdout.write(
                f"Dry run: the files are valid; {result.participants} participants and "
                f"{result.responses} answers would be imported. Nothing was written."
            )
            return
        self.stdout.write(self.style.SUCCESS(result.message) if result.created else result.message)
