"""Instruction induction's human and gold baselines: written instructions collected in a study and
the gold instructions, executed by a chosen (tiny, random) executor and compared with the gold set
by the packaged embedder, then shown per task beside a model run."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from annotation.models import BenchmarkAsset
from modelruns.models import InstructionScore
from parity.engine import bertscore, load_embedder, metrics
from parity.engine.similarity import GREEDY
from studies.models import Response, Unit
from studies.setup.studies import study_create
from tests.factories import Bot, pid

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instruction_induction")]

WRITTEN = {"antonyms": "Write the opposite of the word.", "sum": "Add the two numbers."}


def _study_with_written_instructions(owner=None):
    study = study_create(
        name="ii baselines",
        benchmark="instruction_induction",
        owner=owner,
        design={"tasks_per_participant": 3, "annotators_per_task": 1},
    )
    # three tasks are enough here: keep the first unit only
    Unit.objects.filter(study=study).exclude(pk=study.units.order_by("position").first().pk).delete()
    Bot(study, pid(1)).complete(lambda item: WRITTEN.get(item.meta["task"], f"Do the {item.meta['task']} thing."))
    return study


def _score(study, tiny_model_dir, *extra: str) -> str:
    out = StringIO()
    call_command(
        "score_instructions",
        "--study",
        study.name,
        "--executor",
        str(tiny_model_dir),
        "--device",
        "cpu",
        "--setting",
        "execute_limit=2",
        *extra,
        stdout=out,
    )
    return out.getvalue()


def test_written_and_gold_instructions_are_executed_and_compared_with_the_gold_set(tiny_model_dir):
    study = _study_with_written_instructions()
    tasks = sorted({r.item.meta["task"] for r in Response.objects.filter(participant__study=study)})
    references = BenchmarkAsset.objects.get(benchmark="instruction_induction", key="references").data
    execute = BenchmarkAsset.objects.get(benchmark="instruction_induction", key="execute").data
    n_gold = sum(len(references[task]) for task in tasks)
    assert f"Scored 3 written and {n_gold} gold instructions of 3 tasks" in _score(study, tiny_model_dir)

    scores = list(InstructionScore.objects.select_related("response"))
    assert len(scores) == 3 + n_gold
    embedder = load_embedder(cache_dir=settings.MODEL_CACHE_DIR)
    for score in scores:
        entries = execute[score.task][:2]
        assert len(score.outputs) == 2
        assert score.execution_accuracy == metrics.execution_accuracy(
            score.task, score.outputs, [e["outputs"] for e in entries]
        )
        gold = references[score.task]
        if score.source == "written":
            assert score.instruction == score.response.raw_answer.strip()
            compared_with = gold
        else:
            assert score.instruction == gold[score.gold_index]
            compared_with = gold[: score.gold_index] + gold[score.gold_index + 1 :]
        expected = bertscore(embedder, score.instruction, compared_with)
        assert score.reference_similarity == pytest.approx(expected.f1, abs=1e-5)
        assert score.similarity_model == embedder.model_name
        # offline the paper's DeBERTa is not cached: MiniLM, matched on its last layer, raw
        assert (score.similarity_scorer, score.similarity_layer, score.similarity_rescaled) == (GREEDY, 6, False)
        assert score.similarity_baseline is None and score.setting["executor"] == score.executor.name
    # a gold instruction is never compared with itself (that would give F1 = 1)
    assert all(s.reference_similarity < 0.999 for s in scores if s.source == "gold")

    # scoring again with the same executor replaces its scores
    _score(study, tiny_model_dir)
    assert InstructionScore.objects.count() == 3 + n_gold


def test_study_results_json_carries_humans_gold_and_models_per_task(
    tiny_model_dir, tiny_spec, researcher_client, researcher
):
    from modelruns import services, shards

    study = _study_with_written_instructions(owner=researcher)
    _score(study, tiny_model_dir)
    # the run's instructions are executed by the study's executor, the one that scored the others
    run = services.modelrun_start(study=study, spec=tiny_spec, setting={"execute_limit": 2}, enqueue=False).run
    assert run.setting["executor"] == tiny_spec.name
    shards.modelrun_work(run=run, worker="test")
    out = StringIO()
    call_command("study_results", study.name, "--json", stdout=out)
    by_task = json.loads(out.getvalue())["breakdowns"]["by_task"]
    tasks = {r.item.meta["task"] for r in Response.objects.filter(participant__study=study)}
    assert by_task["executor"] == tiny_spec.name
    humans = {t["task"]: t for t in by_task["humans"]}
    gold = {t["task"]: t for t in by_task["gold"]}
    (model,) = by_task["models"]
    models = {t["task"]: t for t in model["tasks"]}
    assert set(humans) == set(gold) == set(models) == tasks
    for task in tasks:
        written = InstructionScore.objects.get(source="written", task=task)
        assert humans[task]["execution_accuracy"] == pytest.approx(written.execution_accuracy)
        assert humans[task]["reference_similarity"] == pytest.approx(written.reference_similarity)
        golds = InstructionScore.objects.filter(source="gold", task=task)
        assert gold[task]["n_instructions"] == golds.count()
        assert gold[task]["execution_accuracy"] == pytest.approx(
            sum(g.execution_accuracy for g in golds) / golds.count()
        )
        assert models[task]["execution_accuracy"] is not None and models[task]["reference_similarity"] is not None
    table = StringIO()
    call_command("study_results", study.name, stdout=table)
    assert "Gold execution" in table.getvalue() and "Human execution" in table.getvalue()
    page = researcher_client.get(f"/studies/{study.pk}/results/").content.decode()
    assert f"Instruction induction per task, executed by {tiny_spec.name}" in page
    assert "Gold execution" in page and "Human execution" in page


def test_a_study_of_another_benchmark_is_refused_with_a_message(tiny_model_dir, small_implicature_study):
    with pytest.raises(CommandError, match="not an instruction-induction study"):
        _score(small_implicature_study, tiny_model_dir)
    study = _study_with_written_instructions()
    with pytest.raises(CommandError, match="no model setting 'shots'"):
        _score(study, tiny_model_dir, "shots=5")
    with pytest.raises(CommandError, match="is --executor, not a setting"):
        _score(study, tiny_model_dir, "executor=self")
    assert not InstructionScore.objects.exists()
