"""axe-core (WCAG 2.2 A/AA) on the pages off the participant's main path (a broken link, a refusal,
declining consent, the done page that returns to Prolific by itself) and on the researcher's main
pages; those also reflow at 320 px. The done page's return to Prolific is a time limit the
participant can turn off."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies.models import Participant, Study
from studies.setup.studies import study_set_status
from tests.browser.helpers import (
    assert_accessible,
    assert_no_horizontal_scroll,
    each_item,
    press_when_focused,
    sign_in,
    through_consent_and_instructions,
)
from tests.browser.walks import STUDIES
from tests.factories import Bot, entry_url, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_pages_off_the_main_path_pass_axe_and_the_return_to_prolific_can_be_stopped(live_server, page, artifacts):
    study = STUDIES["implicature"]()

    page.goto(live_server.url + study.participant_path())  # no Prolific ID in the link
    page.wait_for_selector("#problem")
    assert_accessible(page, context="an incomplete link")

    page.goto(live_server.url + entry_url(study, pid(1)))
    press_when_focused(page, "Enter")
    page.wait_for_selector("#consent")
    page.click("button[value=no]")
    page.wait_for_selector("#declined")
    assert_accessible(page, context="consent declined")

    paused = STUDIES["implicature"](name="paused", status=Study.Status.LIVE)
    study_set_status(study=paused, status=Study.Status.PAUSED)
    page.goto(live_server.url + entry_url(paused, pid(2)))
    press_when_focused(page, "Enter")
    page.wait_for_selector("#problem >> text=This study is paused")
    assert_accessible(page, context="a paused study")

    done = STUDIES["implicature"](name="no closing questions")
    page.goto(live_server.url + entry_url(done, pid(3)))
    through_consent_and_instructions(page)
    for _ in each_item(page, Participant.objects.get(study=done)):
        page.keyboard.press("y")
    stay = page.locator("#stay-here")
    stay.wait_for()
    assert_accessible(page, context="the done page")
    assert page.locator("#return-to-prolific").get_attribute("data-return-after") == "4"
    stay.click()
    assert stay.is_hidden() and "You stay on this page" in page.inner_text("#return-notice")
    page.wait_for_timeout(5000)  # past the four seconds: still here
    assert page.locator("#done").is_visible()
    page.screenshot(path=str(artifacts / "done-stay.png"), full_page=True)


def test_the_researchers_main_pages_pass_axe_and_reflow_at_320_px(live_server, page, researcher):
    study = STUDIES["implicature"](owner=researcher)
    Bot(study, pid(1)).complete()
    page.goto(live_server.url + reverse("login"))
    assert_accessible(page, context="sign-in")
    sign_in(page, live_server, researcher)
    pages = {
        "study list": reverse("results:list"),
        "new study": reverse("studies:new"),
        "new study form": reverse("studies:new") + "?benchmark=implicature",
        "study page": reverse("studies:detail", args=[study.pk]),
        "results": reverse("results:study", args=[study.pk]),
        "live monitor": reverse("results:monitor", args=[study.pk]),
    }
    for name, path in pages.items():
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        assert_accessible(page, context=name)
        page.set_viewport_size({"width": 320, "height": 640})
        assert_no_horizontal_scroll(page, context=f"{name} at 320 px")
        assert_accessible(page, context=f"{name} at 320 px")
