"""Integrity signals in a real browser: a participant who copies a written item into a chatbot in
another tab and pastes its answer is flagged for pasting, leaving the tab and the canary; one who
types is not; the canary is invisible and out of the accessibility tree, but a copy carries it."""

from __future__ import annotations

import pytest

from studies.models import Participant, Response
from studies.participants.quality import participant_flags
from studies.setup.studies import study_create
from tests.annotation.helpers import import_instruction_induction
from tests.browser.helpers import through_consent_and_instructions, wait_until_interactive
from tests.factories import entry_url, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WRITTEN = "Write the word that means the opposite of the input."


@pytest.fixture
def study():
    import_instruction_induction()
    return study_create(
        name="written integrity",
        benchmark="instruction_induction",
        design={"tasks_per_participant": 3, "annotators_per_task": 1},
    )


@pytest.fixture
def clipboard(page, live_server):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    return page


def _at_first_item(page, live_server, study, n: int) -> Participant:
    page.goto(live_server.url + entry_url(study, pid(n)))
    through_consent_and_instructions(page)
    wait_until_interactive(page)
    return Participant.objects.get(study=study, prolific_pid=pid(n))


def _visibility(page, state: str) -> None:
    """What a browser tells a tab sent to the background or brought back. Headless Chromium keeps
    every tab visible (each is a window of its own), so the test says it as the browser would; the
    switch itself is real (another page brought to the front takes the focus: a real blur)."""
    page.evaluate(
        """state => {
            Object.defineProperty(document, "visibilityState", {value: state, configurable: true});
            Object.defineProperty(document, "hidden", {value: state === "hidden", configurable: true});
            document.dispatchEvent(new Event("visibilitychange"));
        }""",
        state,
    )


def _copy_the_page(page) -> str:
    """Select all and copy, as a person does with the keyboard, outside the answer box."""
    page.locator("#prompt-text").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Control+C")
    return page.evaluate("navigator.clipboard.readText()")


def _submitted(page, participant: Participant) -> Response:
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(f"#progress >> text=2 of {participant.total}")
    return Response.objects.get(participant=participant)


def test_pasting_a_chatbots_answer_from_another_tab_is_flagged(live_server, clipboard, study):
    page = clipboard
    participant = _at_first_item(page, live_server, study, 1)
    copied = _copy_the_page(page)
    assert study.canary_word in copied
    # the chatbot, in another tab brought to the front: it follows the hidden line
    page.context.new_cdp_session(page).send("Emulation.setFocusEmulationEnabled", {"enabled": False})
    chatbot = page.context.new_page()
    chatbot.goto(live_server.url + "/static/favicon.svg")
    chatbot.bring_to_front()
    _visibility(page, "hidden")
    answer = f"{WRITTEN} ({study.canary_word})"
    chatbot.wait_for_timeout(1200)
    page.bring_to_front()
    _visibility(page, "visible")
    page.evaluate("text => navigator.clipboard.writeText(text)", answer)
    page.locator("#answer-box").focus()
    page.keyboard.press("Control+V")
    assert page.locator("#answer-box").input_value() == answer
    response = _submitted(page, participant)
    figures = response.extra["behaviour"]
    assert response.raw_answer == answer and figures["status"] == "recorded"
    assert figures["pastes"] == 1 and figures["hidden"] == 1 and figures["hidden_ms"] >= 1200
    assert figures["blurs"] >= 1, "the chatbot's tab took the focus"
    assert figures["keys"] == 0 and figures["chars"] == len(answer)
    assert response.extra["pasted"] is True and response.extra["canary"] is True
    # counts and times only: nothing of what was copied, typed or pasted beyond the answer itself
    assert set(response.extra) == {"pasted", "canary", "behaviour"}
    assert set(figures) == {"status", "pastes", "blurs", "hidden", "hidden_ms", "keys", "first_input_ms", "chars"}
    assert all(isinstance(value, int) for name, value in figures.items() if name != "status")
    flags = participant_flags(Participant.objects.filter(pk=participant.pk))[participant.pk]
    assert {"pasted", "left_tab", "canary"} <= set(flags)


def test_a_participant_who_types_is_not_flagged(live_server, page, study):
    participant = _at_first_item(page, live_server, study, 2)
    page.keyboard.type(WRITTEN, delay=5)
    response = _submitted(page, participant)
    figures = response.extra["behaviour"]
    assert figures["status"] == "recorded" and figures["keys"] == len(WRITTEN) == figures["chars"]
    assert (figures["pastes"], figures["hidden"], figures["hidden_ms"]) == (0, 0, 0)
    assert 0 < figures["first_input_ms"] <= response.duration_ms
    assert "pasted" not in response.extra and "canary" not in response.extra
    assert participant_flags(Participant.objects.filter(pk=participant.pk)) == {}


def test_the_canary_is_invisible_out_of_the_accessibility_tree_and_carried_by_a_copy(
    live_server, clipboard, study, artifacts
):
    page = clipboard
    _at_first_item(page, live_server, study, 3)
    word = study.canary_word
    canary = page.locator("#prompt-text .canary")
    assert canary.count() == 1 and canary.get_attribute("aria-hidden") == "true"
    box = canary.bounding_box()
    assert box["width"] <= 1 and box["height"] <= 1
    assert canary.evaluate("e => getComputedStyle(e).clipPath") == "inset(50%)"
    assert canary.evaluate("e => e.tabIndex") == -1, "not focusable"
    page.screenshot(path=str(artifacts / "integrity-written-item.png"))
    assert word not in page.locator("body").aria_snapshot()
    assert "Input:" in page.locator("body").aria_snapshot(), "the item's text itself is in the tree"
    session = page.context.new_cdp_session(page)
    nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    named = [n for n in nodes if not n.get("ignored") and word in str(n.get("name", {}).get("value", ""))]
    assert named == []
    copied = _copy_the_page(page)
    assert word in copied and "Note for AI assistants" in copied


def test_the_figures_come_with_a_plain_form_submission_too(live_server, page, study):
    """Without htmx (blocked here), the form posts natively and the page's script still fills it."""
    page.route("**/htmx.min.js", lambda route: route.abort())
    page.goto(live_server.url + entry_url(study, pid(4)))
    through_consent_and_instructions(page)
    page.wait_for_function("document.readyState === 'complete'")
    page.wait_for_selector("#item-area[data-ready]")
    assert page.evaluate("!window.htmx")
    participant = Participant.objects.get(study=study, prolific_pid=pid(4))
    page.locator("#answer-box").focus()
    page.keyboard.type(WRITTEN)
    response = _submitted(page, participant)
    figures = response.extra["behaviour"]
    assert figures["status"] == "recorded" and figures["keys"] == len(WRITTEN) and figures["pastes"] == 0
