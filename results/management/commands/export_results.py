from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from results.pipeline import study_export
from results.presenting.exports import FORMATS, ExportError
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Export a study: csv (long, one row per annotator × item), wide-csv (one column per annotator), "
        "participants-csv (one row per participant, with the closing questions), jsonl, "
        "parquet, or the paper table (latex, markdown). Annotators are pseudonyms; Prolific and session ids "
        "never leave; participants' free text only with --include-free-text."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the study's name")
        parser.add_argument("--format", required=True, choices=list(FORMATS), dest="fmt")
        parser.add_argument("--out", required=True, help="file to write ('-' for standard output)")
        parser.add_argument(
            "--include-free-text",
            action="store_true",
            help="also export what participants typed outside the answer labels (may identify them)",
        )

    def handle(self, *args, name: str, fmt: str, out: str, include_free_text: bool, **options) -> None:
        study = Study.objects.filter(name=name).first()
        if study is None:
            raise CommandError(f"no study named {name!r}")
        try:
            exported = study_export(study, fmt, include_free_text=include_free_text)
        except ExportError as exc:
            raise CommandError(str(exc)) from exc
        if out == "-":
            if fmt == "parquet":
                raise CommandError("parquet is binary: give a file with --out")
            sys.stdout.flush()
            self.stdout.write(exported.content.decode("utf-8"), ending="")
            return
        path = Path(out)
        if path.parent and not path.parent.exists():
            raise CommandError(f"--out {out}: the folder {path.parent} does not exist")
        path.write_bytes(exported.content)
        self.stderr.write(f"Wrote {fmt} export of {study.name!r} to {path} ({len(exported.content)} bytes)")
