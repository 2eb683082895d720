"""A token per study that changes whenever something its results are computed from changes: an
answer stored or marked, a participant entering (the results count who is working), declining,
returning, timing out, excluded, included or erased, a run finished, cancelled or
failed, instructions scored, the study or its units edited. Results computed from a study are kept
with the token they were computed at (`results.presenting.cache`), so a change leaves them stale at once, in
every process; nothing has to find and delete them.

The tokens live in the "results" cache (config/settings.py), which all the processes of a site share:
Redis when CACHE_URL names it, else files under the data directory. A token is random, never a
counter: a token lost (the cache emptied, an entry evicted) is replaced by a new one, and results
kept under the old one are never taken for current.

Results too slow to compute in a request (a large study's) are computed again by a task that an app
above this one queues when a study's token is renewed: it registers its hook with
`results_refresher_register` (in its `AppConfig.ready()`), and the hook runs once the write commits,
so that a results page only ever reads what is kept.
"""

from __future__ import annotations

import functools
import logging
import secrets
from collections.abc import Callable, Iterable

from django.core.cache import caches
from django.db import connection, transaction

logger = logging.getLogger(__name__)

#: the cache alias of the tokens and of the results kept under them
RESULTS_CACHE = "results"


def _key(study_id: int) -> str:
    return f"study-version:{study_id}"


def _token() -> str:
    return secrets.token_hex(8)


#: what each app above registers to have a study's results computed again (by its id)
_REFRESHERS: list[Callable[[int], None]] = []


def results_refresher_register(refresh: Callable[[int], None]) -> None:
    """Called once by an app that keeps computed results (in its `AppConfig.ready()`)."""
    if refresh not in _REFRESHERS:
        _REFRESHERS.append(refresh)


def _renew(study_ids: list[int]) -> None:
    try:
        cache = caches[RESULTS_CACHE]
        if len(study_ids) == 1:
            # an answer's case: one SET, where `set_many` sends a transaction of MSET (and Redis's
            # client builds a pipeline for it)
            cache.set(_key(study_ids[0]), _token(), timeout=None)
        else:
            cache.set_many({_key(pk): _token() for pk in study_ids}, timeout=None)
    except Exception:  # noqa: BLE001 - an answer is stored whether or not the cache is reachable
        logger.exception("could not renew the results tokens of studies %s", study_ids)


def results_changed(*, study_ids: Iterable[int]) -> None:
    """The results of these studies change with the write in progress.

    The tokens are renewed now, so that a read later in the same transaction (which sees the write)
    takes no results from before it; and again once the transaction commits, so that results that
    other processes computed in between, from data read before the commit, are left under a token
    already replaced.

    The registered refreshers are called for each study once the transaction commits (at once
    outside one; never if it is rolled back), and a failing one is logged: the write is stored
    whether or not its results could be queued."""
    ids = sorted(set(study_ids))
    if not ids:
        return
    _renew(ids)
    if connection.in_atomic_block:
        transaction.on_commit(lambda: _renew(ids))
    for refresh in _REFRESHERS:
        for study_id in ids:
            transaction.on_commit(functools.partial(refresh, study_id), robust=True)


def results_version(study_id: int) -> str:
    """The study's current token; read it before reading the study's data."""
    cache = caches[RESULTS_CACHE]
    token = cache.get(_key(study_id))
    if token is None:
        cache.add(_key(study_id), _token(), timeout=None)
        token = cache.get(_key(study_id)) or _token()
    return str(token)
