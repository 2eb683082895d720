"""A study done with the keyboard alone, as a screen reader's user meets it: every step reached by
Tab (or its autofocus), each focused control with a visible focus ring and a name, the answer
buttons' shortcuts announced (aria-keyshortcuts), and after each answer the live region reading the
progress (and in AmbiBench the label just revealed). Then reflow at 200% zoom and at 320 px, and
motion under prefers-reduced-motion."""

from __future__ import annotations

import re

import pytest

from studies.models import Participant, Response
from tests.browser.helpers import (
    assert_accessible,
    assert_no_horizontal_scroll,
    each_item,
    press_when_focused,
    through_consent_and_instructions,
    wait_until_interactive,
)
from tests.browser.walks import STUDIES, typed_answer, walk
from tests.factories import entry_url, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

_NAMED = re.compile(r'^- \w+ "(?P<name>[^"]+)"', re.M)


def focus_ring(page) -> dict:
    """How the focused element shows its focus: whether :focus-visible matches, and its outline."""
    return page.evaluate(
        """() => { const element = document.activeElement, style = getComputedStyle(element);
            return {tag: element.tagName, id: element.id, visible: element.matches(':focus-visible'),
                    outline: style.outlineStyle, width: parseFloat(style.outlineWidth), shadow: style.boxShadow}; }"""
    )


def assert_focused_visibly_with_a_name(page, *, context: str) -> str:
    """The focused control shows a ring of 2 px or more (WCAG 2.4.7) and has an accessible name, as
    Playwright's accessibility snapshot gives it; returns the name."""
    ring = focus_ring(page)
    assert ring["visible"] and ring["outline"] == "solid" and ring["width"] >= 2, f"{context}: focus ring {ring}"
    named = _NAMED.match(page.locator(":focus").aria_snapshot())
    assert named, f"{context}: the focused {ring['tag']} has no accessible name"
    return named.group("name")


def tab_to(page, selector: str, *, context: str, limit: int = 12) -> str:
    """Press Tab until the focused element matches `selector`, checking each focus on the way;
    returns the name of the one reached. A person presses Tab on a page that is there: its
    stylesheet applied (the load event), not just its HTML, before which the browser draws its own
    1 px ring."""
    page.wait_for_function("document.readyState === 'complete'")
    for _ in range(limit):
        page.keyboard.press("Tab")
        name = assert_focused_visibly_with_a_name(page, context=context)
        if page.evaluate("selector => document.activeElement.matches(selector)", selector):
            return name
    raise AssertionError(f"{context}: {selector} not reached in {limit} presses of Tab")


def slow_network(page, latency_ms: int = 1500) -> None:
    """Every request from here on answers `latency_ms` later (0: as usual), as on a loaded server or a slow line:
    the next page's HTML is there well before its stylesheet, which is when a person's first Tab
    would meet the browser's own focus ring if the test pressed it before the page is loaded."""
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def announced(page) -> str:
    return page.inner_text("#announcer")


@pytest.mark.usefixtures("prolific_standin")
def test_a_study_is_done_with_the_keyboard_alone_every_focus_visible_and_named(live_server, page, artifacts):
    study = STUDIES["custom"](closing_questions=["age", "gender", "feedback"])
    page.goto(live_server.url + entry_url(study, pid(1)))
    for selector in ("#start", "#consent", "#instructions"):
        page.wait_for_selector(selector)
        press_when_focused(page, "Tab")  # from the autofocused button on and back: the ring is the keyboard's
        page.keyboard.press("Shift+Tab")
        assert assert_focused_visibly_with_a_name(page, context=selector) in ("Start", "I agree to take part")
        if selector == "#consent":
            assert "60 minutes pass without an answer" in page.inner_text("#time-limit"), "the time limit, in advance"
        page.keyboard.press("Enter")
    page.wait_for_selector("#item-area")
    region = page.locator("#announcer")
    assert (region.get_attribute("role"), region.get_attribute("aria-live")) == ("status", "polite")
    assert page.get_by_role("progressbar", name="Progress").count() == 1
    participant = Participant.objects.get(study=study)
    for position, item in each_item(page, participant):
        context = f"item {position}"
        if position > 1:
            assert announced(page) == f"Answer saved. Item {position} of {participant.total}."
        if page.locator("#answer-box").count():
            assert_focused_visibly_with_a_name(page, context=context)  # the box has the focus
            page.keyboard.type(typed_answer(item))
            tab_to(page, "#item-area button[type=submit]", context=context)
        else:
            buttons = page.locator("#item-area button.choice")
            wanted = item.gold or buttons.first.get_attribute("value")  # a rating has no right answer
            tab_to(page, f'#item-area button.choice[value="{wanted}"]', context=context)
            shortcuts = page.locator(":focus").get_attribute("aria-keyshortcuts")
            assert shortcuts and shortcuts.split()[0] == page.locator(":focus kbd").inner_text(), "shortcut announced"
            if position == 1:
                page.screenshot(path=str(artifacts / "keyboard-focus.png"))
        if position == participant.total:
            slow_network(page)
        page.keyboard.press("Enter")
    page.wait_for_selector("#closing-questions")
    # the done page's first stop, the link back to Prolific, has the page's 3 px ring like every other
    assert tab_to(page, "#return-to-prolific", context="done page", limit=1) == "Return to Prolific without answering"
    assert focus_ring(page)["width"] == 3
    slow_network(page, 0)  # the rest at full speed: no slow request left in flight when the test ends
    tab_to(page, "#id_age", context="closing questions")
    page.keyboard.type("29")
    tab_to(page, "input[name=gender]", context="closing questions")
    page.keyboard.press("ArrowDown")  # the second of the group, checked as the arrow moves there
    tab_to(page, "#id_feedback", context="closing questions")
    page.keyboard.type("All with the keyboard.")
    tab_to(page, "#send-closing", context="closing questions")
    page.keyboard.press("Enter")
    page.wait_for_selector("#prolific")
    participant.refresh_from_db()
    assert participant.closing_answers == {"age": 29, "gender": "man", "feedback": "All with the keyboard."}
    assert Response.objects.filter(participant=participant).count() == participant.total


