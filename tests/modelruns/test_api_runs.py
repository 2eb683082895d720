"""Model runs of api specs against the stand-in OpenAI-compatible server: the same workers,
shards, cache and answers as a local run of the same weights; the key stays out of every row
and page; the server's token usage is recorded on the run."""

from __future__ import annotations

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.services import benchmark_import
from modelruns import scorers, services, shards
from modelruns.models import ModelResponse, ModelRun, ModelSpec
from studies.setup.studies import study_create
from tests.conftest import datasets_dir
from tests.modelruns.api_standin import KEY_ENV

pytestmark = pytest.mark.django_db


def _run(study, spec, setting=None) -> ModelRun:
    run = services.modelrun_start(study=study, spec=spec, setting=setting, shard_size=4, enqueue=False).run
    shards.modelrun_work(run=run, worker="test")
    run.refresh_from_db()
    return run


def _scores(run: ModelRun) -> dict[str, dict]:
    return {r.item.key: (r.answer, r.scores) for r in ModelResponse.objects.filter(run=run).select_related("item")}


def assert_same_answers(local: ModelRun, api: ModelRun) -> None:
    mine, theirs = _scores(local), _scores(api)
    assert mine.keys() == theirs.keys() and len(mine) == local.progress_total
    for key, (answer, scores) in mine.items():
        assert theirs[key][0] == answer
        for name in ("yes", "no", "p_yes"):
            assert abs(theirs[key][1][name] - scores[name]) < 1e-4, (key, name)


def test_an_implicature_run_through_the_api_agrees_with_a_local_run_of_the_same_weights(
    small_implicature_study, tiny_spec, api_spec, standin
):
    local = _run(small_implicature_study, tiny_spec, {"template": 2, "k": 1})
    api = _run(small_implicature_study, api_spec, {"template": 2, "k": 1})
    assert local.status == api.status == ModelRun.Status.DONE, api.error
    assert api.shards.count() == 3 and api.progress_done == 10
    assert_same_answers(local, api)
    # one echo per text (10 items x yes/no), each generating the one token it ignores
    assert standin.count("/v1/completions") == 20 + 1  # + the probe of what the server can do
    assert api.api_requests == 20 + 3 and api.completion_tokens == 20 + 2  # + /models and the two probes
    assert api.prompt_tokens > 20 * 30
    assert api.model_identity["api_base_url"] == standin.base_url
    assert set(api.model_identity["api_features"]) == {"completions", "prompt_logprobs", "top_logprobs", "chat"}
    assert local.prompt_tokens == local.completion_tokens == local.api_requests == 0


def test_the_key_never_lands_in_the_database_or_on_a_page(
    small_implicature_study, api_spec, standin, superuser_client, monkeypatch
):
    assert _run(small_implicature_study, api_spec).status == ModelRun.Status.DONE
    monkeypatch.setenv(KEY_ENV, "sk-wrong-but-secret")
    scorers._LOADED.clear()  # a fresh worker, which reads the key again
    failed = _run(small_implicature_study, api_spec, {"template": 3})
    assert failed.status == ModelRun.Status.FAILED and "HTTP 401: invalid API key" in failed.error
    for model in apps.get_models():
        rows = str(list(model.objects.values()))
        assert standin.key not in rows and "sk-wrong-but-secret" not in rows, model
    assert ModelSpec.objects.filter(api_key_env=KEY_ENV).count() == 1
    pages = [
        reverse("admin:modelruns_modelspec_change", args=[api_spec.pk]),
        reverse("admin:modelruns_modelspec_changelist"),
        reverse("admin:modelruns_modelrun_change", args=[failed.pk]),
        reverse("modelruns:study_runs", args=[small_implicature_study.pk]),
        f"/api/studies/{small_implicature_study.pk}/model-runs/",
    ]
    for url in pages:
        page = superuser_client.get(url).content.decode()
        assert standin.key not in page and "sk-wrong-but-secret" not in page, url
    assert KEY_ENV in superuser_client.get(pages[0]).content.decode()


def test_a_second_run_is_answered_by_the_score_cache_without_http_requests(small_implicature_study, api_spec, standin):
    first = _run(small_implicature_study, api_spec)
    answers = _scores(first)
    first.delete()
    scorers._LOADED.clear()  # a fresh worker: only the score cache on disk is shared
    calls = standin.count("/v1/completions")
    second = _run(small_implicature_study, api_spec)
    assert second.status == ModelRun.Status.DONE and _scores(second) == answers
    # a fresh worker asks once more what the server offers; no item goes to the server again
    assert standin.count("/v1/completions") == calls + 1
    assert second.completion_tokens == 2 and second.api_requests == 3


