from __future__ import annotations

import pytest

from studies.models import Participant, Response
from tests.browser.helpers import each_item, through_consent_and_instructions
from tests.factories import entry_url, pid, small_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.usefixtures("prolific_standin")
def test_a_participant_completes_a_short_study_with_the_keyboard(live_server, page, artifacts, implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    study = small_study("browser pilot", units=1, unit_size=6, per_unit=1, attention_checks=2)
    page.goto(live_server.url + entry_url(study, pid(77)))
    page.wait_for_selector("#start")
    assert not Participant.objects.filter(study=study).exists(), "opening the link reserves nothing"
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study)
    for position, item in each_item(page, participant):
        assert item.meta.get("implicature", "@@") not in page.content()
        if position == 3:
            page.screenshot(path=str(artifacts / "implicature-item.png"), full_page=True)
        page.keyboard.press("y" if item.gold == "yes" else "2")
    page.wait_for_selector("#prolific", timeout=15000)
    assert page.url == f"https://app.prolific.com/submissions/complete?cc={study.completion_code}"
    participant.refresh_from_db()
    assert participant.status == Participant.Status.COMPLETED
    answers = Response.objects.filter(participant=participant)
    assert answers.count() == participant.total == 8
    assert all(answers.values_list("correct", flat=True))
