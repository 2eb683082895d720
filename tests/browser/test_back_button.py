"""The browser's Back button never shows a stale item that takes answers. The item page is never kept
by the browser (no-store, and a page restored from the back-forward cache loads again), so Back shows
the participant's current item; an answer that still comes from an item already answered (a second
tab) is kept out and the page says so, on the screen and to a screen reader, never "Answer saved"."""

from __future__ import annotations

import pytest

from studies.models import Participant, Response
from tests.browser.helpers import through_consent_and_instructions, wait_until_interactive
from tests.factories import entry_url, pid, small_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ALREADY = "That item was already answered; here is your next one: item 3 of"


@pytest.fixture
def imported(implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)


def _at(page, position: int, total: int) -> None:
    page.wait_for_selector(f'#progress[aria-valuenow="{position - 1}"]')
    page.wait_for_selector(f"#progress >> text={position} of {total}")
    wait_until_interactive(page)


def _press(page, choice: str) -> None:
    page.locator("#item-area button.choice", has_text=choice).first.click()


def _stored(participant: Participant) -> list[tuple[int, str]]:
    return list(
        Response.objects.filter(participant=participant).order_by("position").values_list("position", "raw_answer")
    )


def test_back_after_two_answers_shows_the_current_item_and_overwrites_nothing(live_server, page, imported, artifacts):
    study = small_study("back button", units=1, unit_size=5, per_unit=1, attention_checks=1)
    page.goto(live_server.url + entry_url(study, pid(1)))
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    total = participant.total
    _at(page, 1, total)
    _press(page, "yes")
    _at(page, 2, total)
    _press(page, "no")
    _at(page, 3, total)
    assert _stored(participant) == [(1, "yes"), (2, "no")]

    page.go_back()
    page.wait_for_load_state("load")
    page.screenshot(path=str(artifacts / "back-button.png"))
    # whatever page Back lands on, no item but the current one is there to answer
    if page.locator("#item-area").count() == 0:
        page.locator("button.primary").first.click()
    _at(page, 3, total)
    assert page.locator("#answer-form input[name=position]").input_value() == "3"
    _press(page, "yes")
    _at(page, 4, total)
    assert _stored(participant) == [(1, "yes"), (2, "no"), (3, "yes")]
    assert "Answer saved. Item 4 of" in page.inner_text("#announcer")


def test_an_answer_from_an_item_already_answered_is_kept_out_and_said_so(live_server, page, imported, artifacts):
    study = small_study("second tab", units=1, unit_size=5, per_unit=1, attention_checks=1)
    page.goto(live_server.url + entry_url(study, pid(2)))
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    total = participant.total
    _at(page, 1, total)
    _press(page, "yes")
    _at(page, 2, total)
    # a second tab of the same browser, on the same item; there it is answered first
    other = page.context.new_page()
    other.goto(page.url)
    _at(other, 2, total)
    _press(other, "no")
    _at(other, 3, total)
    other.close()

    _press(page, "yes")  # item 2 again, from the first tab, which still shows it
    page.wait_for_selector("#already-answered")
    _at(page, 3, total)
    assert page.inner_text("#already-answered").startswith(ALREADY)
    announced = page.inner_text("#announcer")
    assert ALREADY in announced and "Answer saved" not in announced, announced
    assert _stored(participant) == [(1, "yes"), (2, "no")]
    page.screenshot(path=str(artifacts / "already-answered.png"))
    # the next answer is stored, and said to be
    _press(page, "no")
    _at(page, 4, total)
    assert _stored(participant) == [(1, "yes"), (2, "no"), (3, "no")]
    assert page.locator("#already-answered").count() == 0
    assert "Answer saved. Item 4 of" in page.inner_text("#announcer")


def test_an_item_page_restored_from_the_back_forward_cache_loads_the_current_item(live_server, page, imported):
    """Chromium keeps no page sent no-store in its back-forward cache; a browser that does restores it
    with a persisted pageshow, on which the page fetches the participant's current step."""
    study = small_study("restored", units=1, unit_size=5, per_unit=1, attention_checks=1)
    page.goto(live_server.url + entry_url(study, pid(3)))
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    total = participant.total
    _at(page, 1, total)
    other = page.context.new_page()  # the item answered meanwhile, elsewhere
    other.goto(page.url)
    _at(other, 1, total)
    _press(other, "yes")
    _at(other, 2, total)
    other.close()
    page.evaluate("window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))")
    _at(page, 2, total)
    assert _stored(participant) == [(1, "yes")]
