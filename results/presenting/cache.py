"""A study's results kept once computed, per state of the study and choice of filters.

An entry holds what the results page, the API and the exports' links need of one study under one
choice of filters (the results as a `results.computing.tree.StudyResults` tree, the page's charts,
whether any answer is free text: the charts are drawn once with the results, which is why the kept
entry is the presenting's), with the study's token (`studies.results_token`) read before its
data. Beside the entries, the cache holds the marks the scheduling of their computation reads
(`results.pipeline`): a computation queued or resting, the filter sets a large study's page was
asked for lately, a study found large. Nothing here computes or reads the database.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields
from datetime import datetime

from django.core.cache import caches

from results.computing.tree import Node, StudyResults
from results.loading.filters import ResultFilters
from studies.models import Study
from studies.results_token import RESULTS_CACHE

#: how long a queued computation holds its place before another may be queued (a worker may die)
QUEUED_SECONDS = 15 * 60
#: the filter sets a large study's page was asked for that a change has computed again: how many,
#: and for how long after they were last asked
ASKED_KEPT = 4
ASKED_SECONDS = 60 * 60
#: how long a study found large is taken as large without counting its answers again
LARGE_SECONDS = 3600


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


def results_kept(study: Study, filters: ResultFilters) -> Computed | None:
    """The entry kept for the study under `filters`, current or not (one kept before the results
    were a tree, its results a plain dict, is taken as none)."""
    kept: Computed | None = caches[RESULTS_CACHE].get(_key(study, filters))
    if kept is not None and not isinstance(kept.results, StudyResults):
        return None
    return kept


def results_store(study: Study, filters: ResultFilters, computed: Computed, *, rest: int) -> None:
    """Keep `computed`; the next computation of these results rests for `rest` seconds."""
    cache = caches[RESULTS_CACHE]
    cache.set(_key(study, filters), computed)
    cache.set(f"{_key(study, filters)}:rest", time.time() + rest, timeout=rest)


def resting_until(study: Study, filters: ResultFilters) -> float | None:
    """When the rest after the last computation of these results ends (a time.time()), if it has not."""
    until: float | None = caches[RESULTS_CACHE].get(f"{_key(study, filters)}:rest")
    return until


def queued_mark(study: Study, filters: ResultFilters, *, wait: float) -> bool:
    """Hold the place of a computation of these results; False when one holds it already."""
    return bool(caches[RESULTS_CACHE].add(f"{_key(study, filters)}:queued", True, timeout=QUEUED_SECONDS + round(wait)))


def queued_clear(study: Study, filters: ResultFilters) -> None:
    caches[RESULTS_CACHE].delete(f"{_key(study, filters)}:queued")


def is_queued(study: Study, filters: ResultFilters) -> bool:
    return bool(caches[RESULTS_CACHE].get(f"{_key(study, filters)}:queued"))


def _asked_key(study: Study) -> str:
    return f"results-asked:{study.pk}:{study.created_at.isoformat()}"


def asked_note(study: Study, filters: ResultFilters) -> None:
    """Remember that a large study's page was asked for these filters (in the cache, never the database)."""
    cache = caches[RESULTS_CACHE]
    query = filters.as_query()
    asked: list[dict[str, str]] = [query] + [kept for kept in cache.get(_asked_key(study), []) if kept != query]
    cache.set(_asked_key(study), asked[:ASKED_KEPT], timeout=ASKED_SECONDS)


def asked_lately(study: Study) -> list[ResultFilters]:
    """The filter sets the study's page was asked for lately, newest first (kept in the cache as
    their `ResultFilters.as_query()`)."""
    asked: list[dict[str, str]] = caches[RESULTS_CACHE].get(_asked_key(study), [])
    return [ResultFilters(**query) for query in asked]


def _large_key(study_id: int, inline_answers: int) -> str:
    return f"results-large:{study_id}:{inline_answers}"


def large_known(study_id: int, inline_answers: int) -> bool:
    """Whether the study was found large (more answers than `inline_answers`) within `LARGE_SECONDS`."""
    return bool(caches[RESULTS_CACHE].get(_large_key(study_id, inline_answers)))


def large_note(study_id: int, inline_answers: int) -> None:
    caches[RESULTS_CACHE].set(_large_key(study_id, inline_answers), True, timeout=LARGE_SECONDS)
