"""One executor for every instruction (Honovich et al., Section 5.2): a model run executes its own
instructions with the study's executor (the model its written and gold instructions were scored
with) unless it asks for another or for itself ("self-executed"); the results keep executors apart
and say which scale the similarity figures are on."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.models import BenchmarkAsset
from modelruns import services, shards
from modelruns.models import InstructionScore, ModelResponse
from modelruns.scorers import scorer_of
from modelruns.services_instructions import instructionscores_compute, study_executor
from parity.benchmarks.instruction_induction import execution_prompt
from parity.engine import PAPER_SIMILARITY_MODEL, GenerationRequest
from studies.models import UnitItem
from studies.setup.studies import study_create
from tests.parity.engine.conftest import _save_llama, train_tokenizer
from tests.parity.engine.tiny_bert import hub_cache_with, save_tiny_bert

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instruction_induction")]


@pytest.fixture(scope="module")
def other_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second random tiny Llama (another seed): it writes other outputs than the executor."""
    tokenizer_dir = tmp_path_factory.mktemp("other-tokenizer")
    train_tokenizer(tokenizer_dir)
    return _save_llama(tmp_path_factory.mktemp("other-llama"), tokenizer_dir, seed=1)


@pytest.fixture
def other_spec(other_model_dir: Path):
    return services.modelspec_get_or_create(model=str(other_model_dir), device="cpu")


def _study(name: str, owner=None):
    """Three prompts of three tasks: generation is slow on a CPU."""
    study = study_create(
        name=name,
        benchmark="instruction_induction",
        owner=owner,
        design={"tasks_per_participant": 12, "annotators_per_task": 1},
    )
    UnitItem.objects.filter(unit__study=study).exclude(
        pk__in=UnitItem.objects.filter(unit__study=study).order_by("pk").values("pk")[:3]
    ).delete()
    return study


def _run(study, spec, setting):
    run = services.modelrun_start(study=study, spec=spec, setting=setting, enqueue=False).run
    shards.modelrun_work(run=run, worker="test")
    run.refresh_from_db()
    assert run.status == "done", run.error
    return run


def _executed(spec, instruction: str, inputs: list[str]) -> list[str]:
    requests = [
        GenerationRequest(f"x|{index}", execution_prompt(instruction, text), 30, stop_at_newline=True)
        for index, text in enumerate(inputs)
    ]
    results = scorer_of(spec).run(requests)
    return [results[f"x|{index}"].text for index in range(len(inputs))]


def test_a_run_executes_with_the_studys_executor_and_with_itself_only_when_asked(tiny_spec, other_spec):
    study = _study("ii executor")
    instructionscores_compute(study=study, executor=tiny_spec, setting={"execute_limit": 2})
    assert study_executor(study) == tiny_spec

    by_study = _run(study, other_spec, {"execute_limit": 2})
    assert by_study.setting["executor"] == tiny_spec.name
    assert by_study.setting_label().startswith(f"executed by {tiny_spec.name}, ")
    assert by_study.model_identity["executor"]["name"] == tiny_spec.name
    self_run = _run(study, other_spec, {"execute_limit": 2, "executor": "self"})
    assert self_run.setting_label().startswith("self-executed, ") and "executor" not in self_run.model_identity

    execute = BenchmarkAsset.objects.get(benchmark="instruction_induction", key="execute").data
    differ = False
    for run, executor in ((by_study, tiny_spec), (self_run, other_spec)):
        answers = [r for r in ModelResponse.objects.filter(run=run).select_related("item") if r.valid]
        assert answers, "the tiny model wrote no instruction to execute"
        for answer in answers:
            inputs = [entry["input"] for entry in execute[answer.item.meta["task"]][:2]]
            assert answer.scores["outputs"] == _executed(executor, answer.answer, inputs)
            differ |= answer.scores["outputs"] != _executed(
                other_spec if executor == tiny_spec else tiny_spec, answer.answer, inputs
            )
            assert answer.scores["executor"] == (tiny_spec.name if run == by_study else "self")
    assert differ, "the two tiny models should not write the same outputs"


