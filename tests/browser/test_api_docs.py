"""The API reference (/api/docs/) in a real browser: Swagger UI renders the operations, the writes
included, from this site's files alone (no request leaves it), and a researcher's token launches
a study from it."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from knox.models import AuthToken

from studies.models import Study
from tests.factories import small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_reference_renders_from_this_site_alone_and_launches_a_study_with_a_token(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    study = small_study("launched from the reference", status=Study.Status.DRAFT, units=1, unit_size=3, owner=owner)
    token = AuthToken.objects.create(owner)[1]
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.set_viewport_size({"width": 1280, "height": 1100})

    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock")
    assert "Parity API" in page.locator(".swagger-ui .info .title").inner_text()
    for path in [
        "/api/studies/create/",
        "/api/studies/{study_id}/status/",
        "/api/studies/{study_id}/model-runs/start/",
    ]:
        assert page.locator(f'.opblock-post .opblock-summary-path[data-path="{path}"]').count() == 1, path
    assert (
        "Launch, pause, resume or close a study"
        in page.locator("#operations-studies-studies_status_update").inner_text()
    )
    page.screenshot(path=str(artifacts / "api-docs.png"))

    # Authorize with the token, as a researcher does, then launch the draft from its operation
    page.click(".swagger-ui .auth-wrapper .authorize")
    page.fill(".swagger-ui .modal-ux input[type=text]", f"Token {token}")
    page.click(".swagger-ui .modal-ux .auth-btn-wrapper .authorize")
    page.click(".swagger-ui .modal-ux .btn-done")
    operation = page.locator("#operations-studies-studies_status_update")
    operation.locator(".opblock-summary").click()
    operation.locator(".try-out__btn").click()
    operation.locator('input[placeholder="study_id"]').fill(str(study.pk))
    operation.locator("textarea.body-param__text").fill('{"status": "live"}')
    operation.locator(".execute").click()
    operation.locator(".live-responses-table tr.response .response-col_status").first.wait_for()
    assert (
        operation.locator(".live-responses-table tr.response .response-col_status").first.inner_text().strip() == "200"
    )
    study.refresh_from_db()
    assert study.status == Study.Status.LIVE

    here = urlsplit(live_server.url).netloc
    elsewhere = [url for url in requested if urlsplit(url).scheme in {"http", "https"} and urlsplit(url).netloc != here]
    assert not elsewhere, elsewhere
    assert any("/static/drf_spectacular_sidecar/swagger-ui-dist/" in url for url in requested)
