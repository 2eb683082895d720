"""A large study's results page in a browser: it says the results are being computed, asks again by
itself, and shows them once a task worker has computed them, without a reload."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tests.browser.helpers import sign_in
from tests.factories import Bot, pid, small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_page_says_computing_then_shows_the_results_the_worker_computed(
    live_server, page, artifacts, implicature_source, settings
):
    from annotation.services import benchmark_import

    settings.RESULTS_INLINE_ANSWERS = 0  # every study counts as large: computed in the task queue
    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    study = small_study("computed in the queue", units=2, unit_size=5, per_unit=1, attention_checks=0, owner=owner)
    for n in (1, 2):
        Bot(study, pid(n)).complete()
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    notice = page.locator("#results-computing")
    assert "results are being computed" in notice.inner_text()
    page.screenshot(path=str(artifacts / "results-computing.png"), full_page=True)

    call_command(
        "db_worker", "--queue-name", "default", "--batch", "--no-startup-delay", stdout=StringIO(), stderr=StringIO()
    )
    # the section asks again every few seconds and is swapped for the results
    notice.wait_for(state="detached", timeout=15_000)
    assert "Participants in the results" in page.locator("#study-results").inner_text()
    assert page.locator("#study-results figure.chart").count() > 0
