"""The runs panel of the results page in a real browser: two runs started from the form with the
benchmark's own setting choices, their places in the queue, the running one's time counting up
while a worker scores it, and both cancelled (the running one stops at its next batch)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from modelruns import shards
from modelruns.models import ModelRun
from modelruns.services import modelspec_get_or_create
from tests.browser.helpers import sign_in
from tests.factories import small_study

# a tiny random Llama saved through the real loaders, and the settings that let a run load it
from tests.modelruns.conftest import _model_cache, _model_sources, session_model_cache, tiny_model_dir  # noqa: F401
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def start_a_run(page, model_dir, template: str) -> None:
    page.fill("#run_model", str(model_dir))
    page.fill("#run_device", "cpu")
    page.select_option("#run_setting_template", template)
    page.fill("#run_setting_k", "1")
    page.click("#start-run")


def test_a_researcher_starts_two_runs_watches_them_and_cancels_both(
    live_server,
    page,
    artifacts,
    implicature_source,
    tiny_model_dir,  # noqa: F811 (the imported fixture)
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    # the spec the form will ask for, under a readable name (else it is named after the path)
    modelspec_get_or_create(model=str(tiny_model_dir), device="cpu", name="tiny random Llama")
    owner = researcher()
    study = small_study("runs panel", unit_size=5, units=2, per_unit=1, attention_checks=0, owner=owner)
    sign_in(page, live_server, owner)
    page.goto(live_server.url + reverse("results:study", args=[study.pk]))
    page.wait_for_selector("#model-runs #run_model")  # the runs panel, loaded by htmx
    # the settings are the benchmark's own choices, not key=value text
    assert page.locator("#run_setting_template option").all_inner_texts() == [f"template {n}" for n in range(1, 10)]
    assert page.locator("#run_setting_variant option").all_inner_texts()[1] == "contrastive: A or B"

    start_a_run(page, tiny_model_dir, "3")
    page.wait_for_selector("#model-runs tr[id^=model-run-]")
    start_a_run(page, tiny_model_dir, "4")
    page.wait_for_selector("#model-runs tr[id^=model-run-] >> nth=1")
    first, second = ModelRun.objects.filter(study=study).order_by("pk")
    assert (first.setting["template"], first.setting["k"], second.setting["template"]) == (3, 1, 4)
    assert page.inner_text(f"#model-run-{first.pk}-queue") == "1st in queue"
    assert page.inner_text(f"#model-run-{second.pk}-queue") == "2nd in queue"
    assert page.locator("#model-runs-table[hx-trigger]").count() == 1  # polling while runs wait

    watched: list[str] = []

    def the_researcher_looks_and_cancels(done: float, total: int) -> None:
        """At the worker's first batch boundary (the worker waits here), the researcher watches the
        panel and presses Cancel; the worker then stops at this boundary."""
        if watched:
            return
        page.wait_for_selector(f'#model-run-{first.pk}[data-status="running"]', timeout=15000)
        time_cell = f"#model-run-{first.pk}-time"
        shown = page.inner_text(time_cell).split("\n")[0]
        # the polled panel counts the time up (the old page said 0 s until the end)
        page.wait_for_function(
            "([selector, before]) => document.querySelector(selector)?.innerText.split('\\n')[0] !== before",
            arg=[time_cell, shown],
            timeout=15000,
        )
        watched.append(page.inner_text(time_cell))
        # the running run's later shards come after the queued run's first: only waiting runs are ahead
        assert page.inner_text(f"#model-run-{second.pk}-queue") == "1st in queue"
        page.locator("#model-runs").screenshot(path=str(artifacts / "model-runs-running.png"))
        page.click(f"#cancel-run-{first.pk}")
        page.wait_for_selector(f'#model-run-{first.pk}[data-stopping="true"]')
        assert page.locator(f"#cancel-run-{first.pk}").count() == 0

    shards.modelrun_work(run=first, worker="browser", on_progress=the_researcher_looks_and_cancels)
    assert watched and watched[0].endswith("so far") and watched[0] != "0 s so far"
    first.refresh_from_db()
    assert first.status == ModelRun.Status.CANCELLED and not first.responses.exists()
    page.wait_for_selector(f'#model-run-{first.pk}[data-status="cancelled"]', timeout=15000)
    page.wait_for_selector(f"#model-run-{second.pk}-queue >> text=1st in queue", timeout=15000)

    page.click(f"#cancel-run-{second.pk}")  # queued: cancelled at once, never started
    page.wait_for_selector(f'#model-run-{second.pk}[data-status="cancelled"]')
    page.wait_for_selector("#model-runs-table:not([hx-trigger])")  # nothing left to poll
    second.refresh_from_db()
    assert second.status == ModelRun.Status.CANCELLED and second.started_at is None
    assert "Cancelled" in page.inner_text(f"#model-run-{second.pk}-status")
    assert page.inner_text(f"#model-run-{second.pk}-time") == "never started"
    page.locator("#model-runs").screenshot(path=str(artifacts / "model-runs-cancelled.png"))
