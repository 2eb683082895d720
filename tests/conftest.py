"""Shared fixtures: personas (researcher, participant, outsider) and imported benchmark data."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO

# Idle OpenMP threads of torch sleep instead of spinning: the suite runs a process per core
# (pytest-xdist), and spinning threads of one process take the cores the others compute on. The
# work each thread does is unchanged, so every score is bit for bit the same: with it the bundled
# smollm2 scores the same 100 implicature items in half the time on a busy two-core machine. Read
# when torch loads its OpenMP runtime, so set before anything imports torch (subprocesses inherit it).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

#: Published benchmarks imported once per session (per xdist worker) into the test database, committed,
#: before the first test that uses it: each test's transaction rolls back around them. A test that
#: commits ends with a flush of every table; they are imported again before the next test that needs
#: them (`pytest_runtest_setup`). Tests that count what an import wrote use `without_session_benchmarks`.
SESSION_BENCHMARKS = ("implicature", "instruction_induction")


def datasets_dir() -> Path:
    """The published data, read in place (never copied into the repository)."""
    return Path(os.environ.get("DATASETS_DIR") or REPO.parent / "shared" / "datasets")


def dataset(name: str) -> Path:
    """The published files of `name`; the test fails (never skips) when they are missing."""
    path = datasets_dir() / name
    if not path.is_dir():
        pytest.fail(f"the published {name} files are expected at {path} (set DATASETS_DIR)")
    return path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """pytest-xdist tells tests apart by node ID: of several tests with one ID it runs one."""
    repeated = [
        nodeid
        for nodeid, count in Counter(item.nodeid for item in items if item.get_closest_marker("serial") is None).items()
        if count > 1
    ]
    if repeated:
        raise pytest.UsageError(f"tests share a node ID (mark them serial): {', '.join(repeated)}")


@pytest.fixture(autouse=True, scope="session")
def _scripted_answers_are_not_too_soon():
    """Scripted participants and browser tests answer in milliseconds: new studies get no floor for an
    answer's time here (settings.MIN_ANSWER_MS), module-wide fixtures' studies included. The floor's
    own tests give their study one."""
    from django.conf import settings

    settings.MIN_ANSWER_MS = 0


@pytest.fixture(autouse=True, scope="session")
def _urls_loaded_before_any_frozen_clock():
    """The URLconf, and every module it imports, loaded before a test freezes the clock: a module
    first imported under freezegun keeps the fake clock it read (DRF's throttles take
    `timer = time.time` as they are defined), and the API then fails in every later test."""
    import rest_framework.throttling  # noqa: F401
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (the import is the point)


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    """The API's throttles count in the cache: no test inherits another's requests (the site shares
    one between its processes, files or Redis; here each test has one in memory). Results are kept
    in a cache of their own (files, shared by processes): here one in memory, emptied for each test,
    so that no test reads results another computed from data its transaction rolled back."""
    from django.core.cache import cache, caches

    memory = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    # in memory here, never the files the site's processes share: parallel test processes would count
    # each other's requests
    settings.CACHES = {**settings.CACHES, "default": memory, "results": memory}
    for each in (cache, caches["results"]):
        each.clear()
    yield
    cache.clear()


def _marked_postgres(request: pytest.FixtureRequest) -> None:
    """scripts/test runs on PostgreSQL only the tests so marked: unmarked, such a test would never run."""
    if request.node.get_closest_marker("postgres") is None:
        pytest.fail("mark the test @pytest.mark.postgres: scripts/test runs the tests that need PostgreSQL there only")


@pytest.fixture
def postgres(db, request) -> None:
    """Skips the test unless it runs on PostgreSQL: the tests of row locks (`@pytest.mark.postgres`)."""
    from django.db import connection

    _marked_postgres(request)
    if connection.vendor != "postgresql":
        pytest.skip("row locks are exercised on PostgreSQL (set DATABASE_URL=postgres://...)")


@pytest.fixture
def implicature_source() -> Path:
    return dataset("implicature")


@dataclass
class _SessionData:
    """The session's imports, and whether a test that commits has emptied the tables since."""

    blocker: Any = None  # pytest-django's django_db_blocker, once the test database exists
    imported: dict[str, Any] = field(default_factory=dict)  # name -> ImportResult
    emptied: bool = False


_session = _SessionData()


