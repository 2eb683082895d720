"""The published implicature study (20 annotators, given realistic Prolific identities) with a run of
a tiny random Llama over its 600 items, bundled once per module; the module's rows are wiped at its end."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.test import override_settings

from tests.conftest import committed_world_wipe, dataset
from tests.parity.engine.conftest import _save_llama, train_tokenizer

BASELINE = "Ruis et al. human baseline"


@dataclass(frozen=True)
class Bundled:
    study_id: int
    name: str
    path: Path
    #: every participant's (prolific_pid, prolific_study_id, prolific_session_id)
    identities: list[tuple[str, str, str]]


def hex_id(*parts: str) -> str:
    """A 24-character hexadecimal ID, as Prolific's are."""
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:24]


@pytest.fixture(scope="module")
def bundled(django_db_setup, django_db_blocker, tmp_path_factory: pytest.TempPathFactory) -> Bundled:
    from django.core.management import call_command

    from modelruns import services, shards
    from studies.models import Participant
    from studies.setup.imports import human_baseline_import

    tokenizer_dir = tmp_path_factory.mktemp("bundle-tokenizer")
    train_tokenizer(tokenizer_dir)
    model_dir = _save_llama(tmp_path_factory.mktemp("bundle-llama"), tokenizer_dir, seed=0)
    path = tmp_path_factory.mktemp("bundle") / "baseline.zip"
    with django_db_blocker.unblock():
        study = human_baseline_import(benchmark="implicature", source=dataset("implicature"), name=BASELINE).study
        identities = []
        for participant in Participant.objects.filter(study=study).order_by("pk"):
            ids = tuple(hex_id(participant.pseudonym, field) for field in ("pid", "study", "session"))
            participant.prolific_pid, participant.prolific_study_id, participant.prolific_session_id = ids
            participant.save(update_fields=["prolific_pid", "prolific_study_id", "prolific_session_id"])
            identities.append(ids)
        with override_settings(
            PARITY_MODEL_SOURCES=[str(model_dir)], MODEL_CACHE_DIR=str(tmp_path_factory.mktemp("bundle-cache"))
        ):
            spec = services.modelspec_get_or_create(model=str(model_dir), device="cpu")
            run = services.modelrun_start(study=study, spec=spec, enqueue=False, shard_size=200).run
            shards.modelrun_work(run=run, worker="bundle-test")
        call_command("bundle", BASELINE, "--out", str(path))
        yield Bundled(study.pk, BASELINE, path, identities)
        committed_world_wipe()


def _migrated_template(folder: Path) -> Path:
    """An empty database migrated in `folder`, on first use (a test process migrates it once)."""
    template = folder / "reanalysis.sqlite3"
    if not template.exists():
        from django.conf import settings

        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{folder / 'building.sqlite3'}",
            "PARITY_VAR_DIR": str(folder / "var"),
            "TASK_QUEUE": "immediate",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        subprocess.run(
            [sys.executable, manage, "migrate", "--no-input", "-v0"], env=env, check=True, capture_output=True
        )
        (folder / "building.sqlite3").rename(template)
    return template


@pytest.fixture(scope="session")
def _reanalysis_template_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("reanalysis-template")


@pytest.fixture(autouse=True)
def _reanalysis_starts_from_a_migrated_copy(monkeypatch: pytest.MonkeyPatch, _reanalysis_template_folder: Path) -> None:
    """Each re-analysis's throw-away folder is given a copy of an empty database migrated once per test
    process: migrating one from nothing took 7-15 s of every re-analysis here. The subprocess still
    runs `load_bundle --migrate` (with nothing left to apply) on the file it always used, and a fresh
    installation's migrations from nothing run at the start of every test session (pytest-django's
    test database) and for the template itself."""
    from replication import reanalysis

    @contextmanager
    def seeded(**kwargs: str) -> Iterator[str]:
        with tempfile.TemporaryDirectory(**kwargs) as folder:
            shutil.copyfile(_migrated_template(_reanalysis_template_folder), Path(folder) / "reanalysis.sqlite3")
            yield folder

    monkeypatch.setattr(reanalysis, "tempfile", SimpleNamespace(TemporaryDirectory=seeded))
