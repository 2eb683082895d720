"""The run form's model field in a real browser: it suggests the models of the researcher's own
runs and studies, never another researcher's local paths or API servers, and a view-only
collaborator sees the runs without the buttons that start, cancel or rate them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from modelruns.services import ApiOptions, modelrun_start, modelspec_get_or_create
from studies.access import VIEWER_PERMISSIONS
from tests.browser.helpers import sign_in
from tests.factories import small_study
from tests.personas import user_with

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOS_PATH = "/srv/models/bo/secret-llama"
BOS_SERVER = "http://10.0.0.7:8000/v1"


def test_the_model_field_suggests_only_the_researchers_own_models(
    live_server, page, artifacts, settings, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    settings.PARITY_MODEL_SOURCES = ["smollm2", "/srv/models/", BOS_SERVER]
    ada, bo = user_with("ada"), user_with("bo")
    viewer = user_with("vi", VIEWER_PERMISSIONS)
    adas = small_study("ada's pilot", owner=ada, attention_checks=0)
    adas.collaborators.add(viewer)
    bos = small_study("bo's pilot", owner=bo, attention_checks=0)
    modelrun_start(
        study=adas, spec=modelspec_get_or_create(model="/srv/models/ada/llama", created_by=ada), enqueue=False
    )
    modelrun_start(study=bos, spec=modelspec_get_or_create(model=BOS_PATH, created_by=bo), enqueue=False)
    modelspec_get_or_create(model="bo-chat", kind="api", api=ApiOptions(base_url=BOS_SERVER), created_by=bo)

    sign_in(page, live_server, ada)
    page.goto(live_server.url + reverse("modelruns:study_runs", args=[adas.pk]))
    page.fill("#run_model", "/srv/models/")
    suggested = page.eval_on_selector_all("#model-runs-specs option", "options => options.map(o => o.value)")
    assert suggested == ["smollm2", "/srv/models/ada/llama"]
    assert BOS_PATH not in page.content() and BOS_SERVER not in page.content() and "bo-chat" not in page.content()
    page.locator("#model-runs").screenshot(path=str(artifacts / "model-runs-own-specs.png"))

    page.context.clear_cookies()
    sign_in(page, live_server, viewer)
    page.goto(live_server.url + reverse("modelruns:study_runs", args=[adas.pk]))
    assert page.locator("#model-runs tr[id^=model-run-]").count() == 1
    assert page.locator("#start-run").count() == 0 and page.locator("[id^=cancel-run-]").count() == 0
    page.locator("#model-runs").screenshot(path=str(artifacts / "model-runs-viewer.png"))
