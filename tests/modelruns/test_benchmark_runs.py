"""Each benchmark's model side through a whole run, with tiny random models (LM, NLI) and the
packaged sentence-embedding model for instruction-induction similarity."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.services import benchmark_import
from modelruns import services
from modelruns.models import ModelResponse, ModelRun
from studies.models import UnitItem
from studies.services import study_create
from tests.conftest import datasets_dir
from tests.engine.test_encoders import save_tiny_nli

pytestmark = pytest.mark.django_db


def _run(study, spec, setting=None, shard_size=64) -> ModelRun:
    run = services.modelrun_start(study=study, spec=spec, setting=setting, shard_size=shard_size, enqueue=False).run
    services.modelrun_work(run=run, worker="test")
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE, run.error
    return run


def test_ambibench_episodes_are_read_in_one_pass_each_and_answered_per_position(tiny_spec):
    benchmark_import(name="ambibench", source=None, options={"episodes": 12, "instruction_prompts": 2})
    study = study_create(name="ambi", benchmark="ambibench",
                         design={"per_feature": 1, "features": ["subject", "negation"], "format": "arrow"})
    run = _run(study, tiny_spec, {"format": "qa"}, shard_size=30)
    assert run.shards.count() == 2  # an episode is never split over two shards
    responses = ModelResponse.objects.filter(run=run).select_related("item")
    assert responses.count() == 40
    assert {r.scores["position"] for r in responses} == set(range(1, 21))
    assert all(r.answer in ("X", "Y") and 0 < r.scores["p_correct"] < 1 and r.scores["format"] == "qa"
               for r in responses)
    assert all(r.correct == (r.answer == r.item.gold) for r in responses)


def test_miqa_runs_both_orders_with_shots(tiny_spec):
    benchmark_import(name="miqa", source=datasets_dir() / "miqa")
    study = study_create(name="miqa", benchmark="miqa", design={"units": 1, "unit_size": 6})
    run = _run(study, tiny_spec, {"k": 1, "wording": "pick"})
    responses = list(ModelResponse.objects.filter(run=run))
    assert len(responses) == 6 and all(set(r.scores["orders"]) == {"ab", "ba"} for r in responses)


@pytest.fixture(scope="module")
def nli_model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_model_dir: Path) -> Path:
    return save_tiny_nli(tmp_path_factory.mktemp("run-nli"), tiny_model_dir,
                         {0: "entailment", 1: "neutral", 2: "contradiction"})


def test_miqa_with_an_nli_spec_scores_one_minus_p_contradiction(nli_model_dir):
    benchmark_import(name="miqa", source=datasets_dir() / "miqa")
    study = study_create(name="miqa-nli", benchmark="miqa", design={"units": 1, "unit_size": 4})
    spec = services.modelspec_get_or_create(model=str(nli_model_dir), kind="nli", device="cpu")
    run = _run(study, spec)
    for response in ModelResponse.objects.filter(run=run):
        probabilities = response.scores["probabilities"]
        for option in ("a", "b"):
            assert response.scores["not_contradiction"][option] == pytest.approx(1 - probabilities[option]["contradiction"])
    assert run.model_identity["model_id"] == str(nli_model_dir)


def test_instruction_induction_generates_executes_and_records_the_similarity_model(tiny_spec):
    benchmark_import(name="instruction_induction", source=datasets_dir() / "instruction_induction")
    study = study_create(name="ii", benchmark="instruction_induction",
                         design={"tasks_per_participant": 12, "annotators_per_task": 1})
    # generation is slow on a CPU: keep three prompts of the study's 24
    UnitItem.objects.filter(unit__study=study).exclude(
        pk__in=UnitItem.objects.filter(unit__study=study).order_by("pk").values("pk")[:3]).delete()
    run = _run(study, tiny_spec, {"execute_limit": 2}, shard_size=2)
    responses = list(ModelResponse.objects.filter(run=run).select_related("item"))
    assert len(responses) == 3 and any(response.valid for response in responses)
    for response in responses:
        scores = response.scores
        assert scores["executed"] == (2 if response.valid else 0)
        assert 0 <= scores["execution_accuracy"] <= 1 and not response.correct
        if response.valid:
            assert "MiniLM" in scores["similarity_model"] and -1 <= scores["reference_f1"] <= 1
