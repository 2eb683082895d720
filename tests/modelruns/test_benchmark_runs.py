"""Each benchmark's model side through a whole run, with tiny random models (LM, NLI) and the
packaged sentence-embedding model for instruction-induction similarity."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.selectors import item_data
from annotation.services import benchmark_import
from modelruns import services, shards
from modelruns.models import ModelResponse, ModelRun
from studies.models import UnitItem
from studies.setup.studies import study_create
from tests.conftest import datasets_dir
from tests.parity.engine.test_encoders import save_tiny_nli

pytestmark = pytest.mark.django_db


def _run(study, spec, setting=None, shard_size=64) -> ModelRun:
    run = services.modelrun_start(study=study, spec=spec, setting=setting, shard_size=shard_size, enqueue=False).run
    shards.modelrun_work(run=run, worker="test")
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE, run.error
    return run


def test_ambibench_episodes_are_read_in_one_pass_each_and_answered_per_position(tiny_spec):
    benchmark_import(name="ambibench", source=None, options={"episodes": 12, "instruction_prompts": 2})
    study = study_create(
        name="ambi",
        benchmark="ambibench",
        design={"per_feature": 1, "features": ["subject", "negation"], "format": "arrow"},
    )
    run = _run(study, tiny_spec, {"format": "qa"}, shard_size=30)
    assert run.shards.count() == 2  # an episode is never split over two shards
    responses = ModelResponse.objects.filter(run=run).select_related("item")
    assert responses.count() == 40
    assert {r.scores["position"] for r in responses} == set(range(1, 21))
    assert all(0 < r.scores["p_correct"] < 1 and r.scores["format"] == "qa" for r in responses)
    assert all(r.correct == (r.valid and r.answer == r.item.gold) for r in responses)
    assert all(
        (r.answer in ("X", "Y")) == r.valid and (r.valid or r.raw_answer == r.scores["top_token"]) for r in responses
    )


def test_an_ambibench_answer_is_valid_only_when_a_merged_label_outweighs_the_top_token(tiny_spec, tiny_model_dir):
    """The engine's reads against a plain forward pass of the same tiny model, rule applied by hand."""
    import math

    import torch

    from annotation.models import Item
    from parity.benchmarks.ambibench.model import spellings
    from parity.benchmarks.ambibench.prompts import episode_text
    from parity.engine import load_causal_lm
    from parity.engine.tokens import TextEncoder, continuation_spans
    from tests.parity.engine.conftest import full_text_logprobs

    benchmark_import(name="ambibench", source=None, options={"episodes": 12, "instruction_prompts": 2})
    study = study_create(
        name="ambi-valid", benchmark="ambibench", design={"per_feature": 1, "features": ["subject"], "format": "arrow"}
    )
    run = _run(study, tiny_spec, {"format": "arrow"})
    loaded = load_causal_lm(str(tiny_model_dir))
    encoder = TextEncoder(loaded.tokenizer, add_bos=loaded.add_bos, prefix_token_id=loaded.prefix_token_id)
    responses = {r.item.key: r for r in ModelResponse.objects.filter(run=run).select_related("item")}
    items = [item_data(item) for item in Item.objects.filter(key__in=responses)]
    shown = episode_text(items)
    validity = []
    for item, offset in zip(sorted(items, key=lambda i: i.prompt["position"]), shown.offsets):
        context = shown.text[:offset]
        spans = continuation_spans(encoder, context, spellings("arrow"))
        probability = {"X": 0.0, "Y": 0.0}
        for text, span in zip(spellings("arrow"), spans):
            logprobs = full_text_logprobs(loaded, list(span.encoded.ids))
            probability[text.strip()] += math.exp(sum(logprobs[span.start - 1 : span.end - 1]))
        with torch.no_grad():
            ids = list(spans[0].encoded.ids[: spans[0].start])
            last = torch.log_softmax(loaded.model(input_ids=torch.tensor([ids])).logits[0, -1].float(), dim=-1)
        top = loaded.tokenizer.decode([int(last.argmax())])
        likelier = "Y" if probability["Y"] > probability["X"] else "X"
        valid = top.strip() in ("X", "Y") or probability[likelier] >= math.exp(float(last.max()))
        response = responses[item.key]
        assert response.scores["top_token"] == top
        assert response.scores["p_correct"] == pytest.approx(probability[item.gold], rel=1e-4)
        assert (response.valid, response.answer, response.correct) == (
            valid,
            likelier if valid else "",
            valid and likelier == item.gold,
        )
        validity.append(valid)
    assert len(validity) == 20


