"""`run_inspect_task`: a tiny local Llama run through the Inspect task a study's items came from, by
Inspect itself (its hf/ provider) in this process or on the database queue's worker; its log becomes
the run, under the model's own spec. A task in a file runs only with --trust-task-code."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import inspect_ai
import pytest
from django.core.management import CommandError, call_command
from django_tasks_db.models import DBTaskResult

from annotation.services import benchmark_records_import
from modelruns.models import ModelResponse, ModelRun
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.presenting.report import render_report
from studies.models import Study
from tests.inspect_logs import MC, MC_TASK, records

TASK_FILE = """
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice

from tests.inspect_logs import MC


@task
def capitals(limit: int = 3) -> Task:
    return Task(dataset=MemoryDataset(list(MC[:limit]), name="capitals-data"), solver=multiple_choice(max_tokens=4),
                scorer=choice())
"""


def _study(tmp_path: Path, *, spec: str | None = None, limit: int = 3) -> Study:
    (tmp_path / "capitals_task.py").write_text(TASK_FILE)
    how = {"inspect_task_spec": spec or f"{tmp_path / 'capitals_task.py'}@capitals"}
    how["inspect_task_args"] = json.dumps({"limit": limit})
    benchmark_records_import(
        name="custom", records=[{**record, **how} for record in records(MC[:limit], MC_TASK)], options={"name": MC_TASK}
    )
    out = StringIO()
    call_command(
        "create_study", "--benchmark", "custom", "--name", "Capitals", "--set", f"item_set={MC_TASK}", stdout=out
    )
    return Study.objects.get(name="Capitals")


def _run(study: Study, model: Path, *flags: str) -> str:
    out = StringIO()
    call_command("run_inspect_task", study.name, "--model", str(model), "--device", "cpu", *flags, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_inspect_runs_the_tiny_model_here_and_its_log_is_the_run(tmp_path, tiny_model_dir, tiny_spec) -> None:
    study = _study(tmp_path, limit=2)
    said = _run(study, tiny_model_dir, "--here", "--trust-task-code")
    run = ModelRun.objects.get(study=study)
    assert said.strip() == (
        f"Inspect ran {tiny_spec.name} on 2 items of 'Capitals': run #{run.pk}, 2 answers "
        f"({MC_TASK}, scorer choice; Inspect {inspect_ai.__version__})."
    )
    # under the model's own spec, the one Parity's own runs of it use
    assert run.spec == tiny_spec and run.status == ModelRun.Status.DONE
    identity = run.model_identity
    assert identity["ran_here"] is True and identity["model_id"] == f"hf/{tiny_model_dir}"
    assert identity["task_args"] == {"limit": 2} and identity["dataset"] == "capitals-data"
    answers = ModelResponse.objects.filter(run=run)
    assert sorted(answers.values_list("item__key", flat=True)) == ["capitals/france", "capitals/uk"]
    for answer in answers:  # a random model's text: an answer only where the scorer read a letter the item showed
        assert answer.valid == (answer.answer != "") and answer.scores["scorer"] == "choice"
        assert answer.correct <= answer.valid
    results = study_results_tree(load_study_data(study), n_boot=50).to_json()
    (model,) = results["models"]
    assert model["n_answers"] == 2 and model["setting_key"] == f"Inspect log of {MC_TASK}"
    (provenance,) = results["methods"]["models"]
    assert (provenance["source"], provenance["source_version"], provenance["dtype"]) == (
        "inspect",
        inspect_ai.__version__,
        "float32",
    )
    # the log the worker wrote is not kept: the methods name no file
    report = " ".join(render_report(StudyResults.from_json(results), "markdown").replace("\\_", "_").split())
    assert f"float32, setting: Inspect log of {MC_TASK}, run in Inspect {inspect_ai.__version__})" in report
    assert provenance["samples_file"] is None and "eval log" not in report
    assert identity["dtype"] == "float32" and identity["model_args"] == {"dtype": "float32", "device": "cpu"}
    with pytest.raises(CommandError, match=re.escape(f"run #{run.pk} already holds {tiny_spec.name}'s answers")):
        _run(study, tiny_model_dir, "--here", "--trust-task-code")


@pytest.mark.django_db(transaction=True)  # the database worker closes its connection between tasks
def test_the_eval_is_queued_for_a_worker_which_runs_it(tmp_path, tiny_model_dir) -> None:
    study = _study(tmp_path, limit=1)
    said = _run(study, tiny_model_dir, "--trust-task-code")
    assert f"on 1 samples of the Inspect task {MC_TASK}: a worker runs it" in said
    (queued,) = DBTaskResult.objects.filter(queue_name="models")
    assert queued.task_path == "modelruns.services_inspect_eval.run_inspect_eval" and not ModelRun.objects.exists()
    call_command(
        "db_worker", "--queue-name", "models", "--batch", "--no-startup-delay", stdout=StringIO(), stderr=StringIO()
    )
    run = ModelRun.objects.get(study=study)
    assert run.model_identity["ran_here"] is True and run.responses.count() == 1


@pytest.mark.django_db
def test_a_task_in_a_file_needs_trust_and_a_study_needs_an_inspect_task(tmp_path, tiny_model_dir) -> None:
    study = _study(tmp_path)
    with pytest.raises(CommandError, match="is a file whose Python the worker would run: .*--trust-task-code"):
        _run(study, tiny_model_dir, "--here")
    benchmark_records_import(
        name="custom",
        records=[{"id": "1", "text": "2 + 2?", "kind": "short_text", "gold": "4"}],
        options={"name": "own"},
    )
    call_command("create_study", "--benchmark", "custom", "--name", "Own", "--set", "item_set=own", stdout=StringIO())
    with pytest.raises(CommandError, match="has no items of an Inspect task that say how to run it"):
        _run(Study.objects.get(name="Own"), tiny_model_dir, "--here")
    assert not ModelRun.objects.exists()


@pytest.mark.django_db
def test_the_runs_panel_queues_a_run_through_the_task_whose_file_the_operator_allowed(
    tmp_path, tiny_model_dir, researcher, researcher_client, settings, django_capture_on_commit_callbacks
) -> None:
    study = _study(tmp_path, limit=2)
    Study.objects.filter(pk=study.pk).update(owner=researcher)
    panel = researcher_client.get(f"/runs/study/{study.pk}/")
    assert f"Through the Inspect task {MC_TASK}" in panel.content.decode()
    form = {
        "model": str(tiny_model_dir),
        "kind": "causal",
        "dtype": "float32",
        "device": "cpu",
        "through_inspect": "on",
    }
    # the task is a file outside the operator's folders: its code may not run on the worker
    settings.PARITY_INSPECT_TASK_DIRS = []
    refused = researcher_client.post(f"/runs/study/{study.pk}/start/", form, HTTP_HX_REQUEST="true")
    assert "is a file whose Python the worker would run" in refused.content.decode()
    assert not DBTaskResult.objects.exists()
    settings.PARITY_INSPECT_TASK_DIRS = [str(tmp_path)]
    with django_capture_on_commit_callbacks(execute=True):
        queued = researcher_client.post(f"/runs/study/{study.pk}/start/", form, HTTP_HX_REQUEST="true")
    assert f"through the Inspect task {MC_TASK} on 2 samples" in queued.content.decode()
    (task,) = DBTaskResult.objects.filter(queue_name="models")
    assert task.task_path == "modelruns.services_inspect_eval.run_inspect_eval" and task.args_kwargs["args"][2] is True
    assert not ModelRun.objects.exists()  # the run appears when the worker has imported its log
