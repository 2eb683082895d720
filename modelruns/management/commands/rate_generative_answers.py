from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from modelruns import services
from modelruns.models import ModelRun


class Command(BaseCommand):
    help = (
        "Make a miqa_rating study of a generative MiQA run's answers (Comsa et al., Section 5.2): "
        "blocks of answers, each graded by several raters; prints the participant link last."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run_id", type=int, help="a finished run with the setting wording=generative")
        parser.add_argument(
            "--raters", type=int, default=services.RATING_RATERS_PER_BLOCK, help="raters per block of answers"
        )
        parser.add_argument("--block-size", type=int, default=services.RATING_BLOCK_SIZE, help="answers a rater grades")

    def handle(self, *args, run_id: int, raters: int, block_size: int, **options) -> None:
        run = ModelRun.objects.select_related("study", "spec").filter(pk=run_id).first()
        if run is None:
            raise CommandError(f"no model run {run_id}")
        try:
            study = services.modelrun_rating_study(run=run, raters_per_block=raters, block_size=block_size)
        except services.ModelRunError as exc:
            raise CommandError(str(exc)) from exc
        blocks = study.units.count()
        self.stdout.write(f"{study.name}: {blocks} block(s) of up to {block_size} answers, {raters} raters each")
        self.stdout.write(study.participant_url())
