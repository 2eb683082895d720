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
from django.utils import timezone

from annotation.selectors import item_data
from modelruns import selectors
from modelruns.models import LM_EVAL_SOURCE, ModelResponse, ModelRun, ModelSpec
from modelruns.services import ModelRunError, setting_key
from modelruns.sources import model_name_problem
from modelruns.storable import storable
from parity.benchmarks.custom.model import IMPORTED_SETTING
from parity.benchmarks.lm_eval.samples import SamplesError, read_samples, samples_answers
from studies.models import Study
from studies.results_token import results_changed

SOURCE = LM_EVAL_SOURCE


@dataclass(frozen=True)
class ImportedRun:
    run: ModelRun
    #: False when this very file was imported before (nothing written)
    created: bool
    answers: int
    #: documents whose context differs from the item's (another few-shot count or seed)
    contexts_differ: int


def _spec(model: str, revision: str) -> ModelSpec:
    """The spec of `model` at `revision` as a local causal LM would be loaded: the run of it that
    Parity scores itself and the imported one share it. No source check: nothing is loaded."""
    lookup = {
        "model": model,
        "revision": revision,
        "dtype": ModelSpec.Dtype.FLOAT32,
        "device": "auto",
        "kind": ModelSpec.Kind.CAUSAL,
        "api_base_url": "",
    }
    found = ModelSpec.objects.filter(**lookup).first()
    if found is not None:
        return found
    base = (model + (f"@{revision}" if revision else ""))[: ModelSpec.NAME_LENGTH - 8]
    name, number = base, 1
    while ModelSpec.objects.filter(name=name).exists():
        number += 1
        name = f"{base} ({number})"
    return ModelSpec.objects.create(name=name, **lookup)


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
        spec = _spec(model, revision)
        key = setting_key(setting)
        existing = (
            ModelRun.objects.select_for_update()
            .filter(study=study, spec=spec, setting_key=key)
            .exclude(status__in=[ModelRun.Status.FAILED, ModelRun.Status.CANCELLED])
            .first()
        )
        if existing is not None:
            if existing.model_identity.get("sha256") == samples.sha256:
                return ImportedRun(existing, False, existing.responses.count(), matched.contexts_differ)
            raise ModelRunError(
                f"run #{existing.pk} already holds {spec.name}'s answers to {samples.task} from another samples file "
                f"({existing.model_identity.get('file', 'not recorded')}); delete that run first, or import this "
                "one under another --model name"
            )
        now = timezone.now()
        run = ModelRun.objects.create(
            study=study,
            spec=spec,
            setting=setting,
            setting_key=key,
            status=ModelRun.Status.DONE,
            progress_done=len(matched.answers),
            progress_total=len(matched.answers),
            started_at=now,
            finished_at=now,
            model_identity=identity,
        )
        ids = {row.key: row.pk for row in rows}
        ModelResponse.objects.bulk_create(
            [
                ModelResponse(
                    run=run,
                    item_id=ids[key],
                    variant=answer.variant,
                    raw_answer=storable(answer.raw_answer),
                    answer=storable(answer.answer),
                    valid=answer.valid,
                    correct=answer.correct,
                    scores=storable({**answer.scores, "source": SOURCE}),
                    truncated_tokens=answer.truncated_tokens,
                )
                for key, answer in matched.answers.items()
            ],
            batch_size=500,
        )
        results_changed(study_ids=[study.pk])
    return ImportedRun(run, True, len(matched.answers), matched.contexts_differ)
