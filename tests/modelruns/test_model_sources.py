"""A run loads only what `PARITY_MODEL_SOURCES` allows: aliases and Hub ids, Hub organisations,
directories; everything else is refused with a clear message, wherever the run is started."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from modelruns import services
from modelruns.models import ModelRun, ModelSpec
from modelruns.sources import model_name_problem, model_source_problem, source_allowed

pytestmark = pytest.mark.django_db


def test_the_default_allows_only_the_bundled_smollm2(monkeypatch):
    import importlib

    import config.settings

    monkeypatch.delenv("PARITY_MODEL_SOURCES", raising=False)
    assert importlib.reload(config.settings).PARITY_MODEL_SOURCES == ["smollm2"]
    monkeypatch.setenv("PARITY_MODEL_SOURCES", "smollm2, HuggingFaceTB/,/srv/models")
    assert importlib.reload(config.settings).PARITY_MODEL_SOURCES == ["smollm2", "HuggingFaceTB/", "/srv/models"]
    monkeypatch.delenv("PARITY_MODEL_SOURCES")
    importlib.reload(config.settings)


@pytest.mark.parametrize(
    "model, allowed, expected",
    [
        ("smollm2", ["smollm2"], True),
        ("SmolLM2", ["smollm2"], True),
        ("smollm2", ["HuggingFaceTB/"], False),
        ("gpt2", ["smollm2"], False),
        ("google/flan-t5-small", ["google/flan-t5-small"], True),
        ("google/flan-t5-base", ["google/flan-t5-small"], False),
        ("HuggingFaceTB/SmolLM2-135M", ["HuggingFaceTB/"], True),
        ("HuggingFaceTBX/SmolLM2-135M", ["HuggingFaceTB/"], False),
        ("HuggingFaceTB", ["HuggingFaceTB/"], False),
        ("evil/HuggingFaceTB/x", ["HuggingFaceTB/"], False),
        ("/etc", ["smollm2"], False),
        ("", ["smollm2"], False),
    ],
)
def test_entries_match_aliases_ids_and_organisations(model, allowed, expected):
    assert source_allowed(model, allowed) is expected


def test_directories_allow_what_lies_inside_them_only(tmp_path):
    models = tmp_path / "models"
    (models / "tiny").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (models / "link").symlink_to(tmp_path / "elsewhere")
    assert source_allowed(str(models / "tiny"), [str(models)])
    assert not source_allowed(str(models / ".." / "elsewhere"), [str(models)])
    assert not source_allowed(str(models / "link"), [str(models)])
    assert not source_allowed(str(tmp_path / "models-other"), [str(models)])
    # a relative path that exists is a local path, never a Hub id of the same spelling
    assert not source_allowed("tests", ["tests"])


def test_starting_a_run_on_a_source_outside_the_list_is_refused_and_loses_nothing(
    settings, small_implicature_study, tiny_model_dir
):
    settings.PARITY_MODEL_SOURCES = ["smollm2"]
    for model in (str(tiny_model_dir), "gpt2", "/etc"):
        with pytest.raises(services.ModelRunError, match="not an allowed model source.*PARITY_MODEL_SOURCES"):
            services.modelspec_get_or_create(model=model)
    spec = ModelSpec.objects.create(name="made elsewhere", model=str(tiny_model_dir), device="cpu")
    with pytest.raises(services.ModelRunError, match="PARITY_MODEL_SOURCES"):
        services.modelrun_start(study=small_implicature_study, spec=spec, enqueue=False)
    assert not ModelRun.objects.exists()
    settings.PARITY_MODEL_SOURCES = ["smollm2", str(Path(tiny_model_dir).parent)]
    run = services.modelrun_start(study=small_implicature_study, spec=spec, enqueue=False).run
    settings.PARITY_MODEL_SOURCES = ["smollm2"]
    services.modelrun_cancel(run=run)
    with pytest.raises(services.ModelRunError, match="PARITY_MODEL_SOURCES"):
        services.modelrun_resume(run=ModelRun.objects.get(pk=run.pk))


def test_the_start_form_shows_the_refusal(settings, researcher_client, small_implicature_study):
    settings.PARITY_MODEL_SOURCES = ["smollm2"]
    url = reverse("modelruns:start", args=[small_implicature_study.pk])
    page = researcher_client.post(url, {"model": "/etc", "kind": "causal", "dtype": "float32", "device": "auto"})
    assert page.status_code == 400
    assert "not an allowed model source" in page.content.decode()
    assert not ModelSpec.objects.exists() and not ModelRun.objects.exists()


def test_the_command_refuses_too(settings, small_implicature_study):
    settings.PARITY_MODEL_SOURCES = ["smollm2"]
    with pytest.raises(CommandError, match="not an allowed model source"):
        call_command("run_model", "--study", small_implicature_study.name, "--model", "gpt2")
    assert not ModelRun.objects.exists()


@pytest.mark.parametrize("model", ["m" * 300, "/srv/" + "x" * 256, "a\x00b", "org/name\twith-tab", "x" * 501])
def test_a_name_the_file_system_cannot_take_is_refused_in_words_everywhere(
    model, settings, researcher_client, small_implicature_study
):
    settings.PARITY_MODEL_SOURCES = ["smollm2", "/srv"]
    assert model_name_problem(model) is not None
    assert not source_allowed(model, ["smollm2", "/srv"])
    assert "model name" in (model_source_problem(model) or "")
    with pytest.raises(services.ModelRunError, match="model name"):
        services.modelspec_get_or_create(model=model)
    url = reverse("modelruns:start", args=[small_implicature_study.pk])
    page = researcher_client.post(url, {"model": model, "kind": "causal", "dtype": "float32", "device": "auto"})
    assert page.status_code == 400
    with pytest.raises(CommandError, match="model name"):
        call_command("run_model", "--study", small_implicature_study.name, "--model", model)
    assert not ModelSpec.objects.exists() and not ModelRun.objects.exists()


@pytest.mark.parametrize("model", ["smollm2", "HuggingFaceTB/SmolLM2-135M", "/srv/models/tiny", "ünïcode/name"])
def test_ordinary_names_pass_the_name_check(model):
    assert model_name_problem(model) is None
