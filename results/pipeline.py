"""The results' front door: a study's results, monitor, exports and checklist, each loaded, then
computed, then presented, and the tasks that keep them current.

Views, the API, the management commands and the tasks ask here; none wires the steps itself. Every
read of the database is in `results.loading` and happens before the computing starts: the computing
(`results.computing`) and the presenting (`results.presenting`) run on what was loaded and query
nothing (`tests/results/test_no_queries_past_loading.py`).

A study's results are kept per state of the study (`results.presenting.cache`, with the study's token
from `studies.results_token` read before its data). A read whose token is the study's current one
takes the entry. Otherwise the results are computed again: in the request when the study has at most
`RESULTS_INLINE_ANSWERS` answers (about a second at most), else by a task (`study_results_task`) while
the page shows the entry it has, marked as earlier figures, or says the results are being computed,
and asks again (htmx polling).

A read writes nothing to the database, not even a row of the task queue: the task is queued by the
write that leaves the results stale (`study_results_refresh`, which `results.apps` registers with
`studies.results_token`), once it commits, for the study's whole results and the filters its
page was asked for lately. A large study's results that nothing queued is computing (a filter set
asked for the first time or not lately, the cache emptied, a lost task) are computed in the request.

A study still collecting answers changes all the time: one computation per study and filters is
queued or running at a time (a change during it queues the next when it ends), and after one the
next waits ten times as long as it took (queued to run then), so that a large live study keeps a
task worker busy a tenth of the time at most.

The tasks run on the "default" queue of whichever backend TASK_QUEUE selects, ahead of model shards
where the backend orders by priority: the results' computation (`study_results_task`) and keeping a
study's model-likeness flags current (`review_signals_task`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.utils import timezone
from django_tasks import task
from django_tasks.base import TASK_MAX_PRIORITY

from parity.reporting.checklist import Answer
from results.computing import checklist
from results.computing.assemble import N_BOOT, study_results_tree
from results.computing.demographics import summarised
from results.computing.headlines import StudyHeadline
from results.computing.headlines import study_headlines as headlines_of
from results.computing.monitor import Monitor, monitor_of
from results.computing.quality import Encoder, cache_signals_stale, signals_change, signals_computed
from results.computing.tree import StudyResults
from results.loading.exports import load_export_records
from results.loading.filters import ResultFilters
from results.loading.monitor import load_monitor_data
from results.loading.selectors import (
    load_answers,
    load_checklist_records,
    load_headlines_data,
    load_results_records,
    load_study_data,
    study_answer_count,
    study_found,
)
from results.loading.study_data import StudyData
from results.presenting import cache
from results.presenting.cache import Computed, Lookup
from results.presenting.charts import study_charts
from results.presenting.exports import ExportFile, export_study, long_rows
from results.presenting.report import render_report
from results.presenting.report.materials import study_materials
from studies.models import Study
from studies.participants.quality_signals import participants_signals_set
from studies.results_token import RESULTS_CACHE, results_version

#: after a computation, the next waits this many times as long as it took
REST_FACTOR = 10
#: before queued model shards where the backend orders by priority (the database's); RQ has none,
#: and its workers take the "default" queue before "models" (scripts/serve)
PRIORITY = TASK_MAX_PRIORITY
#: how long a queued refresh of the flags stops another being queued for the same study, at most
SIGNALS_QUEUED_SECONDS = 15 * 60


# -- loading and computing a study's results ----------------------------------------------------


def results_data(study: Study, *, answers: bool = True) -> StudyData:
    """The study's data as the results read it. Without `answers`: units, items and runs only (what
    the results filters offer), whose answers `results_compute` reads when it needs them."""
    return load_study_data(study, answers=answers)


def results_compute(data: StudyData, filters: ResultFilters | None = None, *, n_boot: int = N_BOOT) -> StudyResults:
    """The results tree of `data` under `filters`: the rest of the study's records read first (its
    answers when not yet read, the flags and closing answers the results are filtered on), then the
    computing, which queries nothing."""
    if not data.answers_read:
        load_answers({data.study.pk: data})
    load_results_records(data, closing=summarised(data.study))
    return study_results_tree(data, filters, n_boot=n_boot)


def study_results(study: Study, filters: ResultFilters | None = None, *, n_boot: int = N_BOOT) -> StudyResults:
    """The study's results computed now (not kept): `manage.py`'s and the replication bundle's."""
    return results_compute(results_data(study), filters, n_boot=n_boot)