def _import_session_benchmarks() -> None:
    """Commits the published benchmarks that are there (a test that needs a missing one fails in
    `dataset`, as before)."""
    from annotation.services import benchmark_import

    with _session.blocker.unblock():
        _session.imported = {
            name: benchmark_import(name=name, source=datasets_dir() / name)
            for name in SESSION_BENCHMARKS
            if (datasets_dir() / name).is_dir()
        }


def committed_world_wipe() -> None:
    """Delete what a module's shared, committed data made (a `django_db_blocker.unblock()` fixture):
    studies and all they hold, model runs, users, items of benchmarks outside the session's, and the
    task queue's rows. Built outside a test's transaction, the data's `on_commit` callbacks ran at once:
    a participant finishing queued a refresh of the study's flags, committed, which the tests after
    the module would otherwise find in the queue."""
    from django.contrib.auth import get_user_model
    from django_tasks_db.models import DBTaskResult

    from annotation.models import BenchmarkAsset, Item
    from modelruns.models import ModelResponse, ModelRun, ModelShard, ModelSpec
    from studies.models import Participant, Response, Study, Unit, UnitItem

    for model in (ModelResponse, ModelShard, ModelRun, ModelSpec, Response, Participant, UnitItem, Unit, Study):
        model.objects.all().delete()
    for model in (Item, BenchmarkAsset):
        model.objects.exclude(benchmark__in=SESSION_BENCHMARKS).delete()
    get_user_model().objects.all().delete()
    DBTaskResult.objects.all().delete()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, with the session's benchmarks in it."""
    _session.blocker = django_db_blocker
    _import_session_benchmarks()
    yield
    _session.blocker = None


def _uses_db(item: pytest.Item) -> bool:
    fixtures = getattr(item, "fixturenames", ())
    return item.get_closest_marker("django_db") is not None or "db" in fixtures or "transactional_db" in fixtures


def _commits(item: pytest.Item) -> bool:
    """Whether the test commits (transaction=True, live_server): pytest-django flushes every table after it."""
    marker = item.get_closest_marker("django_db")
    fixtures = getattr(item, "fixturenames", ())
    return bool(marker and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences"))) or (
        "transactional_db" in fixtures or "live_server" in fixtures
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """After a flush, the session's benchmarks are imported again (committed, before the test's own
    transaction begins) for the next test that reads them or rolls back: pytest-django runs the
    tests that commit after the others, but a worker of pytest-xdist runs whole files in turn."""
    fixtures = getattr(item, "fixturenames", ())
    if (
        _session.emptied
        and _session.blocker is not None
        and ("session_benchmarks" in fixtures or _uses_db(item) and not _commits(item))
    ):
        _import_session_benchmarks()
        _session.emptied = False
    if _commits(item):
        _session.emptied = True


@pytest.fixture
def session_benchmarks(db) -> dict[str, Any]:
    """The session's imports (name -> ImportResult), in the database for this test."""
    return _session.imported


@pytest.fixture
def without_session_benchmarks(db, request) -> None:
    """For tests that count what an import wrote: the session's benchmarks that the test does not ask
    for (as a fixture of that name) are deleted, inside its transaction (its rollback restores them)."""
    from annotation.models import BenchmarkAsset, Item

    unwanted = [name for name in SESSION_BENCHMARKS if name not in request.fixturenames]
    for model in (Item, BenchmarkAsset):
        model.objects.filter(benchmark__in=unwanted).delete()


@pytest.fixture
def implicature(session_benchmarks, implicature_source):
    return session_benchmarks["implicature"]


@pytest.fixture
def instruction_induction(session_benchmarks):
    dataset("instruction_induction")
    return session_benchmarks["instruction_induction"]


@pytest.fixture
def researcher(db):
    """Staff with the researcher and identity permissions (not a superuser): give them the studies a
    test uses (`owner=researcher`); tests of superuser powers use `tests.personas.superuser`."""
    from tests import personas

    return personas.researcher()


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    return client


@pytest.fixture
def superuser_client(client, db):
    """Signed in as a superuser: for what only superusers do (accounts, tokens, every study)."""
    from tests import personas

    client.force_login(personas.superuser())
    return client


@pytest.fixture
def shared_database_url(request) -> str:
    """This run's test database as a URL, for server and worker processes to share (its data must be
    committed: such tests are marked transaction=True); skipped without PostgreSQL."""
    from django.db import connection

    _marked_postgres(request)
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL shared by several processes (DATABASE_URL=postgres://...; scripts/test does this)"
        )
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