def test_a_run_recovers_from_server_errors_and_rate_limits(small_implicature_study, tiny_spec, api_spec, standin):
    scorers.scorer_of(api_spec).load()  # ask what the server offers before the faults
    standin.fail_next(500)
    standin.fail_next(429, times=2, retry_after="0")
    api = _run(small_implicature_study, api_spec)
    assert api.status == ModelRun.Status.DONE, api.error
    assert not standin.faults and api.shards.filter(errors=0).count() == 3
    assert_same_answers(_run(small_implicature_study, tiny_spec), api)


def test_without_prompt_logprobs_a_miqa_run_fails_clearly_and_an_implicature_readout_works(
    small_implicature_study, tiny_spec, standin, settings
):
    standin.prompt_logprobs = False
    settings.PARITY_MODEL_SOURCES = [*settings.PARITY_MODEL_SOURCES, standin.base_url]
    vocabulary = len(standin.loaded.tokenizer)
    readout = services.modelspec_get_or_create(
        model=standin.name,
        kind="api",
        api=services.ApiOptions(base_url=standin.base_url, key_env=KEY_ENV, top_k=vocabulary),
    )
    benchmark_import(name="miqa", source=datasets_dir() / "miqa")
    miqa = _run(
        study_create(name="miqa", benchmark="miqa", design={"units": 1, "unit_size": 4}),
        readout,
        {"k": 0, "wording": "pick"},
    )
    assert miqa.status == ModelRun.Status.FAILED
    assert "not among the" in miqa.error and "this run needs a server with prompt log-probabilities" in miqa.error
    calls = standin.count("/v1/completions")
    implicature = _run(small_implicature_study, readout)
    assert implicature.status == ModelRun.Status.DONE, implicature.error
    assert_same_answers(_run(small_implicature_study, tiny_spec), implicature)
    # one next-token request per item: the context is sent once for both labels
    assert standin.count("/v1/completions") - calls == 10


def test_a_missing_key_variable_fails_the_run_and_names_the_variable(
    small_implicature_study, api_spec, standin, monkeypatch
):
    monkeypatch.delenv(KEY_ENV)
    run = _run(small_implicature_study, api_spec)
    assert run.status == ModelRun.Status.FAILED and standin.calls == []
    assert f"the environment variable {KEY_ENV}, which holds the API key for {standin.base_url}" in run.error


def test_run_model_makes_an_api_spec_from_its_options_and_runs_it(small_implicature_study, standin, settings):
    settings.PARITY_MODEL_SOURCES = [*settings.PARITY_MODEL_SOURCES, standin.base_url]
    options = [
        "--study",
        "model pilot",
        "--kind",
        "api",
        "--model",
        standin.name,
        "--api-base-url",
        standin.base_url + "/",
        "--api-key-env",
        KEY_ENV,
        "--api-concurrency",
        "2",
        "--api-features",
        "completions",
        "prompt_logprobs",
        "--wait",
    ]
    out = StringIO()
    call_command("run_model", *options, stdout=out)
    spec = ModelSpec.objects.get(kind="api")
    assert (spec.api_base_url, spec.api_key_env, spec.api_concurrency, spec.api_features) == (
        standin.base_url,
        KEY_ENV,
        2,
        ["completions", "prompt_logprobs"],
    )
    assert spec.name == f"{standin.name} @ {standin.base_url}"
    run = ModelRun.objects.get(spec=spec)
    assert run.status == ModelRun.Status.DONE and "10/10 items" in out.getvalue()
    # the same model at the same server, reached another way, is the same spec with the new settings
    call_command("run_model", *options[:11], "6", "--setting", "template=3", "--wait", stdout=StringIO())
    spec.refresh_from_db()
    assert ModelSpec.objects.filter(kind="api").count() == 1 and spec.api_concurrency == 6
    assert spec.api_features == [] and ModelRun.objects.filter(spec=spec, status="done").count() == 2
    with pytest.raises(CommandError, match="named like OPENAI_API_KEY"):
        call_command("run_model", *options[:9], "DATABASE_URL", "--wait", stdout=StringIO())
    settings.PARITY_MODEL_SOURCES = ["smollm2"]
    with pytest.raises(CommandError, match="is not an allowed model source"):
        call_command("run_model", *options, stdout=StringIO())


def test_the_runs_page_and_the_api_show_the_tokens_a_run_used(small_implicature_study, api_spec, researcher_client):
    run = _run(small_implicature_study, api_spec)
    page = researcher_client.get(reverse("modelruns:study_runs", args=[small_implicature_study.pk])).content.decode()
    assert (
        f"{run.prompt_tokens} prompt + {run.completion_tokens} completion tokens, {run.api_requests} requests" in page
    )
    rows = researcher_client.get(f"/api/studies/{small_implicature_study.pk}/model-runs/").json()["results"]
    assert [(r["prompt_tokens"], r["completion_tokens"]) for r in rows] == [(run.prompt_tokens, run.completion_tokens)]
    assert run.prompt_tokens > 0


