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

A study still collecting answers changes all the time: one computation at a time per study and
filters is queued, and after one the next waits ten times as long as it took, so that a page left
open on a large live study keeps a task worker busy a tenth of the time at most.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields
from datetime import datetime

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
from studies.results_versions import RESULTS_CACHE, results_version

#: after a computation, the next waits this many times as long as it took
REST_FACTOR = 10
#: how long a queued computation holds its place before another may be queued (a worker may die)
QUEUED_SECONDS = 15 * 60


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
    cache.set(f"{_key(study, filters)}:busy", version, timeout=max(1, round(REST_FACTOR * computed.seconds)))
    return computed


@task(queue_name="default")
def study_results_task(study_id: int, filters: dict[str, str]) -> None:
    """Compute and keep the study's results under `filters` (`ResultFilters.as_query()`); a study
    deleted meanwhile is left alone."""
    study = Study.objects.filter(pk=study_id).first()
    if study is not None:
        # the flags first: the results' filter on flagged participants reads them
        review_signals_keep(study)
        study_results_keep(study, ResultFilters(**filters))


def study_results_enqueue(study_id: int, filters: dict[str, str]) -> None:
    """Queue `study_results_task`, ahead of model shards where the backend can order by priority."""
    ahead_of_model_shards(study_results_task).enqueue(study_id, filters)


def results_lookup(study: Study, filters: ResultFilters, data: StudyData | None = None) -> Lookup:
    """The study's results under `filters`: kept, computed now (a small study), or queued."""
    cache = caches[RESULTS_CACHE]
    key = _key(study, filters)
    kept: Computed | None = cache.get(key)
    if kept is not None and not isinstance(kept.results, StudyResults):
        kept = None  # kept before the results were a tree
    version = results_version(study.pk)
    if kept is not None and kept.version == version:
        return Lookup(kept, current=True)
    if Response.objects.filter(participant__study=study).count() <= settings.RESULTS_INLINE_ANSWERS:
        return Lookup(study_results_keep(study, filters, data), current=True)
    if cache.add(f"{key}:busy", "queued", timeout=QUEUED_SECONDS):
        study_results_enqueue(study.pk, filters.as_query())
        # a queue that runs tasks at once (the immediate backend) has computed them by now
        kept = cache.get(key) or kept
        if kept is not None and kept.version == results_version(study.pk):
            return Lookup(kept, current=True)
    return Lookup(kept, current=False)
