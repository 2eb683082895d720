"""The runs panel of the results page in a real browser: a researcher uploads the log Inspect wrote for
the study's task and sees the run listed; a second log of the same model and task is refused, with
the reason on the panel."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.services import benchmark_records_import
from modelruns.models import ModelRun
from studies.setup.studies import study_create
from tests.browser.helpers import sign_in
from tests.inspect_logs import MC, MC_REPLIES, MC_TASK, records, write_log
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_researcher_uploads_an_inspect_log_and_sees_the_run_then_a_refusal(live_server, page, tmp_path):
    owner = researcher()
    benchmark_records_import(name="custom", records=records(MC, MC_TASK), options={"name": MC_TASK})
    design = {"item_set": MC_TASK, "unit_size": 0, "per_unit": 3, "attention_checks": 0, "exclude_at": 0}
    study = study_create(name="Capitals", benchmark="custom", design=design, owner=owner)
    first = write_log(tmp_path / "first", MC, MC_REPLIES)
    second = write_log(tmp_path / "second", MC, {word: "ANSWER: A" for word in MC_REPLIES})

    sign_in(page, live_server, owner)
    page.goto(live_server.url + reverse("results:study", args=[study.pk]))
    page.wait_for_selector("#model-runs #inspect_log")  # the runs panel, loaded by htmx
    page.set_input_files("#inspect_log", str(first))
    page.click("#import-inspect-log")
    page.wait_for_selector("#inspect-log-imported")
    run = ModelRun.objects.get(study=study)
    assert page.inner_text("#inspect-log-imported") == (
        f"Imported 3 answers of mockllm/model (Inspect log of {MC_TASK}) as run #{run.pk}."
    )
    row = page.locator(f"#model-run-{run.pk}")
    assert row.get_attribute("data-status") == "done" and f"Inspect log of {MC_TASK}" in row.inner_text()

    page.set_input_files("#inspect_log", str(second))
    page.click("#import-inspect-log")
    page.wait_for_selector("#inspect-log-refused")
    assert f"run #{run.pk} already holds mockllm/model's answers to {MC_TASK}" in page.inner_text(
        "#inspect-log-refused"
    )
    assert ModelRun.objects.filter(study=study).count() == 1
