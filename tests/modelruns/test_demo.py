"""The README's run command queues one smollm2 run of the implicature demo, once."""

from __future__ import annotations

import pytest

from modelruns.demo import demo_model_run
from modelruns.models import ModelRun
from studies.demo import STEPS, DemoReport, demo_implicature
from tests.conftest import datasets_dir

pytestmark = pytest.mark.django_db


def test_the_demo_queues_the_smollm2_run_once(monkeypatch, django_capture_on_commit_callbacks):
    from django_tasks_db.models import DBTaskResult

    monkeypatch.setenv("DATASETS_DIR", str(datasets_dir()))
    assert STEPS.index(demo_model_run) > STEPS.index(demo_implicature)
    report = DemoReport()
    with django_capture_on_commit_callbacks(execute=True):
        demo_implicature(report)
        demo_model_run(report)
    run = ModelRun.objects.get()
    assert run.spec.model == "smollm2" and run.study.name == "Implicature demo"
    assert run.setting == {"variant": "ranking", "template": 2, "k": 0, "seed": 0}
    assert run.progress_total == 600 and run.shards.count() == 10
    assert DBTaskResult.objects.count() == 10
    assert "queued" in report.lines[-1]
    with django_capture_on_commit_callbacks(execute=True):
        demo_model_run(DemoReport())
    assert ModelRun.objects.count() == 1
