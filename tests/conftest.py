"""Shared fixtures: personas (researcher, participant, outsider) and imported benchmark data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def datasets_dir() -> Path:
    """The published data, read in place (never copied into the repository)."""
    return Path(os.environ.get("DATASETS_DIR") or REPO.parent / "shared" / "datasets")


@pytest.fixture
def implicature_source() -> Path:
    path = datasets_dir() / "implicature"
    if not path.is_dir():
        pytest.fail(f"the published implicature files are expected at {path} (set DATASETS_DIR)")
    return path


@pytest.fixture
def implicature(db, implicature_source):
    from annotation.services import benchmark_import

    return benchmark_import(name="implicature", source=implicature_source)


@pytest.fixture
def researcher(db, django_user_model):
    return django_user_model.objects.create_superuser("researcher", "r@example.org", "a-long-test-password")


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    return client