def test_the_revealed_ambibench_label_and_the_progress_are_announced(live_server, page):
    study = STUDIES["ambibench-episode"]()
    page.goto(live_server.url + entry_url(study, pid(2)))
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    for position, item in each_item(page, participant):
        box = page.get_by_role("textbox", name=re.compile(f"Your answer for sentence {position}$"))
        assert box.evaluate("element => element === document.activeElement")
        if position == 2:
            page.keyboard.type("maybe")  # neither label: the error is an alert, the status says nothing new
            page.keyboard.press("Enter")
            page.wait_for_selector("#item-area .error[role=alert]")
            assert announced(page) == ""
            wait_until_interactive(page)
        page.keyboard.type(item.gold)
        page.keyboard.press("Enter")
        page.wait_for_selector(f"#progress >> text={position + 1} of")
        if position == 3:
            # its answer is saved (the page moved on): a request still in flight when the test ends
            # holds SQLite's tables while the test's database is emptied ("database table is locked")
            break
        revealed = f"The answer to sentence {position} was {item.gold}."
        assert announced(page) == f"{revealed} Answer saved. Item {position + 1} of {participant.total}."
        assert page.locator(f'#episode-history li[data-position="{position}"] .label-shown').inner_text() == item.gold


@pytest.mark.parametrize(
    "screen",
    [
        # a 1280 px window at 200% zoom: 640 CSS px, two device pixels each
        pytest.param({"viewport": {"width": 640, "height": 400}, "device_scale_factor": 2}, id="200% zoom"),
        # WCAG 1.4.10: content reflows at 320 CSS px (a 1280 px window at 400%)
        pytest.param({"viewport": {"width": 320, "height": 640}}, id="320 px"),
    ],
)
def test_the_pages_reflow_at_200_percent_zoom_and_at_320_px(screen, live_server, browser, artifacts):
    context = browser.new_context(**screen)
    page = context.new_page()
    label = f"{screen['viewport']['width']}px"

    def check(page, step: str) -> None:
        assert_no_horizontal_scroll(page, context=f"{step} at {label}")
        if step == "item 1 of 9":
            page.screenshot(path=str(artifacts / f"reflow-{label}.png"), full_page=True)

    study = STUDIES["custom"]()
    walk(page, live_server, study, 3, check, touch=False)
    context.close()


def test_motion_stops_when_the_system_asks_for_reduced_motion(live_server, browser):
    durations = {}
    for n, motion in enumerate(("no-preference", "reduce"), start=4):
        study = STUDIES["implicature"](name=f"motion {motion}")  # a place for one participant each
        context = browser.new_context(reduced_motion=motion)
        page = context.new_page()
        page.goto(live_server.url + entry_url(study, pid(n)))
        through_consent_and_instructions(page)
        durations[motion] = page.evaluate(
            """() => [...document.querySelectorAll('*')].map(element => getComputedStyle(element))
                .flatMap(style => [style.transitionDuration, style.animationDuration])
                .filter(duration => duration.split(', ').some(value => parseFloat(value) > 0))"""
        )
        if motion == "reduce":
            assert_accessible(page, context="item page under reduced motion")
        context.close()
    assert durations["no-preference"], "the progress bar moves when motion is welcome"
    assert durations["reduce"] == [], "nothing moves under prefers-reduced-motion: reduce"
