from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from replication.bundles import study_bundle
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Write a study's replication bundle: one zip with its items (as participants saw them and as models "
        "read them), design, texts, pseudonymous answers, model runs, analysis and software versions, and a "
        "manifest of every file's SHA-256. No Prolific ID, study id or session id is in it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the study's name")
        parser.add_argument("--out", required=True, type=Path, help="the zip file to write")

    def handle(self, *args, name: str, out: Path, **options) -> None:
        study = Study.objects.filter(name=name).first()
        if study is None:
            raise CommandError(f"no study named {name!r}")
        bundle = study_bundle(study)
        out.write_bytes(bundle.content)
        self.stdout.write(f"Wrote {out} ({len(bundle.content):,} bytes).")
