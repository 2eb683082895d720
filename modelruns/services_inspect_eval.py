"""A local Hugging Face model run through an Inspect task by Parity's own worker: for a study whose
items were imported from an Inspect task, the task's own solvers and scorer ask the model (Inspect's
`hf/` provider, on the worker), and the log Inspect writes is imported as the run
(`modelruns.services_inspect`), exactly as a log made elsewhere would be.

The task comes from the items: their `inspect_task_spec` (what `inspect eval` takes: a registry name
such as `inspect_evals/gpqa_diamond`, or a file `tasks.py@name`) and `inspect_task_args` (JSON), which
the task's import writes. A task in a file runs the file's Python on the worker: only the operator's
command line may ask for one (`trust_task_code`), as with lm-evaluation-harness's `!function`.
"""

from __future__ import annotations

import json
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from django.conf import settings
from django.db import transaction
from django_tasks import task as background_task

from annotation.selectors import item_data
from modelruns import selectors
from modelruns.models import ModelRun, ModelSpec
from modelruns.services import ModelRunError
from modelruns.services_inspect import ImportedLog, modelrun_import_inspect_log
from modelruns.sources import model_source_problem
from parity.benchmarks.from_inspect import samples as keys
from parity.benchmarks.from_inspect.logs import SETTING, item_sample
from studies.models import Study, UnitItem


@dataclass(frozen=True)
class InspectTask:
    #: the task's name, as its logs write it (`inspect_task`)
    name: str
    #: what `inspect_ai.eval` takes: a registry name or a file (`tasks.py@name`)
    spec: str
    args: dict[str, Any]
    #: the ids of the study's samples, as Inspect's `sample_id` filter takes them
    sample_ids: tuple[str, ...]


def _names_a_file(spec: str) -> bool:
    """A spec that names a file or folder on the worker (whose Python Inspect would import)."""
    path = spec.split("@", 1)[0]
    return "@" in spec or path.endswith(".py") or Path(path).expanduser().exists()


def study_inspect_task(study: Study, *, trust_task_code: bool = False) -> InspectTask:
    """The one Inspect task the study's items were imported from; ModelRunError when there is none,
    several, or a task in a file without `trust_task_code`."""
    found: set[tuple[str, str, str]] = set()
    ids: list[str] = []
    for row in selectors.study_items(study):
        item = item_data(row)
        sample = item_sample(item)
        extra = item.meta.get("extra") or {}
        if sample is None or not extra.get(keys.TASK_SPEC):
            continue
        found.add((sample[0], str(extra[keys.TASK_SPEC]), str(extra.get(keys.TASK_ARGS) or "{}")))
        ids.append(sample[1])
    if not found:
        raise ModelRunError(
            f"study {study.name!r} has no items of an Inspect task that say how to run it ({keys.TASK_SPEC})"
        )
    if len(found) > 1:
        raise ModelRunError(
            f"study {study.name!r} mixes items of several Inspect tasks ({', '.join(sorted(t[1] for t in found))})"
        )
    ((name, spec, args),) = found
    if _names_a_file(spec) and not trust_task_code:
        raise ModelRunError(
            f"the task {spec!r} is a file whose Python the worker would run: only the operator may allow it, "
            "on the command line (--trust-task-code)"
        )
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as exc:
        raise ModelRunError(f"the items' {keys.TASK_ARGS} is not JSON ({exc.msg})") from exc
    if not isinstance(parsed, dict):
        raise ModelRunError(f"the items' {keys.TASK_ARGS} is not a JSON object of the task's arguments")
    return InspectTask(name, spec, parsed, tuple(ids))


class NamedTask(NamedTuple):
    #: the task's name, as its logs write it
    name: str
    #: what `inspect eval` takes
    spec: str


def study_inspect_task_named(study: Study) -> NamedTask | None:
    """The name and spec of the one Inspect task the study's items came from and say how to run, or None
    (no such items, or several tasks): one narrow query, for a page that only names the task."""
    found = (
        UnitItem.objects.filter(
            unit__study=study, item__is_attention_check=False, item__meta__extra__has_key=keys.TASK_SPEC
        )
        .values_list(f"item__meta__extra__{keys.TASK}", f"item__meta__extra__{keys.TASK_SPEC}")
        .order_by()  # the model's ordering would make every row distinct
        .distinct()[:2]
    )
    tasks = [NamedTask(str(name), str(spec)) for name, spec in found]
    return tasks[0] if len(tasks) == 1 else None


