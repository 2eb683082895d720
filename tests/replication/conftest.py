"""The published implicature study (20 annotators, given realistic Prolific identities) with a run of
a tiny random Llama over its 600 items, bundled once per module; the module's rows are wiped at its end."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.test import override_settings

from tests.conftest import committed_world_wipe, dataset
from tests.engine.conftest import _save_llama, train_tokenizer

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
    from studies.services_import import human_baseline_import

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
