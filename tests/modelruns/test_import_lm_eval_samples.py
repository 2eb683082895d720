"""`import_lm_eval_samples`: an lm-evaluation-harness run's `--log_samples` file as a model run beside
Parity's own. The round trip: the harness itself runs a tiny model on the shipped example task and
writes its samples file (its own EvaluationTracker); imported, its answers are those of Parity's run
of the same model on the study's items, and it enters the results, the tables and the report."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import lm_eval  # noqa: F401  (a test dependency: missing, these tests fail rather than skip)
import pytest
from django.core.management import CommandError, call_command

from modelruns import services, shards
from modelruns.models import ModelResponse, ModelRun
from modelruns.selectors import study_items
from parity.engine import load_causal_lm
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.presenting.report import render_report
from results.presenting.tables import paper_tables
from studies.models import Study
from tests.harness_samples import EXAMPLE, choice_line, content, docs, file_name, generation_line
from tests.personas import superuser

pytestmark = pytest.mark.django_db

TASK = "parity_example_mc"
STUDY = "Harness task"
MODEL = "EleutherAI/pythia-70m"


@pytest.fixture
def study() -> Study:
    call_command("import_benchmark", "lm_eval", "--task", str(EXAMPLE / "example_mc.yaml"), stdout=StringIO())
    call_command(
        "create_study", "--benchmark", "custom", "--name", STUDY, "--set", f"item_set={TASK}", stdout=StringIO()
    )
    return Study.objects.get(name=STUDY)


def _harness_file(model_dir: Path, add_bos: bool, out: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`lm_eval --model hf --model_args pretrained=DIR --include_path EXAMPLE --tasks TASK --device cpu
    --batch_size 1 --output_path OUT --log_samples`, run from EXAMPLE: the file the harness writes."""
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    monkeypatch.chdir(EXAMPLE)
    tracker = EvaluationTracker(output_path=str(out))
    results = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={model_dir},dtype=float32,add_bos_token={add_bos}",
        tasks=[TASK],
        task_manager=TaskManager(include_path=str(EXAMPLE), include_defaults=False),
        batch_size=1,
        device="cpu",
        log_samples=True,
        evaluation_tracker=tracker,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name=TASK, samples=samples[TASK])
    (written,) = out.rglob(f"samples_{TASK}_*.jsonl")
    return written


def _import(study: Study, path: Path, *args: str) -> str:
    out = StringIO()
    call_command("import_lm_eval_samples", study.name, str(path), "--model", MODEL, *args, stdout=out)
    return out.getvalue()


def test_the_harnesss_own_file_imports_as_the_answers_parity_gives_itself(
    study, tiny_spec, tiny_model_dir, session_model_cache, tmp_path, monkeypatch
) -> None:
    own = services.modelrun_start(study=study, spec=tiny_spec, enqueue=False).run
    shards.modelrun_work(run=own, worker="test")
    add_bos = load_causal_lm(str(tiny_model_dir), cache_dir=session_model_cache).add_bos
    path = _harness_file(tiny_model_dir, add_bos, tmp_path / "out", monkeypatch)

    said = _import(study, path, "--revision", "step3000")
    imported = ModelRun.objects.exclude(pk=own.pk).get(study=study)
    assert f"Imported 12 answers of {MODEL}@step3000 to '{STUDY}' as run #{imported.pk}" in said
    assert imported.status == ModelRun.Status.DONE and imported.model_identity["file"] == path.name
    assert imported.setting == {"lm_eval_samples": {"task": TASK, "filter": "none"}}

    # the harness's answers are Parity's own for the same model and requests
    def answers(run: ModelRun) -> dict[str, tuple[str, bool, bool]]:
        return {
            r.item.key: (r.answer, r.correct, r.scores["correct_norm"])
            for r in ModelResponse.objects.filter(run=run).select_related("item")
        }

    assert answers(imported) == answers(own)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    harness_acc = sum(line["acc"] for line in lines) / len(lines)

    results = study_results_tree(load_study_data(study), n_boot=200).to_json()
    by_run = {model["run"]: model for model in results["models"]}
    assert by_run[imported.pk]["accuracy"] == pytest.approx(harness_acc) == by_run[own.pk]["accuracy"]
    assert by_run[imported.pk]["setting_key"] == f"lm-evaluation-harness samples of {TASK} (filter none)"
    (provenance,) = [m for m in results["methods"]["models"] if m["run"] == imported.pk]
    assert provenance | {"run": None} == {
        "run": None,
        "label": by_run[imported.pk]["label"],
        "model": f"{MODEL}@step3000",
        "model_id": MODEL,
        "revision": "step3000",
        "dtype": "float32",
        "kind": "causal",
        "setting": f"lm-evaluation-harness samples of {TASK} (filter none)",
        "source": "lm-evaluation-harness",
        "samples_file": path.name,
        "engine_version": None,
    }
    comparison = next(table for table in paper_tables(StudyResults.from_json(results)) if table.key == "comparison")
    assert [row[0] for row in comparison.rows] == sorted([str(tiny_spec), f"{MODEL}@step3000"])
    assert f"answers imported from lm-evaluation-harness's samples file {path.name}" in render_report(
        StudyResults.from_json(results), "markdown"
    ).replace("\\_", "_")


