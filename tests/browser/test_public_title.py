"""In a real browser: participants see the study's public title, never its internal name, in their tab
and on their pages, and the tab's "N of M" stays true as they answer (htmx swaps the item and the
title with it); the researcher gives the title on the new-study form."""

from __future__ import annotations

import pytest

from studies.models import Participant, Study
from tests.browser.helpers import each_item, sign_in, through_consent_and_instructions
from tests.factories import entry_url, pid, small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAME = "Implicature pilot 7 — template 2, wave B (internal)"
TITLE = "Understanding everyday sentences"


def _import_implicature(source) -> None:
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=source)


@pytest.mark.usefixtures("prolific_standin")
def test_participants_see_the_public_title_and_a_true_progress_in_their_tab(live_server, page, implicature_source):
    _import_implicature(implicature_source)
    study = small_study(NAME, units=1, unit_size=6, per_unit=1, attention_checks=2, public_title=TITLE)
    page.goto(live_server.url + entry_url(study, pid(77)))
    page.wait_for_selector("#start")
    assert page.title() == TITLE and page.inner_text("#study-title") == TITLE
    assert NAME not in page.content()
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    titles = []
    for position, item in each_item(page, participant):
        # the bar and the tab say the same, after each swap
        page.wait_for_function("text => document.title === text", arg=f"{position} of 8 — {TITLE}")
        assert page.inner_text("#progress .label") == f"{position} of 8"
        assert NAME not in page.content()
        titles.append(page.title())
        page.keyboard.press("y" if item.gold == "yes" else "2")
    assert titles == [f"{n} of 8 — {TITLE}" for n in range(1, 9)]
    page.wait_for_selector("#done, #prolific", timeout=15000)


@pytest.mark.usefixtures("prolific_standin")
def test_without_a_public_title_the_tab_says_the_step_and_never_the_name(live_server, page, implicature_source):
    _import_implicature(implicature_source)
    study = small_study(NAME, units=1, unit_size=3, per_unit=1, attention_checks=0, exclude_at=0)
    page.goto(live_server.url + entry_url(study, pid(78)))
    page.wait_for_selector("#start")
    assert page.title() == "Welcome" and page.locator("#study-title").count() == 0
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    for position, item in each_item(page, participant):
        page.wait_for_function("text => document.title === text", arg=f"{position} of 3")
        assert NAME not in page.content()
        page.keyboard.press("y" if item.gold == "yes" else "2")
    page.wait_for_selector("#done, #prolific", timeout=15000)


def test_the_researcher_gives_the_public_title_on_the_new_study_form(live_server, page, implicature_source):
    _import_implicature(implicature_source)
    sign_in(page, live_server, researcher())
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    page.fill("#id_name", NAME)
    page.fill("#id_public_title", TITLE)
    page.click("#create-study")
    page.wait_for_selector(".messages >> text=created as a draft")
    assert Study.objects.get(name=NAME).public_title == TITLE
