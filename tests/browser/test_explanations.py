from __future__ import annotations

import pytest

from studies.models import Participant, Response
from tests.browser.helpers import each_item, through_consent_and_instructions
from tests.factories import entry_url, pid, small_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_participant_types_why_and_it_is_stored_with_the_answer(live_server, page, artifacts, implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    study = small_study(
        "why in the browser", units=1, unit_size=2, per_unit=1, attention_checks=1, explanations="every"
    )
    page.goto(live_server.url + entry_url(study, pid(8)))
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    for position, _item in each_item(page, participant):
        page.fill("#explanation", f"My reason {position}")
        if position == 1:
            page.screenshot(path=str(artifacts / "explanation-box.png"), full_page=True)
        # a key typed into the box stays text: the answer buttons' keys do not fire there
        page.locator("#explanation").press("y")
        page.locator("button.choice").first.click()
    page.wait_for_selector("#completion-code")
    stored = list(Response.objects.filter(participant=participant).values_list("position", "explanation"))
    assert stored == [(p, f"My reason {p}y") for p in range(1, participant.total + 1)]
