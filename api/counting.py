"""A counter in Django's cache that every process of the site raises atomically: the API's
throttles count requests with it. `cache.add` makes the entry at 0 only where there is none, and
`cache.incr` raises it: on Redis both are single commands, atomic across processes and machines;
on the file cache of the embedded mode (Django's `incr` reads the file and writes it back) both run
under an exclusive lock on a file beside the cache's, which every process of the machine takes.

An entry that cannot be read (a cache file cut short or overwritten, a value that is no number) is
counted as absent: it is dropped and the count starts again, where it was a server error."""

from __future__ import annotations

import fcntl
import pickle
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.filebased import FileBasedCache
from redis.exceptions import ResponseError

#: what reading a damaged entry raises: a file not of pickles, not zlib, cut short; a value Redis
#: cannot raise; `incr` of an entry that expired between `add` and `incr` (ValueError)
_UNREADABLE = (pickle.UnpicklingError, zlib.error, EOFError, ValueError, TypeError, ResponseError)


def counted(key: str, *, timeout: int, alias: str = "default") -> int:
    """`key`'s count in the cache `alias` after adding one (1 for a new or unreadable entry, which
    lives `timeout` seconds)."""
    cache = caches[alias]
    with _exclusive(cache, alias):
        try:
            cache.add(key, 0, timeout)
            return int(cache.incr(key))
        except _UNREADABLE:
            cache.delete(key)
            cache.set(key, 1, timeout)
            return 1


@contextmanager
def _exclusive(cache: BaseCache, alias: str) -> Iterator[None]:
    """The file cache's counters, one process and thread at a time (an flock on a file of its own,
    held per open file, so threads of one process wait for each other too); the other caches'
    `add` and `incr` are atomic already (Redis, and the in-memory cache of one process)."""
    if not isinstance(cache, FileBasedCache):
        yield
        return
    folder = Path(settings.CACHES[alias]["LOCATION"])
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "counters.lock", "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