def test_instructions_executed_by_an_api_model_give_the_local_model_s_greedy_outputs(tiny_model_dir, standin, settings):
    from modelruns.models import InstructionScore
    from tests.modelruns.test_instruction_baselines import _score, _study_with_written_instructions

    study = _study_with_written_instructions()
    _score(study, tiny_model_dir)
    settings.PARITY_MODEL_SOURCES = [*settings.PARITY_MODEL_SOURCES, standin.base_url]
    call_command(
        "score_instructions",
        "--study",
        study.name,
        "--executor",
        standin.name,
        "--kind",
        "api",
        "--api-base-url",
        standin.base_url,
        "--api-key-env",
        KEY_ENV,
        "--setting",
        "execute_limit=2",
        stdout=StringIO(),
    )

    def outputs(kind: str) -> dict:
        return {
            (s.source, s.task, s.response_id, s.gold_index): (s.outputs, s.execution_accuracy)
            for s in InstructionScore.objects.filter(executor__kind=kind)
        }

    local, api = outputs("causal"), outputs("api")
    assert len(local) > 3 and api == local
    assert any(output for outputs_, _ in api.values() for output in outputs_)


@pytest.fixture(scope="module")
def wide_model_dir(tmp_path_factory: pytest.TempPathFactory):
    """The tiny Llama with a window that holds a whole AmbiBench episode and the token an echo generates."""
    from tests.parity.engine.conftest import _save_llama, train_tokenizer

    tokenizer_dir = tmp_path_factory.mktemp("wide-tokenizer")
    train_tokenizer(tokenizer_dir)
    return _save_llama(tmp_path_factory.mktemp("wide-llama"), tokenizer_dir, seed=0, max_positions=1024)


def test_an_ambibench_episode_read_through_the_api_agrees_with_the_local_single_pass(
    wide_model_dir, monkeypatch, settings
):
    from tests.modelruns.api_standin import StandIn

    standin = StandIn(wide_model_dir).start()
    monkeypatch.setenv(KEY_ENV, standin.key)
    settings.PARITY_MODEL_SOURCES = [*settings.PARITY_MODEL_SOURCES, standin.base_url]
    api_spec = services.modelspec_get_or_create(
        model=standin.name, kind="api", api=services.ApiOptions(base_url=standin.base_url, key_env=KEY_ENV)
    )
    local_spec = services.modelspec_get_or_create(model=str(wide_model_dir), device="cpu")
    benchmark_import(name="ambibench", source=None, options={"episodes": 12, "instruction_prompts": 2})
    study = study_create(
        name="ambi", benchmark="ambibench", design={"per_feature": 1, "features": ["subject"], "format": "arrow"}
    )
    try:
        local, api = _run(study, local_spec, {"format": "qa"}), _run(study, api_spec, {"format": "qa"})
    finally:
        standin.stop()
    assert local.status == api.status == ModelRun.Status.DONE, api.error
    assert not ModelResponse.objects.filter(run=local, truncated_tokens__gt=0).exists()
    mine, theirs = _scores(local), _scores(api)
    assert mine.keys() == theirs.keys() and len(mine) == 20
    for key, (answer, scores) in mine.items():
        assert theirs[key][0] == answer
        assert theirs[key][1]["top_token"] == scores["top_token"]
        assert abs(theirs[key][1]["p_correct"] - scores["p_correct"]) < 1e-4
    # every read of every spelling is one echoed text (and one probe asks what the server offers)
    assert standin.count("/v1/completions") == 1 + 20 * 4


def test_specs_of_long_server_urls_get_names_that_fit_and_stay_apart(settings):
    """A model at a long server URL made a name past the 200 characters of its column (an error
    on PostgreSQL); two such specs still get names of their own."""
    from modelruns.models import ModelSpec
    from modelruns.services import ApiOptions, modelspec_get_or_create

    urls = [f"http://127.0.0.1:8000/{'v' * 250}/{n}" for n in (1, 2)]
    settings.PARITY_MODEL_SOURCES = [*settings.PARITY_MODEL_SOURCES, *urls]
    specs = [
        modelspec_get_or_create(model="m" * 100, kind="api", api=ApiOptions(base_url=url, key_env="X_API_KEY"))
        for url in urls
    ]
    names = [spec.name for spec in ModelSpec.objects.filter(pk__in=[spec.pk for spec in specs])]
    assert all(len(name) <= 200 for name in names) and len(set(names)) == 2
