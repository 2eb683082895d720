"""Model-run fixtures: a tiny random Llama saved on the spot (the engine tests' builders), a score
cache of the session, and a small implicature study."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.parity.engine.conftest import _save_llama, train_tokenizer

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random two-layer Llama with a small byte-level BPE tokenizer, loadable by path."""
    tokenizer_dir = tmp_path_factory.mktemp("run-tokenizer")
    train_tokenizer(tokenizer_dir)
    return _save_llama(tmp_path_factory.mktemp("run-llama"), tokenizer_dir, seed=0)


@pytest.fixture(scope="session")
def session_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("run-model-cache")


@pytest.fixture(autouse=True)
def _model_cache(settings, session_model_cache: Path) -> None:
    settings.MODEL_CACHE_DIR = str(session_model_cache)


@pytest.fixture(autouse=True)
def _no_backoff(settings) -> None:
    """A shard that raises is tried again at once here (the back-off's own tests set one): the runs
    that must fail fail after their tries without waiting."""
    settings.MODEL_SHARD_BACKOFF_SECONDS = 0


@pytest.fixture(autouse=True)
def _model_sources(settings, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Runs here load the bundled smollm2 and the tiny models saved under this session's temporary folder."""
    settings.PARITY_MODEL_SOURCES = ["smollm2", str(tmp_path_factory.getbasetemp())]


@pytest.fixture
def small_implicature_study(implicature, researcher):
    from tests.factories import small_study

    return small_study("model pilot", unit_size=5, units=2, per_unit=1, attention_checks=0, owner=researcher)


@pytest.fixture
def tiny_spec(tiny_model_dir: Path):
    from modelruns.services import modelspec_get_or_create

    return modelspec_get_or_create(model=str(tiny_model_dir), device="cpu")


@pytest.fixture
def standin(tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch):
    """A stand-in OpenAI-compatible server of the tiny model, its key in STANDIN_API_KEY."""
    from tests.modelruns.api_standin import KEY_ENV, StandIn

    server = StandIn(tiny_model_dir).start()
    monkeypatch.setenv(KEY_ENV, server.key)
    yield server
    server.stop()


@pytest.fixture
def api_spec(standin, settings):
    """An api spec of the stand-in server, which the source allow-list admits."""
    from modelruns.services import ApiOptions, modelspec_get_or_create
    from tests.modelruns.api_standin import KEY_ENV

    settings.PARITY_MODEL_SOURCES = [*settings.PARITY_MODEL_SOURCES, standin.base_url]
    return modelspec_get_or_create(
        model=standin.name, kind="api", api=ApiOptions(base_url=standin.base_url, key_env=KEY_ENV)
    )