def study_results_keep(study: Study, filters: ResultFilters, data: StudyData | None = None) -> Computed:
    """Compute the results and keep them; `data` is used when given (its answers read if not yet).

    A read: it writes nothing to the database (a results page computes here). The model-likeness
    flags it filters on are those kept on the participants (`review_signals_keep`)."""
    version = results_version(study.pk)  # before the data: a change during the read leaves this stale
    began = time.monotonic()
    if data is None:
        data = results_data(study)
    numbers = results_compute(data, filters)
    computed = Computed(
        version=version,
        computed_at=timezone.now(),
        seconds=time.monotonic() - began,
        results=numbers,
        charts=study_charts(numbers),
        has_free_text=data.has_free_text,
    )
    # the next computation of these results waits (see the module doc)
    cache.results_store(study, filters, computed, rest=max(1, round(REST_FACTOR * computed.seconds)))
    return computed


def _large(study_id: int) -> bool:
    """More answers than a request computes inline. Asked after every committed answer: a study found
    large is remembered for a while (answers only grow, but for an erasure), so a large live study's
    answers do not each count all of its answers again."""
    inline = settings.RESULTS_INLINE_ANSWERS
    if cache.large_known(study_id, inline):
        return True
    large = study_answer_count(study_id) > inline
    if large:
        cache.large_note(study_id, inline)
    return large


def results_lookup(study: Study, filters: ResultFilters, data: StudyData | None = None) -> Lookup:
    """The study's results under `filters`: kept, or computed now (a small study, or a large one
    with none kept and none queued). Never queued here: a read writes nothing to the database."""
    kept = cache.results_kept(study, filters)
    version = results_version(study.pk)
    if kept is not None and kept.version == version:
        return Lookup(kept, current=True)
    if not _large(study.pk):
        return Lookup(study_results_keep(study, filters, data), current=True)
    if filters.as_query():
        cache.asked_note(study, filters)
    if not cache.is_queued(study, filters):
        # nothing on its way would bring them up to date (filters not asked for lately, a backend
        # that could not defer, a lost task)
        return Lookup(study_results_keep(study, filters, data), current=True)
    # the write that made them stale has queued their computation (see the module doc)
    return Lookup(kept, current=False)


def current_results(study: Study) -> StudyResults:
    """The study's whole results (no filters): those kept when they are its current ones, else
    computed now (the report's and the checklist's)."""
    lookup = results_lookup(study, ResultFilters())
    kept = lookup.computed if lookup.current else None
    return kept.results if kept else study_results(study)


def study_headlines(studies: Iterable[Study], *, n_boot: int = N_BOOT) -> list[StudyHeadline]:
    """Every study's headline numbers (the list of studies)."""
    return headlines_of(load_headlines_data(studies), n_boot=n_boot)


# -- the checklist, the exports, the monitor ------------------------------------------------------


def study_checklist(study: Study, results: StudyResults) -> list[Answer]:
    """The study's answers to the reporting checklist, from its results and its records."""
    return checklist.study_checklist(study, results, load_checklist_records(study))


def study_report(study: Study, fmt: str, results: StudyResults, *, beside: Path | None = None) -> str:
    """The study's report for a paper in `fmt` (`results.presenting.report.FORMATS`), written from
    `results` with its checklist and materials; `beside`: the folder it is written to (a screenshot
    already there is shown)."""
    answers = study_checklist(study, results)
    return render_report(results, fmt, answers, study.public_title, study_materials(study, beside=beside))


def data_export(
    data: StudyData, fmt: str, *, include_free_text: bool = False, results: StudyResults | None = None
) -> ExportFile:
    """One export of the study of `data` in `fmt` (`results.presenting.exports.FORMATS`); the paper
    tables' formats from `results` when given, else computed now."""
    if results is None and fmt in {"latex", "markdown"}:
        results = results_compute(data)
    records = load_export_records(data, fmt)
    return export_study(data, fmt, include_free_text=include_free_text, results=results, records=records)


def study_export(study: Study, fmt: str, *, include_free_text: bool = False) -> ExportFile:
    return data_export(results_data(study), fmt, include_free_text=include_free_text)


def study_long_rows(study: Study, *, include_free_text: bool = False) -> list[dict[str, Any]]:
    """Every human answer in the long export's shape (the API's)."""
    data = results_data(study)
    return long_rows(data, load_export_records(data, "csv"), include_free_text=include_free_text)


