from __future__ import annotations

import pytest

from studies.models import Participant
from tests.browser.helpers import each_item, through_consent_and_instructions
from tests.factories import entry_url, pid, small_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.usefixtures("prolific_standin")
def test_a_participant_answers_the_closing_questions_after_seeing_the_code(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    study = small_study(
        "closing in the browser",
        units=1,
        unit_size=2,
        per_unit=1,
        attention_checks=1,
        closing_questions=["age", "gender", "ai_tool", "feedback"],
    )
    page.goto(live_server.url + entry_url(study, pid(5)))
    through_consent_and_instructions(page)
    for _, item in each_item(page, Participant.objects.get(study=study)):
        page.keyboard.press("y" if item.gold == "yes" else "n")
    page.wait_for_selector("#closing-questions")
    assert page.locator("#completion-code").inner_text() == study.completion_code
    page.fill("#id_age", "29")
    page.get_by_label("Non-binary").check()
    page.get_by_label("Yes, for some answers").check()
    page.fill("#id_feedback", "The third one was hard.")
    page.wait_for_timeout(5000)  # no automatic return to Prolific while the questions are open
    assert page.locator("#closing-questions").is_visible()
    page.screenshot(path=str(artifacts / "closing-questions.png"), full_page=True)
    page.click("#send-closing")
    page.wait_for_selector("#prolific")
    assert page.url.endswith(f"?cc={study.completion_code}")
    participant = Participant.objects.get(study=study)
    assert participant.closing_answers == {
        "age": 29,
        "gender": "non_binary",
        "ai_tool": "some",
        "feedback": "The third one was hard.",
    }
