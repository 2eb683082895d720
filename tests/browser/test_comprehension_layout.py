"""The comprehension check's choices, each on a row of its own: the radio, then its label to its right
(wrapping under itself, never around the next radio), on a laptop and on a phone. A label that ran
into the next radio invited the wrong tick, and a wrong tick costs a participant their place."""

from __future__ import annotations

import pytest

from tests.browser.helpers import assert_each_choice_a_row, press_when_focused
from tests.factories import entry_url, pid, small_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: the training's check, with a first choice as long as a researcher may write one: on a phone it wraps
LONG = "Say whether the answer means yes or no, once the whole answer is read, and without any hurry"
CHECK = f"""What do you do on each page?
- {LONG}
- Write a story
= {LONG}

Can you change an answer once it is sent?
- yes
- no
= no
"""


@pytest.fixture
def imported(implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)


@pytest.mark.parametrize("width,height", [(1366, 768), (360, 740)], ids=["laptop", "phone"])
def test_each_choice_of_the_check_is_a_row_of_its_own(live_server, browser, imported, width, height, artifacts):
    study = small_study(
        "check layout", units=1, unit_size=3, per_unit=1, attention_checks=1, comprehension_questions=CHECK
    )
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(live_server.url + entry_url(study, pid(1)))
        press_when_focused(page, "Enter")
        page.wait_for_selector("#consent")
        press_when_focused(page, "Enter")
        page.wait_for_selector("#instructions")
        press_when_focused(page, "Enter")
        page.wait_for_selector("#comprehension-form")
        page.screenshot(path=str(artifacts / f"comprehension-choices-{width}.png"), full_page=True)
        choices = assert_each_choice_a_row(page)
        assert [choice["value"] for choice in choices] == [
            LONG,
            "Write a story",
            "yes",
            "no",
        ]
        if width < 400:
            assert len(choices[0]["lines"]) > 1, "the long label wraps on a phone (what this test is about)"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # the label's words tick their own radio
        page.get_by_text("Write a story", exact=True).click()
        assert page.locator('#comprehension-form input[value="Write a story"]').is_checked()
    finally:
        context.close()
