from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from modelruns import services
from modelruns.forms import parse_setting_pairs
from modelruns.management.options import add_model_options, model_spec, study_named
from modelruns.models import ModelSpec
from modelruns.services_instructions import InstructionScoringError, instructionscores_compute


class Command(BaseCommand):
    help = (
        "Instruction induction's human and gold baselines: execute the study's written instructions and "
        "the gold instructions of its tasks with an executor model, and compare each with the gold set "
        "(a written one with all gold instructions of its task, a gold one with the others), as a model's "
        "instructions are. The executor becomes the study's executor: model runs execute their own "
        "instructions with it unless their setting names another (executor=MODEL or executor=self). The "
        "results page and `study_results --json` show them per task. Scoring again with the same executor "
        "replaces its earlier scores."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_model_options(
            parser,
            "--executor",
            [ModelSpec.Kind.CAUSAL, ModelSpec.Kind.SEQ2SEQ, ModelSpec.Kind.API],
            "execute_limit=N (0: every execute input) and similarity_model=NAME (auto: the paper's "
            "DeBERTa-xlarge-MNLI where it is in the local Hugging Face cache, else the packaged MiniLM)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_named(options["study"])
        try:
            setting = parse_setting_pairs(options["setting"])
            executor = model_spec(options, "executor")
            scored = instructionscores_compute(study=study, executor=executor, setting=setting)
        except (ValueError, InstructionScoringError, services.ModelRunError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Scored {scored.written} written and {scored.gold} gold instructions of {scored.tasks} "
            f"tasks with {executor.name} on {study.name!r}; {executor.name} is the study's executor."
        )
