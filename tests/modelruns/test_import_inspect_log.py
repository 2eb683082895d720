"""`import_inspect_log`: an Inspect eval log, written by Inspect itself, as a model run of a study of
the items an import of the same task makes. Its answers enter the results, the report's methods
paragraph (which names Inspect's version from the run's record) and the replication bundle."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import inspect_ai
import pytest
from django.core.management import CommandError, call_command
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog

from annotation.services import benchmark_records_import
from modelruns.models import ModelResponse, ModelRun, ModelSpec
from replication.bundles import bundle_files
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.presenting.report import render_report
from studies.models import Study
from tests.inspect_logs import MC, MC_REPLIES, MC_TASK, TEXT, TEXT_TASK, records, rewrite_log, write_log

pytestmark = pytest.mark.django_db

STUDY = "Capitals"


def _study(samples: list[Sample], task: str, name: str = STUDY) -> Study:
    benchmark_records_import(name="custom", records=records(samples, task), options={"name": task})
    call_command(
        "create_study", "--benchmark", "custom", "--name", name, "--set", f"item_set={task}", stdout=StringIO()
    )
    return Study.objects.get(name=name)


@pytest.fixture
def study() -> Study:
    return _study(MC, MC_TASK)


def _import(study: Study, path: Path) -> str:
    out = StringIO()
    call_command("import_inspect_log", study.name, str(path), stdout=out)
    return out.getvalue()


def _answers(run: ModelRun) -> dict[tuple[str, str], tuple[str, bool, bool]]:
    return {
        (r.item.key, r.variant): (r.answer, r.valid, r.correct)
        for r in ModelResponse.objects.filter(run=run).select_related("item")
    }


def test_a_log_imports_as_a_done_run_that_the_results_the_report_and_the_bundle_hold(study, tmp_path) -> None:
    path = write_log(tmp_path, MC, MC_REPLIES, temperature=0.0)
    said = _import(study, path)
    run = ModelRun.objects.get(study=study)
    version = inspect_ai.__version__
    assert said.strip() == (
        f"Imported 3 answers of mockllm/model to 3 items of '{STUDY}' as run #{run.pk} "
        f"({MC_TASK}, scorer choice; Inspect {version})."
    )
    assert run.status == ModelRun.Status.DONE and (run.progress_done, run.progress_total) == (3, 3)
    assert run.spec.model == "mockllm/model" and run.spec.name == "mockllm/model"
    assert run.setting == {"inspect_log": {"task": MC_TASK}} and run.setting_label() == f"Inspect log of {MC_TASK}"
    identity = run.model_identity
    assert {key: identity[key] for key in ("source", "file", "inspect_version", "task", "task_version", "epochs")} == {
        "source": "inspect",
        "file": path.name,
        "inspect_version": version,
        "task": MC_TASK,
        "task_version": "0",
        "epochs": 1,
    }
    assert identity["dataset"] == f"{MC_TASK}-data" and identity["generate_config"] == {"temperature": 0.0}
    assert identity["plan"][0]["solver"] == "multiple_choice" and identity["eval_id"] and len(identity["sha256"]) == 64
    assert _answers(run) == {
        ("capitals/france", ""): ("A) Paris", True, True),
        ("capitals/uk", ""): ("C) Rome", True, False),
        ("capitals/3", ""): ("C) Rome", True, True),
    }

    results = study_results_tree(load_study_data(study), n_boot=200).to_json()
    (model,) = results["models"]
    assert model["accuracy"] == pytest.approx(2 / 3) and model["setting_key"] == f"Inspect log of {MC_TASK}"
    (provenance,) = results["methods"]["models"]
    assert provenance | {"run": None} == {
        "run": None,
        "label": model["label"],
        "model": "mockllm/model",
        "model_id": "mockllm/model",
        "revision": "",
        "dtype": "",
        "kind": "causal",
        "setting": f"Inspect log of {MC_TASK}",
        "source": "inspect",
        "samples_file": path.name,
        "engine_version": None,
        "source_version": version,
    }
    report = render_report(StudyResults.from_json(results), "markdown").replace("\\_", "_")
    assert (
        f"The same items were answered by mockllm/model (setting: Inspect log of {MC_TASK}, run in Inspect "
        f"{version}, answers imported from its eval log {path.name})." in " ".join(report.split())
    )
    files = bundle_files(study)
    (bundled,) = json.loads(files["models/runs.json"])
    assert bundled["model_identity"]["source"] == "inspect" and bundled["spec"]["model"] == "mockllm/model"
    assert len(files["models/answers.jsonl"].splitlines()) == 3


def test_the_report_names_the_version_the_run_records(study, tmp_path) -> None:
    _import(study, write_log(tmp_path, MC, MC_REPLIES))
    run = ModelRun.objects.get(study=study)
    run.model_identity = {**run.model_identity, "inspect_version": "0.3.999"}
    run.save(update_fields=["model_identity"])
    results = StudyResults.from_json(study_results_tree(load_study_data(study), n_boot=50).to_json())
    assert "run in Inspect 0.3.999, answers imported" in " ".join(render_report(results, "markdown").split())


def test_each_epoch_is_an_answer_and_the_item_scores_their_mean(study, tmp_path) -> None:
    replies = {**MC_REPLIES, "France": ["ANSWER: A", "ANSWER: B"]}
    said = _import(study, write_log(tmp_path, MC, replies, epochs=2))
    run = ModelRun.objects.get(study=study)
    assert "Imported 6 answers of mockllm/model to 3 items" in said and "2 epochs" in said
    answers = _answers(run)
    assert {variant for _, variant in answers} == {"epoch 1", "epoch 2"} and len(answers) == 6
    assert sorted(answers[("capitals/france", f"epoch {n}")][2] for n in (1, 2)) == [False, True]
    (model,) = study_results_tree(load_study_data(study), n_boot=200).to_json()["models"]
    # France right once in two (½), the United Kingdom never, Italy always
    assert model["accuracy"] == pytest.approx((0.5 + 0 + 1) / 3) and model["n_answers"] == 6


def test_text_answers_import_as_the_scorer_read_them(tmp_path) -> None:
    study = _study(TEXT, TEXT_TASK, name="Sums")
    _import(study, write_log(tmp_path, TEXT, {"2 + 2": "4", "5 + 5": "11"}, task=TEXT_TASK))
    run = ModelRun.objects.get(study=study)
    assert _answers(run) == {("sums/two", ""): ("4", True, True), ("sums/ten", ""): ("11", True, False)}
    assert ModelResponse.objects.get(run=run, item__key="sums/two").scores["scorer"] == "match"


def test_the_same_log_again_changes_nothing_and_another_of_the_same_model_and_task_is_refused(study, tmp_path) -> None:
    path = write_log(tmp_path / "first", MC, MC_REPLIES)
    _import(study, path)
    run = ModelRun.objects.get(study=study)
    assert _import(study, path).strip() == f"Already imported as run #{run.pk} (3 answers): nothing changed."
    other = write_log(tmp_path / "second", MC, {word: "ANSWER: A" for word in MC_REPLIES})
    with pytest.raises(
        CommandError,
        match=rf"run #{run.pk} already holds mockllm/model's answers to {MC_TASK} from another Inspect log",
    ):
        _import(study, other)
    assert ModelRun.objects.filter(study=study).count() == 1 and ModelResponse.objects.count() == 3
    # once that run is gone, the other log takes its place
    run.delete()
    _import(study, other)
    assert ModelResponse.objects.filter(correct=True).count() == 1


def test_what_does_not_match_the_study_is_refused_and_nothing_is_written(study, tmp_path) -> None:
    refused = {
        "the log is of task 'capitals_v2'; the study's items are of task capitals": write_log(
            tmp_path / "task", MC, MC_REPLIES, task="capitals_v2"
        ),
        r"1 of the log's 4 samples .* \(id spain\)": write_log(
            tmp_path / "ids",
            [*MC, Sample(id="spain", input="Which city is the capital of Spain?", choices=["Madrid"], target="A")],
            MC_REPLIES,
        ),
        r"\(id uk\): the log was run on another revision of the dataset": write_log(
            tmp_path / "revision",
            [MC[0], Sample(id="uk", input="Which city is the capital of the UK?", choices=MC[1].choices, target="B")],
            {**MC_REPLIES, "UK": "ANSWER: B"},
        ),
    }

    def unscore(log: EvalLog) -> None:
        for sample in log.samples or []:
            sample.scores = None if sample.id == "france" else sample.scores

    refused[r"1 samples have no score of 'choice' \(france\)"] = rewrite_log(
        write_log(tmp_path / "unscored", MC, MC_REPLIES), unscore, "unscored.json"
    )
    for message, path in refused.items():
        with pytest.raises(CommandError, match=f"Refused, nothing was written: {path.name}: .*{message}"):
            _import(study, path)
    with pytest.raises(CommandError, match="no such file"):
        _import(study, tmp_path / "missing.eval")
    assert not ModelRun.objects.filter(study=study).exists() and not ModelSpec.objects.exists()


def test_a_draft_studys_inspect_run_enters_the_preregistration_with_its_inspect_record(tmp_path, researcher) -> None:
    from studies.models import Preregistration
    from studies.setup.studies import study_set_status

    benchmark_records_import(name="custom", records=records(MC, MC_TASK), options={"name": MC_TASK})
    call_command(
        "create_study",
        "--benchmark",
        "custom",
        "--name",
        "Planned",
        "--set",
        f"item_set={MC_TASK}",
        "--draft",
        stdout=StringIO(),
    )
    study = Study.objects.get(name="Planned")
    _import(study, write_log(tmp_path, MC, MC_REPLIES, temperature=0.0))
    run = ModelRun.objects.get(study=study)
    study_set_status(study=study, status=Study.Status.LIVE, actor=researcher)
    (planned,) = Preregistration.objects.get(study=study).document["runs"]
    assert planned["model"] == "mockllm/model"
    recorded = planned["inspect"]
    assert recorded["inspect_version"] == inspect_ai.__version__ == run.model_identity["inspect_version"]
    assert recorded["task"] == MC_TASK and recorded["generate_config"]["temperature"] == 0.0
    assert [step["solver"] for step in recorded["plan"]] == ["multiple_choice"]
