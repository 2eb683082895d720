"""An Inspect eval log as a model run of a study whose items were imported from the same task: the
answers Inspect's solvers and scorer gave each sample stored beside Parity's own runs, so they sit
in the same tables and the same tests without running the model again.

The log is read and matched by `parity.benchmarks.from_inspect.logs`; nothing is written unless every
sample matches an item of the study and is scored. The run is done at once (nothing is scored
here), under a spec named as Inspect names the model (`hf/...`, `openai/gpt-4o`), and its
`model_identity` records where its answers came from: the file's name and sha256, Inspect's
version, the task, its version and arguments, the dataset, the epochs, the eval's id, the model's
generate config and the plan's solvers. The same file imported again changes nothing; another log
of the same model and task is refused while the first one's run stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django.db import transaction

from annotation.selectors import item_data
from modelruns import selectors
from modelruns.imported_runs import causal_spec, done_run_store, standing_run
from modelruns.models import INSPECT_SOURCE, ModelRun, ModelSpec
from modelruns.services import ModelRunError, setting_key
from modelruns.sources import model_name_problem
from parity.benchmarks.from_inspect.logs import SETTING, InspectLog, LogError, log_answers, read_log
from studies.models import Study

SOURCE = INSPECT_SOURCE


@dataclass(frozen=True)
class ImportedLog:
    run: ModelRun
    #: False when this very file was imported before (nothing written)
    created: bool
    #: answers stored: one per sample and epoch
    answers: int
    items: int


def _identity(log: InspectLog, file_name: str, answers: int, ran_here: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the run's record says of where its answers came from (the methods section's source)."""
    here: dict[str, Any] = {}
    if ran_here is not None:  # what Parity's worker gave Inspect's provider (`modelruns.services_inspect_eval`)
        here = {"model_args": dict(ran_here), "dtype": str(ran_here.get("dtype", ""))}
    return {
        "source": SOURCE,
        # Parity's worker ran the eval, or the log came from elsewhere
        "ran_here": ran_here is not None,
        **here,
        "file": file_name,
        "sha256": log.sha256,
        "inspect_version": log.inspect_version,
        "task": log.task,
        "task_version": log.task_version,
        "task_args": dict(log.task_args),
        "dataset": log.dataset_name,
        "dataset_location": log.dataset_location,
        "epochs": log.epochs,
        "eval_id": log.eval_id,
        "run_id": log.run_id,
        "status": log.status,
        "created": log.created,
        "model_id": log.model,
        "generate_config": dict(log.generate_config),
        "plan": [asdict(step) for step in log.plan],
        "scorer": log.scorer,
        "samples": len(log.samples),
        "answers": answers,
    }


def modelrun_import_inspect_log(
    *,
    study: Study,
    content: bytes,
    file_name: str,
    scorer: str | None = None,
    spec: ModelSpec | None = None,
    ran_here: Mapping[str, Any] | None = None,
) -> ImportedLog:
    """Import an Inspect eval log's answers (`scorer`'s; the log's first scorer by default) as a done
    run on `study` of the model it names (or of `spec`: the model Parity had Inspect run, with the
    provider's arguments `ran_here`).
    Raises ModelRunError naming what does not match."""
    try:
        log = read_log(content, file_name=file_name, scorer=scorer)
        rows = selectors.study_items(study)
        matched = log_answers(log, [item_data(row) for row in rows])
    except LogError as exc:
        raise ModelRunError(f"{file_name}: {exc}") from exc
    problem = model_name_problem(log.model)
    if problem is not None:
        raise ModelRunError(f"{file_name}: the log's model {log.model!r}: {problem}")
    setting = {SETTING: {"task": log.task}}
    with transaction.atomic():
        # the model as Inspect names it, its provider first (`hf/...`, `openai/...`): Parity loads no
        # model by that name, so the spec only names what answered (an API model is a causal LM to
        # the benchmarks, as `ModelSpec.scored_as` has it)
        spec = spec or causal_spec(log.model)
        key = setting_key(setting)
        existing = standing_run(study=study, spec=spec, key=key)
        if existing is not None:
            if existing.model_identity.get("sha256") == log.sha256:
                return ImportedLog(existing, False, existing.responses.count(), matched.items)
            raise ModelRunError(
                f"run #{existing.pk} already holds {spec.name}'s answers to {log.task} from another Inspect log "
                f"({existing.model_identity.get('file', 'not recorded')}); delete that run first"
            )
        ids = {row.key: row.pk for row in rows}
        run = done_run_store(
            study=study,
            spec=spec,
            setting=setting,
            key=key,
            identity=_identity(log, file_name, len(matched.answers), ran_here),
            answers=[(ids[item_key], answer) for item_key, answer in matched.answers],
            items=matched.items,
            source=SOURCE,
        )
    return ImportedLog(run, True, len(matched.answers), matched.items)
