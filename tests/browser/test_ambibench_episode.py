from __future__ import annotations

import pytest

from annotation.models import Item
from studies.models import Participant, Response
from tests.annotation.helpers import ambibench_study, import_ambibench
from tests.browser.helpers import press_when_focused
from tests.factories import entry_url, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_participant_types_through_a_twenty_sentence_episode_with_the_keyboard(live_server, page, artifacts):
    import_ambibench()
    study = ambibench_study("browser episode")
    page.goto(live_server.url + entry_url(study, pid(88)))
    page.wait_for_selector("#start")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#consent")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#instructions >> text=Continue the pattern")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#ambibench-episode")
    participant = Participant.objects.get(study=study)
    items = [Item.objects.get(pk=item_id) for item_id in participant.sequence]
    typed = []
    for position, item in enumerate(items, start=1):
        page.wait_for_selector(f'#current-example[data-position="{position}"]')
        assert page.locator("#episode-history li").count() == position - 1
        assert page.locator("#current-example .label-shown").count() == 0
        # the box takes the focus (autofocus on load, participant.js after a swap) before the person types
        page.wait_for_function("document.activeElement?.id === 'answer-box'", timeout=5000)
        if position == 12:
            page.screenshot(path=str(artifacts / "ambibench-episode-12.png"), full_page=True)
        # right from the fifth sentence on, with a wrong and an invalid answer early
        answer = {1: "q", 2: "x", 3: "Y"}.get(position, item.gold.lower())
        typed.append(answer)
        page.keyboard.type(answer)
        page.keyboard.press("Enter")
        if position < len(items):
            shown = page.locator(f'#episode-history li[data-position="{position}"] .label-shown')
            shown.wait_for()
            assert shown.inner_text() == item.gold, "the correct label replaces the answer"
    page.wait_for_selector("#prolific", timeout=15000)
    assert page.url == f"https://app.prolific.com/submissions/complete?cc={study.completion_code}"
    responses = list(Response.objects.filter(participant=participant).order_by("position"))
    assert [r.raw_answer for r in responses] == typed and len(responses) == 20
    assert (responses[0].valid, responses[0].correct) == (False, False)
    assert all(r.correct for r in responses[3:])
