"""A participant answers a researcher's own items in a real browser: keys for buttons, Enter in a
box, Ctrl+Enter in a text area, and a number that does not parse refused on the page."""

from __future__ import annotations

import pytest

from annotation.services import benchmark_import
from studies.models import Participant, Response
from studies.setup.studies import study_create
from tests.browser.helpers import each_item, through_consent_and_instructions, wait_until_interactive
from tests.factories import entry_url, pid
from tests.paths import REPO

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"
TYPED = {"symbol": "Au", "author": "Jane Austen", "legs": "8", "pi": "3.14", "summary": "Rivers build deltas."}


@pytest.mark.usefixtures("prolific_standin")
def test_a_participant_answers_every_kind_of_their_own_items(live_server, page, artifacts):
    benchmark_import(name="custom", source=EXAMPLE, options={"name": "example"})
    study = study_create(
        name="own items in a browser",
        benchmark="custom",
        design={"item_set": "example", "unit_size": 0, "per_unit": 1, "attention_checks": 1},
    )
    page.goto(live_server.url + entry_url(study, pid(78)))
    page.wait_for_selector("#start")
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    for _, item in each_item(page, participant):
        key = item.meta["id"]
        if key in TYPED:
            box = page.locator("#answer-box")
            if key == "legs":
                box.fill("eight")
                box.press("Enter")
                page.wait_for_selector("#item-area .error >> text=Please type a number")
                wait_until_interactive(page)
                box = page.locator("#answer-box")
            if key == "author":
                page.screenshot(path=str(artifacts / "custom-item.png"), full_page=True)
            box.fill(TYPED[key])
            box.press("Control+Enter" if key == "summary" else "Enter")
        elif item.meta["kind"] == "yes_no":
            page.keyboard.press("y")
        elif item.meta["kind"] == "rating":
            page.keyboard.press("4")
        else:
            page.keyboard.press(str(item.prompt["options"].index(item.gold) + 1))
    page.wait_for_selector("#prolific", timeout=15000)
    answers = {r.item.meta["id"]: r for r in Response.objects.filter(participant=participant).select_related("item")}
    assert len(answers) == 9
    assert all(answers[key].correct for key in ("capital", "boiling", "symbol", "author", "legs", "pi", "check"))
    assert answers["clarity"].answer == "4" and answers["summary"].raw_answer == TYPED["summary"]