def study_monitor(study: Study, *, now: datetime | None = None) -> Monitor:
    """Everything the monitor shows (the page, its fragment and the API read it)."""
    now = now or timezone.now()
    return monitor_of(load_monitor_data(study), now=now)


# -- the tasks ----------------------------------------------------------------------------------


def ahead_of_model_shards(queued: Any) -> Any:
    """`queued` (a task), ahead of model shards where the backend can order by priority."""
    return queued.using(priority=PRIORITY) if queued.get_backend().supports_priority else queued


@task(queue_name="default")
def study_results_task(study_id: int, filters: dict[str, str]) -> None:
    """Compute and keep the study's results under `filters` (`ResultFilters.as_query()`); a study
    deleted meanwhile is left alone."""
    study = study_found(study_id)
    if study is None:
        return
    chosen = ResultFilters(**filters)
    # the flags first: the results' filter on flagged participants reads them (the change they make
    # queues nothing more, as this computation holds its place until it is done)
    review_signals_keep(study)
    computed = study_results_keep(study, chosen)
    # the place given up first, then the token read: a change committed in between queues the next
    # computation itself, one committed during this one (which may have read the data before it) is
    # seen here
    cache.queued_clear(study, chosen)
    if computed.version != results_version(study.pk):
        study_results_enqueue(study, chosen)


def study_results_enqueue(study: Study, filters: ResultFilters) -> bool:
    """Queue `study_results_task` unless one for the study and filters is queued or running (ahead of
    model shards where the backend orders by priority, after the rest of the last computation where
    it can defer); whether it was queued."""
    resting_until = cache.resting_until(study, filters)
    wait = max(0.0, resting_until - time.time()) if resting_until else 0.0
    queued = ahead_of_model_shards(study_results_task)
    if wait and not queued.get_backend().supports_defer:
        # a backend that runs a task now or never (the immediate one, in the writer's request): a
        # change during the rest is computed with the next one after it
        return False
    if not cache.queued_mark(study, filters, wait=wait):
        return False
    if wait:
        queued = queued.using(run_after=timezone.now() + timedelta(seconds=wait))
    queued.enqueue(study.pk, filters.as_query())
    return True


def study_results_refresh(study_id: int) -> None:
    """The study's results changed (`studies.results_token.results_changed`, once its write
    committed): a large study's are queued to be computed again, whole and under each filter set its
    page was recently asked for; a small study's are computed by the next read."""
    if not _large(study_id):
        return
    study = study_found(study_id)
    if study is None:
        return
    whole = ResultFilters()
    for filters in [whole, *(kept for kept in cache.asked_lately(study) if kept != whole)]:
        study_results_enqueue(study, filters)


def review_signals_refresh(data: StudyData, *, encode: Encoder | None = None) -> int:
    """Compute the study's model-likeness flags and keep them on its participants; writes only when
    they differ from those kept (read with the data), and returns how many participants changed."""
    change = signals_change(data, encode=encode)
    if change is None:
        return 0
    return participants_signals_set(study=data.study, names=change.names, signals=change.signals)


def review_signals_keep(study: Study, data: StudyData | None = None) -> int:
    """Compute the label flags again when the study changed since they last were (once per state of
    the study, whatever the filters), and keep them; returns how many participants changed. Called
    where results are computed off a page request (the results task, `manage.py study_results`),
    never by a page: a GET writes nothing."""
    version = results_version(study.pk)  # before the data, as for the results
    if not cache_signals_stale(study, version):
        return 0
    changed = review_signals_refresh(data if data is not None else results_data(study))
    signals_computed(study, version)
    return changed


@task(queue_name="default")
def review_signals_task(study_id: int) -> None:
    """Keep the study's model-likeness flags current (`review_signals_keep`): queued by the services
    that change what they are computed from (`studies.participants.quality_signals.signals_refresh_queue`)."""
    # a change from now on asks for another refresh: this one may already have read the data
    caches[RESULTS_CACHE].delete(_signals_queued_key(study_id))
    study = study_found(study_id)
    if study is not None:
        review_signals_keep(study)


def _signals_queued_key(study_id: int) -> str:
    return f"signals-queued:{study_id}"


def review_signals_enqueue(study_id: int) -> None:
    """Queue the refresh unless one for the study is waiting: each participant finishing asks for one,
    and one task reads all their answers (the mark expires, so a lost task does not stop later ones)."""
    if caches[RESULTS_CACHE].add(_signals_queued_key(study_id), True, timeout=SIGNALS_QUEUED_SECONDS):
        ahead_of_model_shards(review_signals_task).enqueue(study_id)
