"""The demo's model run: smollm2 on the implicature demo study (template 2, k=0), queued once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studies.models import Study

if TYPE_CHECKING:
    from studies.demo import DemoReport

DEMO_STUDY = "Implicature demo"
DEMO_MODEL = "smollm2"


def demo_model_run(report: DemoReport) -> None:
    """Queue the run for the task worker; a second call finds the same run and, if it is not
    finished, queues its unfinished shards again (a worker stopped mid-run resumes)."""
    from modelruns.services import modelrun_start, modelspec_get_or_create

    study = Study.objects.filter(name=DEMO_STUDY).first()
    if study is None:
        return
    started = modelrun_start(study=study, spec=modelspec_get_or_create(model=DEMO_MODEL))
    run = started.run
    report.say(f"Model run {run.pk}: {run.spec.name} on {study.name!r} ({run.setting_label()}, "
               f"{run.progress_total} items) — {'queued' if started.created else run.get_status_display().lower()}")
