"""Keyboard hints on a participant's item page: shown where there is a keyboard and a mouse, hidden on
a touch screen (the buttons stay)."""

from __future__ import annotations

import pytest

from tests.browser.helpers import through_consent_and_instructions, wait_until_interactive
from tests.factories import entry_url, pid, small_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _first_item(page, live_server, study, n: int) -> None:
    page.goto(live_server.url + entry_url(study, pid(n)))
    page.wait_for_selector("#start")
    through_consent_and_instructions(page)
    page.wait_for_selector("#item-area button.choice")


def test_keyboard_hints_show_with_a_mouse_and_hide_on_a_touch_screen(
    live_server, browser, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    study = small_study("touch", units=1, unit_size=3, per_unit=2, attention_checks=1)

    desktop = browser.new_context()
    page = desktop.new_page()
    _first_item(page, live_server, study, 1)
    assert page.locator("#item-area .keys-hint").is_visible()
    assert page.locator("#item-area .keys-hint").inner_text().startswith("Keyboard:")
    assert page.locator("#item-area button.choice kbd").first.is_visible()
    desktop.close()

    phone = browser.new_context(has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844})
    page = phone.new_page()
    assert page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
    _first_item(page, live_server, study, 2)
    assert not page.locator("#item-area .keys-hint").is_visible()
    assert page.locator("#item-area button.choice kbd").first.is_hidden()
    buttons = page.locator("#item-area button.choice")
    assert buttons.count() == 2 and all(buttons.nth(i).is_visible() for i in range(2)), "the buttons stay"
    page.screenshot(path=str(artifacts / "item-page-touch.png"), full_page=True)
    wait_until_interactive(page)
    buttons.first.tap()
    page.wait_for_selector("#progress >> text=2 of")
    phone.close()
