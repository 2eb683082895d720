"""The production cache (settings: CACHE_URL): Django's Redis cache on the real Redis, in a forked
worker too (gunicorn --preload forks its workers after the settings are read)."""

from __future__ import annotations

import os
import uuid

from django.core.cache.backends.redis import RedisCache


def _cache() -> RedisCache:
    return RedisCache("redis://127.0.0.1:6379/6", {"KEY_PREFIX": f"cache-test-{uuid.uuid4()}"})


def test_a_value_is_stored_added_only_once_and_deleted():
    cache = _cache()
    cache.set("answer", {"participant": 7}, 30)
    assert cache.get("answer") == {"participant": 7}
    assert cache.add("answer", "other", 30) is False and cache.get("answer") == {"participant": 7}
    cache.delete("answer")
    assert cache.get("answer", "gone") == "gone"
    cache.clear()


def test_a_forked_worker_gets_connections_of_its_own():
    cache = _cache()
    cache.set("before fork", 1, 30)
    pool = cache._cache._get_connection_pool(False)
    parent_connection = pool.get_connection()
    pool.release(parent_connection)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # as a gunicorn worker forked from the preloaded master
        try:
            ok = cache.get("before fork") == 1 and pool.get_connection() is not parent_connection
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 1) == b"1"
    cache.clear()
