"""Reads behind the API's list endpoints (querysets with their relations loaded)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet

from modelruns.selectors import runs_for_study
from studies.models import Participant, Study, Unit, UnitItem
from studies.selectors import units_with_counts


def study_units_of(study: Study) -> QuerySet[Unit]:
    return units_with_counts(study)


def study_items_of(study: Study) -> QuerySet[UnitItem]:
    return UnitItem.objects.filter(unit__study=study).select_related("item", "unit").order_by("unit__position", "order")


def participants_of(study: Study) -> QuerySet[Participant]:
    return Participant.objects.filter(study=study).select_related("unit").order_by("pk")


def model_runs_of(study: Study, run_ids: Iterable[int] | None = None) -> list[dict[str, Any]]:
    """The study's model runs (those of `run_ids` only, if given) with answer counts."""
    runs = runs_for_study(study)
    if run_ids is not None:
        runs = runs.filter(pk__in=list(run_ids))
    rows = []
    for run in runs:
        rows.append(
            {
                "id": run.pk,
                "model": str(run.spec),
                "setting": run.setting,
                "setting_label": run.setting_label(),
                "status": run.status,
                "n_answered": run.n_answered,
                "n_correct": run.n_correct,
                "n_invalid": run.n_invalid,
                "accuracy": run.n_correct / run.n_scored if run.n_scored else None,
                "created_at": run.created_at,
                "finished_at": run.finished_at,
                "prompt_tokens": run.prompt_tokens,
                "completion_tokens": run.completion_tokens,
            }
        )
    return rows
