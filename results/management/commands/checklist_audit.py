from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from parity.reporting.checklist import CITATION, checklist_json, counts
from results.pipeline import study_checklist, study_results
from results.presenting.checklist_audit import audit_text
from studies.models import Study


class Command(BaseCommand):
    help = (
        "A study's answers to the human-baselines reporting checklist, for a reviewer to check: each entry's "
        "answer, its source (computed by Parity, entered or corrected by the researcher, with the reason) and "
        "the records it rests on, with any note of the researcher that contradicts Parity's answer."
    )

    # a read: the system checks would import every view for nothing
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the study's name")
        parser.add_argument("--json", action="store_true", help="the checklist as analysis/checklist.json holds it")

    def handle(self, *args, name: str, json: bool, **options) -> None:
        study = Study.objects.filter(name=name).first()
        if study is None:
            raise CommandError(f"no study named {name!r}")
        answers = study_checklist(study, study_results(study))
        if json:
            self.stdout.write(checklist_json(answers))
            return
        tally = "; ".join(f"{kind}: {n}" for kind, n in counts(answers).items())
        self.stdout.write(f"Reporting checklist of {study.name!r} ({CITATION})\n{tally}\n")
        self.stdout.write(audit_text(answers), ending="")
