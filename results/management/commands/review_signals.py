from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from results.computing.quality import label_likeness, sentence_encoder, written_likeness
from results.pipeline import results_data, review_signals_refresh
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Compute a study's model-likeness flags beside its finished model runs and keep them on its "
        "participants (the admin, the monitor and the exports show them): answers agreeing with a run far "
        "more than people agree with each other (model_like), and written answers closer to a run's output "
        "than to any other person's (model_text, with the packaged sentence model). Prints each person's "
        "figures. Flags never exclude anyone."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the study's name")
        parser.add_argument(
            "--no-text", action="store_true", help="leave out written answers (no sentence model is loaded)"
        )
        parser.add_argument("--dry-run", action="store_true", help="print the figures, keep nothing")

    def handle(self, *args, name: str, no_text: bool, dry_run: bool, **options) -> None:
        study = Study.objects.filter(name=name).first()
        if study is None:
            raise CommandError(f"no study named {name!r}")
        data = results_data(study)
        if not data.runs:
            raise CommandError(f"study {name!r} has no finished model run to compare with")
        for row in label_likeness(data):
            mark = "FLAGGED " if row.flagged else ""
            self.stdout.write(f"{mark}{row.annotator}: {row.evidence()}")
        encode = None if no_text or data.answer_space else sentence_encoder()
        if encode is not None:
            for text_row in written_likeness(data, encode):
                mark = "FLAGGED " if text_row.flagged else ""
                self.stdout.write(f"{mark}{text_row.annotator}: {text_row.evidence()}")
        if dry_run:
            return
        changed = review_signals_refresh(data, encode=encode)
        self.stdout.write(f"Kept the flags of {study.name!r}: {changed} participant(s) changed.")
