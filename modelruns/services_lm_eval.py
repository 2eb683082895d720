"""A published lm-evaluation-harness run (its `--log_samples` file) as a model run of a study
imported from the same task: the harness's per-document answers stored beside Parity's own runs,
so they sit in the same tables and the same tests without running the model again.

The file is read and matched by `parity.benchmarks.lm_eval.samples`; nothing is written unless
every document matches an item of the study. The run is done at once (no shards: nothing is
scored here), and its `model_identity` names its source: the file's name and sha256, the task and
the filter. The same file imported again changes nothing; another file for the same model and task
is refused while the first one's run stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from annotation.selectors import item_data
from modelruns import selectors
from modelruns.imported_runs import causal_spec, done_run_store, standing_run
from modelruns.models import LM_EVAL_SOURCE, ModelRun
from modelruns.services import ModelRunError, setting_key
from modelruns.sources import model_name_problem
from parity.benchmarks.custom.model import IMPORTED_SETTING
from parity.benchmarks.lm_eval.samples import SamplesError, read_samples, samples_answers
from studies.models import Study

SOURCE = LM_EVAL_SOURCE


@dataclass(frozen=True)
class ImportedRun:
    run: ModelRun
    #: False when this very file was imported before (nothing written)
    created: bool
    answers: int
    #: documents whose context differs from the item's (another few-shot count or seed)
    contexts_differ: int


def modelrun_import_lm_eval_samples(
    *,
    study: Study,
    content: bytes,
    file_name: str,
    model: str,
    revision: str = "",
    task: str | None = None,
    filter_name: str | None = None,
) -> ImportedRun:
    """Import a samples file's answers as a done run of `model` (at `revision`) on `study`.
    Raises ModelRunError naming what does not match."""
    model, revision = model.strip(), revision.strip()
    if not model:
        raise ModelRunError("a model name is needed: the Hugging Face id or the name the harness ran")
    problem = model_name_problem(model)
    if problem is not None:
        raise ModelRunError(problem)
    definition = study.definition
    try:
        samples = read_samples(content, file_name=file_name, task=task, filter_name=filter_name)
        rows = selectors.study_items(study)
        matched = samples_answers(samples, [item_data(row) for row in rows], definition.model_answers)
    except SamplesError as exc:
        raise ModelRunError(f"{file_name}: {exc}") from exc
    setting = {IMPORTED_SETTING: {"task": samples.task, "filter": samples.filter}}
    identity = {
        "source": SOURCE,
        "file": file_name,
        "sha256": samples.sha256,
        "task": samples.task,
        "filter": samples.filter,
        "documents": len(samples.samples),
        "contexts_differ": matched.contexts_differ,
        "model_id": model,
        "revision": revision,
    }
    with transaction.atomic():
        spec = causal_spec(model, revision)
        key = setting_key(setting)
        existing = standing_run(study=study, spec=spec, key=key)
        if existing is not None:
            if existing.model_identity.get("sha256") == samples.sha256:
                return ImportedRun(existing, False, existing.responses.count(), matched.contexts_differ)
            raise ModelRunError(
                f"run #{existing.pk} already holds {spec.name}'s answers to {samples.task} from another samples file "
                f"({existing.model_identity.get('file', 'not recorded')}); delete that run first, or import this "
                "one under another --model name"
            )
        ids = {row.key: row.pk for row in rows}
        run = done_run_store(
            study=study,
            spec=spec,
            setting=setting,
            key=key,
            identity=identity,
            answers=[(ids[item_key], answer) for item_key, answer in matched.answers.items()],
            items=len(matched.answers),
            source=SOURCE,
        )
    return ImportedRun(run, True, len(matched.answers), matched.contexts_differ)
