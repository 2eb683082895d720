"""What a study's preregistration says of its model runs: the runs it has at launch (queued,
running or done; a failed or cancelled one is not planned) are the models and settings to be run.
Registered as the document's "runs" section in `ModelrunsConfig.ready()`."""

from __future__ import annotations

from typing import Any

from modelruns.models import INSPECT_SOURCE, ModelRun
from studies.models import Study, StudyEvent
from studies.preregistration.events import study_event_record

#: what the plan keeps of a run made in Inspect (its record: modelruns.services_inspect)
INSPECT_PLAN_KEYS = ("inspect_version", "task", "task_version", "task_args", "epochs", "generate_config", "plan")


def run_plan(run: ModelRun) -> dict[str, Any]:
    """A run as the preregistration and the audit trail name it (the same keys, compared as is); a
    run made in Inspect also names Inspect's version, the task and how the model was asked."""
    spec = run.spec
    plan: dict[str, Any] = {
        "model": spec.name,
        "source": spec.model,
        "revision": spec.revision,
        "dtype": spec.dtype,
        "kind": spec.kind,
        "setting_key": run.setting_key,
    }
    identity = run.model_identity or {}
    if identity.get("source") == INSPECT_SOURCE:
        plan["inspect"] = {key: identity.get(key) for key in INSPECT_PLAN_KEYS}
    return plan


def planned_runs(study: Study) -> list[dict[str, Any]]:
    runs = (
        ModelRun.objects.filter(study=study)
        .exclude(status__in=[ModelRun.Status.FAILED, ModelRun.Status.CANCELLED])
        .select_related("spec")
        .order_by("spec__name", "setting_key")
    )
    return [run_plan(run) for run in runs]


def run_change_record(*, run: ModelRun, added: bool, actor: Any = None) -> StudyEvent | None:
    data = {"run": run.pk, **run_plan(run)}
    verb = "Run added" if added else "Run cancelled"
    return study_event_record(
        study=run.study,
        kind=StudyEvent.Kind.RUN_ADDED if added else StudyEvent.Kind.RUN_CANCELLED,
        # the setting in the words the results use (the key is JSON, for the run's identity only)
        summary=f"{verb}: {run.spec.name}, {run.setting_label()}",
        data=data,
        actor=actor,
    )
