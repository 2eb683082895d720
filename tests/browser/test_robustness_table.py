"""The exclusion-robustness table on the results page, in a browser: one row per exclusion rule that
changes who or what counts, each with the people and answers it covers (the figures themselves are
held to the stored answers in tests/results/computing/test_exclusion_robustness.py)."""

from __future__ import annotations

import pytest

from annotation.services import benchmark_import
from tests.browser.helpers import sign_in
from tests.personas import superuser
from tests.results.computing.test_exclusion_robustness import robustness_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_results_page_shows_the_headline_under_each_exclusion_rule(
    live_server, page, artifacts, implicature_source
):
    benchmark_import(name="implicature", source=implicature_source)
    study = robustness_study()
    sign_in(page, live_server, superuser())
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    table = page.locator("#table-robustness")
    table.wait_for()
    text = table.inner_text()
    for row in ("As analysed", "put back in", "flagged for review", "answer floor"):
        assert row in text, text
    table.screenshot(path=str(artifacts / "results-robustness.png"))
