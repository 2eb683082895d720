"""The README's run command queues the smollm2 runs of the demo studies, once."""

from __future__ import annotations

import pytest

from modelruns.models import ModelRun
from results.demo import BASELINE_STUDY, STEPS, DemoReport, demo_human_baseline, demo_model_runs, demo_step
from tests.conftest import datasets_dir

pytestmark = pytest.mark.django_db

demo_implicature = demo_step("implicature")


def test_the_demo_queues_the_smollm2_runs_once(monkeypatch, django_capture_on_commit_callbacks):
    from django_tasks_db.models import DBTaskResult

    monkeypatch.setenv("DATASETS_DIR", str(datasets_dir()))
    assert STEPS.index(demo_model_runs) > STEPS.index(demo_implicature)
    report = DemoReport()
    with django_capture_on_commit_callbacks(execute=True):
        demo_implicature(report)
        demo_model_runs(report)
    run = ModelRun.objects.get()
    assert run.spec.model == "smollm2" and run.study.name == "Implicature demo"
    assert run.setting == {"variant": "ranking", "template": 2, "k": 0, "shots_seed": 0}
    assert run.progress_total == 600 and run.shards.count() == 10
    assert DBTaskResult.objects.count() == 10
    # the demo's run is in the background: its shards are queued below any researcher's run's
    assert run.background is True
    assert set(DBTaskResult.objects.values_list("priority", flat=True)) == set(range(-9, 1))
    assert "queued" in report.lines[-1]
    with django_capture_on_commit_callbacks(execute=True):
        demo_model_runs(DemoReport())
    assert ModelRun.objects.count() == 1


def test_the_published_baseline_gets_its_model_run_first(monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setenv("DATASETS_DIR", str(datasets_dir()))
    report = DemoReport()
    with django_capture_on_commit_callbacks(execute=True):
        demo_implicature(report)
        demo_human_baseline(report)
        demo_model_runs(report)
    runs = list(ModelRun.objects.order_by("pk").select_related("study"))
    assert [run.study.name for run in runs] == [BASELINE_STUDY, "Implicature demo"]
    assert [run.progress_total for run in runs] == [600, 600]