def _check_spec(spec: ModelSpec) -> None:
    if spec.kind != ModelSpec.Kind.CAUSAL:
        raise ModelRunError(
            f"Inspect runs a local Hugging Face causal LM here (its hf/ provider), not a {spec.get_kind_display()}"
        )
    problem = model_source_problem(spec.source)
    if problem is not None:
        raise ModelRunError(problem)


def inspect_run_check(*, study: Study, spec: ModelSpec, trust_task_code: bool = False) -> InspectTask:
    """What a run of `spec` through the study's Inspect task would run; ModelRunError when it cannot,
    or when a run of that model on the task already stands."""
    _check_spec(spec)
    task = study_inspect_task(study, trust_task_code=trust_task_code)
    standing = (
        ModelRun.objects.filter(study=study, spec=spec, setting__has_key=SETTING)
        .exclude(status__in=[ModelRun.Status.FAILED, ModelRun.Status.CANCELLED])
        .first()
    )
    if standing is not None:
        raise ModelRunError(f"run #{standing.pk} already holds {spec.name}'s answers to an Inspect task")
    return task


def modelrun_queue_inspect(*, study: Study, spec: ModelSpec, trust_task_code: bool = False) -> InspectTask:
    """Check, then queue the eval on the models queue; the worker's run appears when the log is in."""
    task = inspect_run_check(study=study, spec=spec, trust_task_code=trust_task_code)
    transaction.on_commit(lambda: run_inspect_eval.enqueue(study.pk, spec.pk, trust_task_code))
    return task


def _model_args(spec: ModelSpec) -> tuple[str, dict[str, Any]]:
    """Inspect's name for the spec's model (`hf/` and the folder or Hub id the engine resolves it to)
    and the provider's arguments: the device, the dtype and a Hub model's revision."""
    from parity.engine.loading import resolve_source

    source = resolve_source(spec.model, revision=spec.revision or None, cache_dir=settings.MODEL_CACHE_DIR)
    args: dict[str, Any] = {"dtype": spec.dtype}
    if spec.device and spec.device != "auto":
        args["device"] = spec.device
    if not source.is_local:
        args["revision"] = source.revision
    return f"hf/{source.location}", args


def modelrun_run_inspect(*, study: Study, spec: ModelSpec, trust_task_code: bool = False) -> ImportedLog:
    """The worker's part: Inspect runs the study's task with the spec's model on the study's samples,
    and its log is imported as the run. Raises ModelRunError when the eval's log cannot be imported."""
    from inspect_ai import eval as inspect_eval

    task = inspect_run_check(study=study, spec=spec, trust_task_code=trust_task_code)
    model, args = _model_args(spec)
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(max_workers=1) as thread:
        # Inspect starts an event loop of its own, which a thread already running one (a caller's
        # asyncio code) cannot: it runs in a thread of its own
        (log,) = thread.submit(
            inspect_eval,
            task.spec,
            task_args=task.args,
            model=model,
            model_args=args,
            sample_id=[keys.sample_key(value) for value in task.sample_ids],
            log_dir=folder,
            log_format="eval",
            display="none",
        ).result()
        path = Path(log.location)
        content = path.read_bytes()
    return modelrun_import_inspect_log(study=study, content=content, file_name=path.name, spec=spec, ran_here=args)


# the task beside its service, not in `modelruns.tasks`: that module is imported by `modelruns.services`,
# which this one imports
@background_task(queue_name="models")
def run_inspect_eval(study_id: int, spec_id: int, trust_task_code: bool = False) -> int:
    """The worker's task: run the study's Inspect task with the spec's model and import its log as a
    run; returns the run's id."""
    imported = modelrun_run_inspect(
        study=Study.objects.get(pk=study_id), spec=ModelSpec.objects.get(pk=spec_id), trust_task_code=trust_task_code
    )
    return imported.run.pk
