"""The study page's copy buttons in a real browser: offered only once they can copy."""

from __future__ import annotations

import pytest

from tests.browser.helpers import sign_in
from tests.factories import small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_copy_button_appears_only_once_its_script_runs_and_then_copies(live_server, page, implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    study = small_study("copied in a browser", units=1, unit_size=3, per_unit=1, attention_checks=1, owner=owner)
    sign_in(page, live_server, owner)
    held = []  # the page's script, held back: a slow network, or a click before the deferred script ran
    page.route("**/researcher*.js", lambda route: held.append(route))
    page.goto(f"{live_server.url}/studies/{study.pk}/", wait_until="commit")
    page.wait_for_selector("#completion-code", state="attached")
    while not held:  # the held request reaches its handler
        page.wait_for_timeout(20)
    button = page.locator('button[data-copy="#completion-code"]')
    # a button that would do nothing when clicked is not shown
    assert button.count() == 1 and not button.is_visible()

    held[0].continue_()
    button.click()  # waits for the button to be shown
    page.wait_for_selector('button[data-copy="#completion-code"][data-copied="true"]')
    assert button.inner_text() == "Copied"
