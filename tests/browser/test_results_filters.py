"""The results page's filters in a browser: choosing filters asks nothing, Apply asks once."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import sign_in
from tests.factories import Bot, pid, small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_apply_sends_one_request_for_the_filters_chosen(live_server, page, implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    study = small_study("filtered in a browser", units=2, unit_size=5, per_unit=1, attention_checks=1, owner=owner)
    for n in (1, 2):
        Bot(study, pid(n)).complete()
    sign_in(page, live_server, owner)
    results_url = f"{live_server.url}/studies/{study.pk}/results/"
    page.goto(results_url)
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if request.url.startswith(results_url) else None)

    page.select_option("#id_unit", "U2")
    page.wait_for_timeout(300)
    assert asked == [], "choosing a filter asks nothing yet"
    with page.expect_response(lambda response: response.url.startswith(results_url)):
        page.click("#apply-filters")
    page.wait_for_load_state("networkidle")
    assert asked == [f"{results_url}?unit=U2&category=&model=&setting=&flagged=include"]
    # htmx pushes the address once the swap has settled, which can be after the network is idle.
    expect(page).to_have_url(asked[0])
    assert "Participants in the results" in page.locator("#study-results").inner_text()