def test_miqa_runs_both_orders_with_shots(tiny_spec):
    benchmark_import(name="miqa", source=datasets_dir() / "miqa")
    study = study_create(name="miqa", benchmark="miqa", design={"units": 1, "unit_size": 6})
    run = _run(study, tiny_spec, {"k": 1, "wording": "pick"})
    responses = list(ModelResponse.objects.filter(run=run).select_related("item"))
    assert len(responses) == 12 and sorted(r.variant for r in responses) == ["ab"] * 6 + ["ba"] * 6
    for r in responses:
        picked = max("ab", key=lambda option: r.scores["logprobs"][option])
        assert r.answer == picked and r.correct == (picked == r.item.gold)
    assert run.progress_done == run.progress_total == 6


@pytest.fixture(scope="module")
def nli_model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_model_dir: Path) -> Path:
    return save_tiny_nli(
        tmp_path_factory.mktemp("run-nli"), tiny_model_dir, {0: "entailment", 1: "neutral", 2: "contradiction"}
    )


def test_miqa_with_an_nli_spec_scores_one_minus_p_contradiction(nli_model_dir):
    benchmark_import(name="miqa", source=datasets_dir() / "miqa")
    study = study_create(name="miqa-nli", benchmark="miqa", design={"units": 1, "unit_size": 4})
    spec = services.modelspec_get_or_create(model=str(nli_model_dir), kind="nli", device="cpu")
    run = _run(study, spec)
    for response in ModelResponse.objects.filter(run=run):
        probabilities = response.scores["probabilities"]
        for option in ("a", "b"):
            assert response.scores["not_contradiction"][option] == pytest.approx(
                1 - probabilities[option]["contradiction"]
            )
    assert run.model_identity["model_id"] == str(nli_model_dir)


def _three_prompt_study(name: str):
    """An instruction-induction study of three prompts (of its 24): generation is slow on a CPU."""
    study = study_create(
        name=name, benchmark="instruction_induction", design={"tasks_per_participant": 12, "annotators_per_task": 1}
    )
    UnitItem.objects.filter(unit__study=study).exclude(
        pk__in=UnitItem.objects.filter(unit__study=study).order_by("pk").values("pk")[:3]
    ).delete()
    return study


def test_instruction_induction_generates_executes_and_records_the_similarity_model(tiny_spec, instruction_induction):
    study = _three_prompt_study("ii")
    # executed by the run's own model only when asked: then it says so
    run = _run(study, tiny_spec, {"execute_limit": 2, "executor": "self"}, shard_size=2)
    assert run.setting["executor"] == "self" and run.setting_label().startswith("self-executed")
    responses = list(ModelResponse.objects.filter(run=run).select_related("item"))
    assert len(responses) == 3 and any(response.valid for response in responses)
    for response in responses:
        scores = response.scores
        assert scores["executed"] == (2 if response.valid else 0)
        assert 0 <= scores["execution_accuracy"] <= 1 and not response.correct
        assert scores["executor"] == "self"
        if response.valid:
            assert "MiniLM" in scores["similarity_model"] and -1 <= scores["reference_f1"] <= 1
            # offline the paper's DeBERTa is not cached: MiniLM's last (6th) layer, raw
            assert scores["similarity_layer"] == 6 and scores["similarity_rescaled"] is False


def test_instruction_induction_in_context_verification_is_a_run_setting(tiny_spec, instruction_induction):
    study = _three_prompt_study("ii-icl")
    run = _run(study, tiny_spec, {"mode": "in_context"})
    assert run.setting["mode"] == "in_context"
    responses = list(ModelResponse.objects.filter(run=run).select_related("item"))
    assert len(responses) == 3
    for response in responses:
        scores = response.scores
        assert scores["mode"] == "in_context" and scores["executed"] == 1 and "reference_f1" not in scores
        assert 0 <= scores["execution_accuracy"] <= 1 and response.correct == (scores["execution_accuracy"] == 1)
