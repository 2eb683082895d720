"""The demo's model runs: smollm2 beside the humans, queued once.

The published human baseline comes first, so the first results page shows 20 annotators and a
model on the same 600 items; the implicature demo shares those items and is answered from the
engine's score cache. Instruction induction is left out: generating and executing instructions
takes far longer on a CPU than the rest of the demo together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studies.models import Study

if TYPE_CHECKING:
    from studies.demo import DemoReport

DEMO_MODEL = "smollm2"


def demo_study_names() -> list[str]:
    from studies.demo import BASELINE_STUDY

    return [BASELINE_STUDY, "Implicature demo", "AmbiBench demo", "MiQA demo"]


def demo_model_runs(report: DemoReport) -> None:
    """Queue each run for the task worker; a second call finds the same run and, if it is not
    finished, queues its unfinished shards again (a worker stopped mid-run resumes)."""
    from modelruns.services import modelrun_start, modelspec_get_or_create

    spec = modelspec_get_or_create(model=DEMO_MODEL)
    for name in demo_study_names():
        study = Study.objects.filter(name=name).first()
        if study is None:
            continue
        started = modelrun_start(study=study, spec=spec)
        run = started.run
        report.say(f"Model run {run.pk}: {run.spec.name} on {study.name!r} ({run.setting_label()}, "
                   f"{run.progress_total} items) — {'queued' if started.created else run.get_status_display().lower()}")
