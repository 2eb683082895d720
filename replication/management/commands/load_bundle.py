from __future__ import annotations

import json
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from replication.archive import BundleRefused, read_bundle
from replication.parts import PART_PATHS, study_results_json
from replication.reanalysis import ANALYSIS, REFUSED
from replication.services import LoadRefused, bundle_load


class Command(BaseCommand):
    help = (
        "Load a replication bundle (its manifest checked first) into an empty database: the study, items, "
        "participants by pseudonym, answers and model runs. `manage.py reanalyse` runs it on a throw-away "
        "database; run it on an empty installation to read a bundle in the pages."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="the bundle (zip)")
        parser.add_argument("--migrate", action="store_true", help="migrate the database first")
        parser.add_argument("--results-out", type=Path, help="write the study's `study_results --json` here")
        parser.add_argument(
            "--bundled-out",
            type=Path,
            help="write the bundle's manifest and its own analysis here (JSON), so that `reanalyse` compares "
            "them without reading the bundle a second time",
        )

    def handle(
        self, *args, file: Path, migrate: bool, results_out: Path | None, bundled_out: Path | None, **options
    ) -> None:
        try:
            bundle = read_bundle(file, known=PART_PATHS)
        except BundleRefused as exc:
            raise CommandError(f"refused: {exc}", returncode=REFUSED) from exc
        if migrate:
            call_command("migrate", interactive=False, verbosity=0)
        try:
            study = bundle_load(bundle=bundle)
        except LoadRefused as exc:
            raise CommandError(f"refused: {exc}", returncode=REFUSED) from exc
        if bundled_out is not None:
            bundled = {"manifest": bundle.manifest, "analysis": bundle.json(ANALYSIS)}
            bundled_out.write_text(json.dumps(bundled, ensure_ascii=False, allow_nan=False))
        if results_out is not None:
            results_out.write_text(json.dumps(study_results_json(study), ensure_ascii=False, allow_nan=False))
        self.stdout.write(f"Loaded {study.name!r} ({study.participants.count()} participants).")
