"""Background tasks of the results: computing a large study's results (`results.cache`), on the
"default" queue of whichever backend TASK_QUEUE selects."""

from __future__ import annotations

from django_tasks import task

from results.forms import ResultFilters
from studies.models import Study

#: before queued model shards where the backend orders by priority (the database's); RQ has none,
#: and its workers take the "default" queue before "models" (scripts/serve)
PRIORITY = 10


@task(queue_name="default")
def study_results_task(study_id: int, filters: dict[str, str]) -> None:
    """Compute and keep the study's results under `filters` (`ResultFilters.as_query()`); a study
    deleted meanwhile is left alone."""
    # imported here: the cache module queues this task
    from results.cache import study_results_keep
    from results.integrity import review_signals_keep

    study = Study.objects.filter(pk=study_id).first()
    if study is not None:
        # the flags first: the results' filter on flagged participants reads them
        review_signals_keep(study)
        study_results_keep(study, ResultFilters(**filters))


#: the name this task had before; database queue rows queued under it (`task_path`) still run
results_compute_task = study_results_task


def _ahead_of_model_shards(task):
    """`task`, ahead of model shards where the backend can order by priority."""
    return task.using(priority=PRIORITY) if task.get_backend().supports_priority else task


def study_results_enqueue(study_id: int, filters: dict[str, str]) -> None:
    """Queue `study_results_task`, ahead of model shards where the backend can order by priority."""
    _ahead_of_model_shards(study_results_task).enqueue(study_id, filters)


@task(queue_name="default")
def review_signals_task(study_id: int) -> None:
    """Keep the study's model-likeness flags current (`results.integrity.review_signals_keep`): queued
    by the services that change what they are computed from (`studies.services_signals.signals_refresh_queue`)."""
    from results.integrity import review_signals_keep

    study = Study.objects.filter(pk=study_id).first()
    if study is not None:
        review_signals_keep(study)


def review_signals_enqueue(study_id: int) -> None:
    _ahead_of_model_shards(review_signals_task).enqueue(study_id)