def test_a_run_needs_an_executor_it_can_name(tiny_spec, other_spec):
    study = _study("ii without executor")
    with pytest.raises(services.ModelRunError, match="has no executor yet.*score_instructions"):
        services.modelrun_start(study=study, spec=other_spec, setting={"execute_limit": 2}, enqueue=False)
    with pytest.raises(services.ModelRunError, match="no model is named 'nobody'"):
        services.modelrun_start(study=study, spec=other_spec, setting={"executor": "nobody"}, enqueue=False)
    with pytest.raises(services.ModelRunError, match="executes no instruction"):
        services.modelrun_start(
            study=study, spec=other_spec, setting={"mode": "in_context", "executor": tiny_spec.name}, enqueue=False
        )
    # a named executor needs no scoring first; in-context verification needs none at all
    named = services.modelrun_start(study=study, spec=other_spec, setting={"executor": tiny_spec.name}, enqueue=False)
    assert named.run.setting["executor"] == tiny_spec.name
    icl = services.modelrun_start(study=study, spec=other_spec, setting={"mode": "in_context"}, enqueue=False)
    assert icl.run.setting["executor"] == ""


def test_the_results_page_names_the_executor_and_keeps_executors_apart(
    tiny_spec, other_spec, researcher_client, researcher
):
    study = _study("ii executors apart", owner=researcher)
    instructionscores_compute(study=study, executor=tiny_spec, setting={"execute_limit": 1})
    _run(study, other_spec, {"execute_limit": 1})
    _run(study, other_spec, {"execute_limit": 1, "executor": "self"})
    page = researcher_client.get(f"/studies/{study.pk}/results/").content.decode()
    main, own = (
        f"Instruction induction per task, executed by {tiny_spec.name}",
        f"Instruction induction per task, executed by {other_spec.name}",
    )
    assert main in page and own in page and page.index(main) < page.index(own)
    first, second = page[page.index(main) : page.index(own)], page[page.index(own) :]
    assert f"executed by {tiny_spec.name} (the study&#x27;s executor)" in first
    assert "self-executed" not in first and "self-executed" in second
    # offline the similarity is MiniLM's: each table says so
    assert "layer 6, greedy token matching (parity), raw F1" in first
    assert "not on the paper&#x27;s scale" in first and "not on the paper&#x27;s scale" in second


def test_the_papers_similarity_is_taken_from_the_local_cache_and_stored_with_its_scale(
    tiny_spec, tmp_path_factory, monkeypatch, researcher_client, researcher
):
    """The paper's DeBERTa-xlarge-MNLI stands here as a tiny 41-layer BERT in a Hugging Face cache
    folder: 'auto' finds it, the bert-score package scores it at layer 40 and rescales with the
    baseline it ships for that model."""
    import huggingface_hub

    model = save_tiny_bert(tmp_path_factory.mktemp("paper-bert"), layers=41)
    cache = hub_cache_with(tmp_path_factory.mktemp("paper-hub"), PAPER_SIMILARITY_MODEL, model)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    study = _study("ii paper scale", owner=researcher)
    instructionscores_compute(study=study, executor=tiny_spec, setting={"execute_limit": 1})
    scores = list(InstructionScore.objects.filter(study=study, reference_similarity__isnull=False))
    assert scores
    for score in scores:
        assert (score.similarity_model, score.similarity_scorer) == (PAPER_SIMILARITY_MODEL, "bert-score 0.3.13")
        assert score.similarity_layer == 40 and score.similarity_rescaled
        assert score.similarity_baseline == pytest.approx(0.5150192)
        assert score.setting["similarity_model"] == PAPER_SIMILARITY_MODEL
    page = researcher_client.get(f"/studies/{study.pk}/results/").content.decode()
    assert "microsoft/deberta-xlarge-mnli, layer 40, bert-score 0.3.13, baseline-rescaled (baseline F1 0.515)" in page
    assert "not on the paper&#x27;s scale" not in page


def test_a_workers_scorers_keep_a_run_and_its_executor_loaded_together():
    from modelruns.scorers import LoadKey, scorer_for

    model, executor, other = (LoadKey(name, "", "float32", "cpu", "causal") for name in ("m", "x", "o"))
    run_scorer = scorer_for(model, alongside=[executor])
    executor_scorer = scorer_for(executor, alongside=[model])
    assert scorer_for(model, alongside=[executor]) is run_scorer
    assert scorer_for(executor, alongside=[model]) is executor_scorer
    # another run's model: neither stays
    scorer_for(other)
    assert scorer_for(model) is not run_scorer
