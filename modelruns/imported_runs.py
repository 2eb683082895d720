"""Writes shared by the imports of runs made elsewhere (an lm-evaluation-harness samples file, an
Inspect eval log): the run that already holds a model's answers in a setting, and a done run with
its answers stored at once (nothing is scored here: the answers come scored)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils import timezone

from modelruns.models import ModelResponse, ModelRun, ModelSpec
from modelruns.storable import storable, stored_answer
from parity.benchmarks.base import ModelAnswer
from studies.models import Study
from studies.results_token import results_changed


def causal_spec(model: str, revision: str = "") -> ModelSpec:
    """The spec of `model` at `revision` as a local causal LM is loaded (float32, device auto): an
    imported run shares it with Parity's own runs of the model, where it names one Parity loads. No
    source check: nothing is loaded. A new spec is named after the model (and revision), numbered
    where another spec has that name."""
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


def standing_run(*, study: Study, spec: ModelSpec, key: str) -> ModelRun | None:
    """The study's run of `spec` in the setting `key` that stands (neither failed nor cancelled),
    locked until the transaction ends, so that two imports of one model and setting cannot both write."""
    return (
        ModelRun.objects.select_for_update()
        .filter(study=study, spec=spec, setting_key=key)
        .exclude(status__in=[ModelRun.Status.FAILED, ModelRun.Status.CANCELLED])
        .first()
    )


def done_run_store(
    *,
    study: Study,
    spec: ModelSpec,
    setting: Mapping[str, Any],
    key: str,
    identity: Mapping[str, Any],
    answers: Iterable[tuple[int, ModelAnswer]],
    items: int,
    source: str,
) -> ModelRun:
    """A done run of `spec` on `study` with `answers` ((item id, answer) pairs) stored, each answer's
    scores marked with its `source`; `items`: how many items it answered. Call inside a transaction."""
    now = timezone.now()
    run = ModelRun.objects.create(
        study=study,
        spec=spec,
        setting=dict(setting),
        setting_key=key,
        status=ModelRun.Status.DONE,
        progress_done=items,
        progress_total=items,
        started_at=now,
        finished_at=now,
        model_identity=storable(dict(identity)),
    )
    ModelResponse.objects.bulk_create(
        [stored_answer(run, item_id, answer, {**answer.scores, "source": source}) for item_id, answer in answers],
        batch_size=500,
    )
    results_changed(study_ids=[study.pk])
    return run
