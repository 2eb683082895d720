"""Background tasks of the results' computation, on the "default" queue of whichever backend
TASK_QUEUE selects: keeping a study's model-likeness flags current (`review_signals_task`). The
task that computes a large study's results and keeps them for its pages is beside that cache
(`results.presenting.cache.study_results_task`)."""

from __future__ import annotations

from typing import Any

from django.core.cache import caches
from django_tasks import task
from django_tasks.base import TASK_MAX_PRIORITY

from results.computing.integrity import review_signals_keep
from studies.models import Study
from studies.results_token import RESULTS_CACHE

#: before queued model shards where the backend orders by priority (the database's); RQ has none,
#: and its workers take the "default" queue before "models" (scripts/serve)
PRIORITY = TASK_MAX_PRIORITY
#: how long a queued refresh stops another being queued for the same study, at most
QUEUED_SECONDS = 15 * 60


def ahead_of_model_shards(queued: Any) -> Any:
    """`queued` (a task), ahead of model shards where the backend can order by priority."""
    return queued.using(priority=PRIORITY) if queued.get_backend().supports_priority else queued


@task(queue_name="default")
def review_signals_task(study_id: int) -> None:
    """Keep the study's model-likeness flags current (`results.computing.integrity.review_signals_keep`):
    queued by the services that change what they are computed from
    (`studies.services_signals.signals_refresh_queue`)."""
    # a change from now on asks for another refresh: this one may already have read the data
    caches[RESULTS_CACHE].delete(_queued_key(study_id))
    study = Study.objects.filter(pk=study_id).first()
    if study is not None:
        review_signals_keep(study)


def _queued_key(study_id: int) -> str:
    return f"signals-queued:{study_id}"


def review_signals_enqueue(study_id: int) -> None:
    """Queue the refresh unless one for the study is waiting: each participant finishing asks for one,
    and one task reads all their answers (the mark expires, so a lost task does not stop later ones)."""
    if caches[RESULTS_CACHE].add(_queued_key(study_id), True, timeout=QUEUED_SECONDS):
        ahead_of_model_shards(review_signals_task).enqueue(study_id)
