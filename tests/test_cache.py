"""The production cache (config.cache): Django's Redis cache on the real Redis, one client per pool."""

from __future__ import annotations

import os
import uuid

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

from config.cache import RedisCache


def _cache(backend):
    return backend("redis://127.0.0.1:6379/6", {"KEY_PREFIX": f"cache-test-{uuid.uuid4()}"})


def test_every_call_shares_one_client_and_the_cache_still_works():
    cache = _cache(RedisCache)
    assert cache._cache.get_client() is cache._cache.get_client(write=True)
    assert _cache(DjangoRedisCache)._cache.get_client() is not _cache(DjangoRedisCache)._cache.get_client()
    cache.set("answer", {"participant": 7}, 30)
    assert cache.get("answer") == {"participant": 7}
    assert cache.add("answer", "other", 30) is False and cache.get("answer") == {"participant": 7}
    cache.delete("answer")
    assert cache.get("answer", "gone") == "gone"
    cache.clear()


def test_a_forked_worker_gets_connections_of_its_own():
    cache = _cache(RedisCache)
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
