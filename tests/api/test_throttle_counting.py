"""The API's throttles count exactly across processes: many processes asking at once against a
limit of N let exactly N through, on the embedded mode's file cache and on Redis; a cache file
that cannot be read counts as absent, never a server error."""

from __future__ import annotations

import multiprocessing
import uuid
from pathlib import Path

import pytest
from django.core.cache import caches
from rest_framework.test import APIClient

from tests.api import throttle_child

LIMIT = 30
PROCESSES = 8
#: requests in all, from PROCESSES processes at once
REQUESTS = 200


def _let_through_at_once(settings) -> int:
    """PROCESSES fresh interpreters asking at once, each with the test's cache and rate."""
    start = multiprocessing.get_context("spawn")
    asks = [(REQUESTS // PROCESSES, settings.CACHES, settings.REST_FRAMEWORK)] * PROCESSES
    with start.Pool(PROCESSES) as pool:
        return sum(pool.starmap(throttle_child.ask, asks, chunksize=1))


@pytest.fixture
def anon_limit(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": f"{LIMIT}/hour", "user": f"{LIMIT}/hour"},
    }


@pytest.fixture
def file_cache(settings, tmp_path: Path, anon_limit) -> Path:
    folder = tmp_path / "cache"
    settings.CACHES = {
        **settings.CACHES,
        "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": str(folder)},
    }
    return folder


@pytest.fixture
def redis_cache(settings, anon_limit):
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/6",
            "KEY_PREFIX": f"throttle-test-{uuid.uuid4()}",
        },
    }
    yield
    caches["default"].clear()


def test_on_the_file_cache_processes_at_once_get_exactly_the_limit(file_cache, settings):
    assert _let_through_at_once(settings) == LIMIT


def test_on_redis_processes_at_once_get_exactly_the_limit(redis_cache, settings):
    assert _let_through_at_once(settings) == LIMIT


@pytest.mark.django_db
def test_a_cache_file_that_cannot_be_read_counts_as_absent(file_cache):
    api = APIClient(REMOTE_ADDR="203.0.113.8")
    assert api.get("/api/studies/").status_code == 401  # counted, then refused for want of credentials
    files = [path for path in file_cache.iterdir() if path.suffix == ".djcache"]
    assert files
    for path in files:
        path.write_bytes(b"\x80\x04not a pickle at all")
    assert api.get("/api/studies/").status_code == 401  # a first request again
    for _ in range(LIMIT - 1):
        assert api.get("/api/studies/").status_code == 401
    refused = api.get("/api/studies/")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