def _lines(study: Study, logliks: dict[int, list[float]]) -> list[str]:
    mc = docs("example_mc.jsonl")
    contexts = {int(item.meta["extra"]["lm_eval_doc_id"]): item.meta["model"]["context"] for item in study_items(study)}
    return [choice_line(n, mc[n], contexts[n], values) for n, values in logliks.items()]


def _all_right(study: Study) -> dict[int, list[float]]:
    mc = docs("example_mc.jsonl")
    return {n: [-1.0 if i == mc[n]["answer"] else -3.0 for i in range(3)] for n in range(12)}


def test_the_same_file_again_changes_nothing_and_another_is_refused(study, tmp_path, client) -> None:
    path = tmp_path / file_name(TASK)
    path.write_bytes(content(_lines(study, _all_right(study))))
    _import(study, path)
    run = ModelRun.objects.get(study=study)
    assert ModelResponse.objects.filter(run=run, correct=True).count() == 12
    assert f"Already imported as run #{run.pk} (12 answers): nothing changed." in _import(study, path)
    # the item view shows what the run answered, to the items' own prompts
    client.force_login(superuser())
    page = client.get(f"/studies/{study.pk}/results/item/", {"item": "1", "run": run.pk})
    assert page.status_code == 200
    assert "Question: Which animal says moo?" in page.content.decode()
    other = tmp_path / file_name(TASK).replace("2026", "2027")
    other.write_bytes(content(_lines(study, {n: [-1.0, -2.0, -3.0] for n in range(12)})))
    with pytest.raises(CommandError, match=rf"run #{run.pk} already holds {MODEL}'s answers to {TASK}"):
        _import(study, other)
    assert ModelRun.objects.filter(study=study).count() == 1 and ModelResponse.objects.count() == 12


def test_a_file_of_another_task_or_of_other_documents_is_refused_and_nothing_is_written(study, tmp_path) -> None:
    gen = docs("example_gen.jsonl")
    path = tmp_path / file_name("parity_example_gen")
    path.write_bytes(content([generation_line(0, gen[0], "Q: What is 2 plus 2?\nA:", " 4")]))
    with pytest.raises(
        CommandError, match=f"Refused, nothing was written: .*holds task 'parity_example_gen'; .* of task {TASK}"
    ):
        _import(study, path)
    lines = _lines(study, _all_right(study))
    extra = json.loads(lines[0])
    extra["doc_id"] = 40
    path = tmp_path / file_name(TASK)
    path.write_bytes(content([*lines, json.dumps(extra)]))
    with pytest.raises(CommandError, match=r"1 of the file's 13 documents .* \(doc_id 40\)"):
        _import(study, path)
    with pytest.raises(CommandError, match="no such file"):
        _import(study, tmp_path / "missing.jsonl")
    assert not ModelRun.objects.filter(study=study).exists()


def test_a_study_of_another_benchmark_is_refused(pilot_like_study, tmp_path) -> None:
    path = tmp_path / file_name(TASK)
    path.write_text("")
    with pytest.raises(CommandError, match="holds no samples"):
        _import(pilot_like_study, path)
    path.write_bytes(
        content([choice_line(0, docs("example_mc.jsonl")[0], "Question: Which animal says moo?", [-1, -2, -3])])
    )
    with pytest.raises(CommandError, match="items are of task none: they were not imported from an lm-evaluation"):
        _import(pilot_like_study, path)


@pytest.fixture
def pilot_like_study(implicature) -> Study:
    from tests.factories import small_study

    return small_study("implicature items")


def test_a_model_name_no_spec_could_hold_is_refused(study, tmp_path) -> None:
    path = tmp_path / file_name(TASK)
    path.write_bytes(content(_lines(study, _all_right(study))))
    for model in ("m" * 300, "org/name\nwith a line break"):
        with pytest.raises(CommandError, match="model name"):
            call_command("import_lm_eval_samples", study.name, str(path), "--model", model, stdout=StringIO())
    assert not ModelRun.objects.filter(study=study).exists()
