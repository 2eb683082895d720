"""A refusal about a PID in a real browser: the participant's own browser is told why; another
browser, where anyone may have typed the PID into the link, is told only that it cannot start."""

from __future__ import annotations

import pytest

from tests.browser.helpers import press_when_focused
from tests.factories import entry_url, pid, small_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_only_the_browser_that_entered_is_told_that_its_pid_took_part(
    live_server, browser, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    first = small_study("first of the group", group="implicature-2026")
    second = small_study("second of the group", group="implicature-2026")
    page.goto(live_server.url + entry_url(first, pid(7)))
    press_when_focused(page, "Enter")
    page.wait_for_selector("#consent")

    context = browser.new_context()  # another person's browser, the same PID typed into the link
    elsewhere = context.new_page()
    elsewhere.goto(live_server.url + entry_url(second, pid(7)))
    press_when_focused(elsewhere, "Enter")
    refusal = elsewhere.locator("#problem")
    refusal.wait_for()
    assert "This study cannot be started here" in refusal.inner_text()
    assert "taken part" not in refusal.inner_text() and "related study" not in refusal.inner_text()
    elsewhere.screenshot(path=str(artifacts / "refusal-new-browser.png"), full_page=True)
    context.close()

    page.goto(live_server.url + entry_url(second, pid(7)))
    press_when_focused(page, "Enter")
    page.wait_for_selector("#problem >> text=You have already taken part")
    assert "closely related study" in page.inner_text("#problem")
    page.screenshot(path=str(artifacts / "refusal-own-browser.png"), full_page=True)
