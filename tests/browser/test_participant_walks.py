"""Each benchmark walked on a phone (360×740, touch), from the start page to the done page: on every
page axe-core finds no WCAG 2.2 A/AA violation, nothing is wider than the screen, every button, link
and box is at least 24×24 CSS px, shows its edge at 3:1 or more and has a name in the accessibility
tree, the keyboard hints are hidden, and a screenshot lands in
test-artifacts/phone-<benchmark>-<step>.png.

Every walk is made in each language the participant pages ship in (`settings.LANGUAGES`), Arabic
right to left."""

from __future__ import annotations

import re

import pytest
from django.conf import settings

from studies.models import Participant
from tests.browser.helpers import (
    PHONE,
    assert_accessible,
    assert_no_horizontal_scroll,
    faint_controls,
    small_targets,
    unnamed_controls,
)
from tests.browser.walks import STUDIES, walk

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLOSING = ["age", "gender", "ai_tool", "feedback"]


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    # no route for Prolific yet: a route turns the browser's cache off, and the walk's pages would fetch
    # their scripts and styles again each time (the check of the done page adds it)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("language", [code for code, _ in settings.LANGUAGES])
@pytest.mark.parametrize("kind", list(STUDIES))
def test_a_phone_walks_each_benchmark_to_the_end_accessible_and_within_the_screen(
    kind, language, live_server, phone, artifacts
):
    study = STUDIES[kind](closing_questions=CLOSING, language=language)
    assert phone.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches"), "a touch screen"
    seen = []

    def check(page, step: str) -> None:
        context = f"{kind} in {language} on a phone, {step}"
        if step == "done":
            # Prolific is outside this machine: the done page goes there after 4 s, to a stand-in
            page.context.route(
                "https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific stand-in")
            )
        assert_accessible(page, context=context)
        assert_no_horizontal_scroll(page, context=context)
        assert small_targets(page) == [], f"{context}: targets under 24×24 px"
        assert faint_controls(page) == [], f"{context}: controls whose edges are under 3:1"
        assert unnamed_controls(page) == [], f"{context}: controls without a name"
        hints = page.locator(".keys-hint, .choice kbd")
        assert all(hints.nth(i).is_hidden() for i in range(hints.count())), f"{context}: keyboard hints shown"
        # at CSS pixels (360 px wide), not the screen's two device pixels each: the pictures are for people
        # to look at (docs/img/phone-*.png is 360 px wide), and a quarter of the pixels is quicker to save
        page.screenshot(
            path=str(artifacts / f"phone-{kind}-{language}-{re.sub(r'[^a-z0-9]+', '-', step)}.png"),
            full_page=True,
            scale="css",
        )
        seen.append(step)

    participant = walk(phone, live_server, study, 1, check, touch=True)
    assert participant.step == Participant.Step.DONE and participant.answered == participant.total
    assert seen[:4] == ["start", "consent", "instructions", f"item 1 of {participant.total}"] and seen[-1] == "done"
