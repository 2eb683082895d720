"""Shared fixtures: personas (researcher, participant, outsider) and imported benchmark data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def datasets_dir() -> Path:
    """The published data, read in place (never copied into the repository)."""
    return Path(os.environ.get("DATASETS_DIR") or REPO.parent / "shared" / "datasets")


def dataset(name: str) -> Path:
    """The published files of `name`; the test fails (never skips) when they are missing."""
    path = datasets_dir() / name
    if not path.is_dir():
        pytest.fail(f"the published {name} files are expected at {path} (set DATASETS_DIR)")
    return path


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The API's throttles count in the cache: no test inherits another's requests."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def postgres(db) -> None:
    """Skips the test unless it runs on PostgreSQL: the tests of row locks (`@pytest.mark.postgres`)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks are exercised on PostgreSQL (set DATABASE_URL=postgres://...)")


@pytest.fixture
def implicature_source() -> Path:
    return dataset("implicature")


@pytest.fixture
def implicature(db, implicature_source):
    from annotation.services import benchmark_import

    return benchmark_import(name="implicature", source=implicature_source)


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
def shared_database_url() -> str:
    """This run's test database as a URL, for server and worker processes to share (its data must be
    committed: such tests are marked transaction=True); skipped without PostgreSQL."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL shared by several processes (DATABASE_URL=postgres://...; "
                    "scripts/test does this)")
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
