from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from results.pipeline import study_report, study_results
from results.presenting.report import FORMATS
from studies.models import Study


class Command(BaseCommand):
    help = (
        "A study's report for a paper: a methods paragraph (recruitment, dates, participants and exclusions, "
        "attention checks, pay, design, models, statistics), the headline results, the paper tables, the paired "
        "tests, the human band and the placement plot where computed; as LaTeX (a document that compiles alone), "
        "Markdown or HTML. Every number is the one `study_results --json` gives."
    )

    # a read: the system checks would import every view (and the charts' matplotlib) for nothing
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the study's name")
        parser.add_argument("--format", choices=list(FORMATS), default="markdown", dest="fmt")
        parser.add_argument("--out", default="-", help="file to write ('-', the default: standard output)")

    def handle(self, *args, name: str, fmt: str, out: str, **options) -> None:
        study = Study.objects.filter(name=name).first()
        if study is None:
            raise CommandError(f"no study named {name!r}")
        path = None if out == "-" else Path(out)
        if path is not None and not path.parent.exists():
            raise CommandError(f"--out {out}: the folder {path.parent} does not exist")
        # a screenshot already beside the report's file (`study_screenshot`) is shown in it
        report = study_report(study, fmt, study_results(study), beside=None if path is None else path.parent)
        if path is None:
            self.stdout.write(report, ending="")
            return
        path.write_text(report, encoding="utf-8")
        self.stderr.write(f"Wrote the {fmt} report of {study.name!r} to {path} ({len(report.encode())} bytes)")
