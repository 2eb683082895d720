"""A study's results computed once per state of the study, and kept.

An entry holds what the results page, the API and the exports' links need of one study under one
choice of filters (the results as a `results.computing.spine.StudyResults` tree, the page's charts,
whether any answer is free text: the charts are drawn once with the results, which is why the cache
sits with the presenting and not with the computing it keeps), with the study's token
(`studies.results_versions`) read before its data. A read whose token is the study's current one takes the
entry (one kept before the results were a tree, its results a plain dict, is computed again).
Otherwise the results are computed again: in the request when the study has at most
`RESULTS_INLINE_ANSWERS` answers (about a second at most), else by a task (`study_results_task`,
below) while the page shows the entry it has, marked as earlier figures, or says the results are
being computed, and asks again (htmx polling).

A read writes nothing to the database, not even a row of the task queue: the task is queued by the
write that leaves the results stale (`study_results_refresh`, which `results.apps` registers with
`studies.results_versions`), once it commits, for the study's whole results and the filters its
page was asked for lately. A large study's results that nothing queued is computing (a filter set
asked for the first time or not lately, the cache emptied, a lost task) are computed in the request.

A study still collecting answers changes all the time: one computation per study and filters is
queued or running at a time (a change during it queues the next when it ends), and after one the
next waits ten times as long as it took (queued to run then), so that a large live study keeps a
task worker busy a tenth of the time at most.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import caches
from django.utils import timezone
from django_tasks import task

from results.computing.assemble import study_results_tree
from results.computing.integrity import review_signals_keep
from results.computing.spine import Node, StudyResults
from results.computing.tasks import ahead_of_model_shards
from results.loading.filters import ResultFilters
from results.loading.selectors import load_answers, load_study_data
from results.loading.study_data import StudyData
from results.presenting.charts import study_charts
from studies.models import Response, Study
from studies.results_token import RESULTS_CACHE, results_version

#: after a computation, the next waits this many times as long as it took
REST_FACTOR = 10
#: how long a queued computation holds its place before another may be queued (a worker may die)
QUEUED_SECONDS = 15 * 60
#: the filter sets a large study's page was asked for that a change has computed again: how many,
#: and for how long after they were last asked
ASKED_KEPT = 4
ASKED_SECONDS = 60 * 60


@dataclass(frozen=True)
class Computed:
    version: str
    computed_at: datetime
    seconds: float
    results: StudyResults
    charts: dict[str, str]
    has_free_text: bool


@dataclass(frozen=True)
class Lookup:
    #: the newest results kept, current or not; None when there are none yet
    computed: Computed | None
    #: whether they are the study's results as it is now (if not, newer ones are on their way)
    current: bool


def _node_classes(cls: type) -> Iterator[type]:
    sub: type
    for sub in cls.__subclasses__():
        yield sub
        yield from _node_classes(sub)


def layout_of(root: type) -> str:
    """A digest of the layout of the dataclasses below `root` (each one's fields and their types)."""
    shape = sorted(
        f"{cls.__qualname__}({', '.join(f'{spec.name}: {spec.type}' for spec in fields(cls))})"
        for cls in _node_classes(root)
    )
    return hashlib.sha256("|".join(shape).encode()).hexdigest()[:12]


#: an entry is the pickled results tree: one kept by code whose tree had another layout (before a
#: deploy) is not read, as its key differs
TREE_LAYOUT = layout_of(Node)


def _key(study: Study, filters: ResultFilters) -> str:
    # the study's creation time tells apart studies that reuse a number (a database made anew)
    chosen = "&".join(f"{name}={value}" for name, value in sorted(filters.as_query().items()))
    digest = hashlib.sha256(f"{study.created_at.isoformat()}|{chosen}|{TREE_LAYOUT}".encode()).hexdigest()[:24]
    return f"results:{study.pk}:{digest}"


def study_results_keep(study: Study, filters: ResultFilters, data: StudyData | None = None) -> Computed:
    """Compute the results and keep them; `data` is used when given (its answers read if not yet).

    A read: it writes nothing to the database (a results page computes here). The model-likeness
    flags it filters on are those kept on the participants (`results.computing.integrity.review_signals_keep`).
    """
    version = results_version(study.pk)  # before the data: a change during the read leaves this stale
    began = time.monotonic()
    if data is None:
        data = load_study_data(study)
    elif not data.answers_read:
        load_answers({study.pk: data})
    numbers = study_results_tree(data, filters)
    computed = Computed(
        version=version,
        computed_at=timezone.now(),
        seconds=time.monotonic() - began,
        results=numbers,
        charts=study_charts(numbers),
        has_free_text=data.has_free_text,
    )
    cache = caches[RESULTS_CACHE]
    cache.set(_key(study, filters), computed)
    # the next computation of these results waits (see the module doc)
    rest = max(1, round(REST_FACTOR * computed.seconds))
    cache.set(f"{_key(study, filters)}:rest", time.time() + rest, timeout=rest)
    return computed


@task(queue_name="default")
def study_results_task(study_id: int, filters: dict[str, str]) -> None:
    """Compute and keep the study's results under `filters` (`ResultFilters.as_query()`); a study
    deleted meanwhile is left alone."""
    study = Study.objects.filter(pk=study_id).first()
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
    caches[RESULTS_CACHE].delete(f"{_key(study, chosen)}:queued")
    if computed.version != results_version(study.pk):
        study_results_enqueue(study, chosen)


#: how long a study found large is taken as large without counting its answers again
LARGE_SECONDS = 3600


def _large(study_id: int) -> bool:
    """More answers than a request computes inline. Asked after every committed answer: a study found
    large is remembered for a while (answers only grow, but for an erasure), so a large live study's
    answers do not each count all of its answers again."""
    cache = caches[RESULTS_CACHE]
    key = f"results-large:{study_id}:{settings.RESULTS_INLINE_ANSWERS}"
    if cache.get(key):
        return True
    large = Response.objects.filter(participant__study_id=study_id).count() > settings.RESULTS_INLINE_ANSWERS
    if large:
        cache.set(key, True, timeout=LARGE_SECONDS)
    return large


def _asked_key(study: Study) -> str:
    return f"results-asked:{study.pk}:{study.created_at.isoformat()}"


def _asked_note(study: Study, filters: ResultFilters) -> None:
    """Remember that a large study's page was asked for these filters (in the cache, never the database)."""
    cache = caches[RESULTS_CACHE]
    query = filters.as_query()
    asked: list[dict[str, str]] = [query] + [kept for kept in cache.get(_asked_key(study), []) if kept != query]
    cache.set(_asked_key(study), asked[:ASKED_KEPT], timeout=ASKED_SECONDS)


def study_results_enqueue(study: Study, filters: ResultFilters) -> bool:
    """Queue `study_results_task` unless one for the study and filters is queued or running (ahead of
    model shards where the backend orders by priority, after the rest of the last computation where
    it can defer); whether it was queued."""
    cache = caches[RESULTS_CACHE]
    key = _key(study, filters)
    resting_until: float | None = cache.get(f"{key}:rest")
    wait = max(0.0, resting_until - time.time()) if resting_until else 0.0
    queued = ahead_of_model_shards(study_results_task)
    if wait and not queued.get_backend().supports_defer:
        # a backend that runs a task now or never (the immediate one, in the writer's request): a
        # change during the rest is computed with the next one after it
        return False
    if not cache.add(f"{key}:queued", True, timeout=QUEUED_SECONDS + round(wait)):
        return False
    if wait:
        queued = queued.using(run_after=timezone.now() + timedelta(seconds=wait))
    queued.enqueue(study.pk, filters.as_query())
    return True


def study_results_refresh(study_id: int) -> None:
    """The study's results changed (`studies.results_versions.results_changed`, once its write
    committed): a large study's are queued to be computed again, whole and under each filter set its
    page was recently asked for; a small study's are computed by the next read."""
    if not _large(study_id):
        return
    study = Study.objects.filter(pk=study_id).first()
    if study is None:
        return
    asked: list[dict[str, str]] = caches[RESULTS_CACHE].get(_asked_key(study), [])
    for query in [{}, *(kept for kept in asked if kept)]:
        study_results_enqueue(study, ResultFilters(**query))


def results_lookup(study: Study, filters: ResultFilters, data: StudyData | None = None) -> Lookup:
    """The study's results under `filters`: kept, or computed now (a small study, or a large one
    with none kept and none queued). Never queued here: a read writes nothing to the database."""
    cache = caches[RESULTS_CACHE]
    key = _key(study, filters)
    kept: Computed | None = cache.get(key)
    if kept is not None and not isinstance(kept.results, StudyResults):
        kept = None  # kept before the results were a tree
    version = results_version(study.pk)
    if kept is not None and kept.version == version:
        return Lookup(kept, current=True)
    if not _large(study.pk):
        return Lookup(study_results_keep(study, filters, data), current=True)
    if filters.as_query():
        _asked_note(study, filters)
    if not cache.get(f"{key}:queued"):
        # nothing on its way would bring them up to date (filters not asked for lately, a backend
        # that could not defer, a lost task)
        return Lookup(study_results_keep(study, filters, data), current=True)
    # the write that made them stale has queued their computation (see the module doc)
    return Lookup(kept, current=False)
