"""The comprehension check's choices, each on a row of its own: the radio, then its label to its right
(wrapping under itself, never around the next radio), on a laptop and on a phone. A label that ran
into the next radio invited the wrong tick, and a wrong tick costs a participant their place."""

from __future__ import annotations

import pytest

from tests.browser.helpers import press_when_focused
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


#: per radio of the check: its box and the boxes of its label's words (one per line they take)
_CHOICES = """() => [...document.querySelectorAll("#comprehension-form input[type=radio]")].map(radio => {
    const label = radio.closest("label") || document.querySelector(`label[for="${radio.id}"]`);
    const range = document.createRange();
    const lines = [];
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim()) continue;
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) {
            if (rect.width > 0) lines.push({x: rect.left, y: rect.top, right: rect.right, bottom: rect.bottom});
        }
    }
    const box = radio.getBoundingClientRect();
    return {
        name: radio.name, value: radio.value, text: label.textContent.trim(),
        radio: {x: box.left, y: box.top, right: box.right, bottom: box.bottom}, lines: lines,
    };
})"""


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
        choices = page.evaluate(_CHOICES)
        assert [choice["value"] for choice in choices] == [
            LONG,
            "Write a story",
            "yes",
            "no",
        ]
        for choice in choices:
            radio, lines = choice["radio"], choice["lines"]
            assert lines, choice["text"]
            # every line of the label lies right of its own radio: none wraps round under it or the next
            assert all(line["x"] >= radio["right"] - 0.5 for line in lines), choice
            # and the first line is on the radio's row
            assert lines[0]["y"] < radio["bottom"] and lines[0]["bottom"] > radio["y"], choice
        if width < 400:
            assert len(choices[0]["lines"]) > 1, "the long label wraps on a phone (what this test is about)"
        for before, after in zip(choices, choices[1:], strict=False):
            bottom = max([before["radio"]["bottom"], *(line["bottom"] for line in before["lines"])])
            top = min([after["radio"]["y"], *(line["y"] for line in after["lines"])])
            # the next choice starts below the whole of this one: not on its line, not over it
            assert top >= bottom - 0.5, (before["text"], after["text"])
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # the label's words tick their own radio
        page.get_by_text("Write a story", exact=True).click()
        assert page.locator('#comprehension-form input[value="Write a story"]').is_checked()
    finally:
        context.close()
