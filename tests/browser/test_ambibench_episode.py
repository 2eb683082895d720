from __future__ import annotations

import pytest

from annotation.models import Item
from studies.models import Participant, Response
from tests.annotation.helpers import ambibench_study, import_ambibench
from tests.browser.helpers import in_view, press_when_focused, wait_until_interactive
from tests.factories import entry_url, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.usefixtures("prolific_standin")
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
        wait_until_interactive(page)
        if position == 12:
            page.screenshot(path=str(artifacts / "ambibench-episode-12.png"), full_page=True)
        if position == 1:
            _a_typo_is_asked_again(page, participant, artifacts)
        # right from the fourth sentence on, after whatever the first three get
        answer = {1: "X", 2: "x", 3: "Y"}.get(position, item.gold.lower())
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
    assert all(r.valid for r in responses) and responses[0].answer == "X"
    assert all(r.correct for r in responses[3:])


def _a_typo_is_asked_again(page, participant, artifacts) -> None:
    """ "maybe" is neither label: the message names X and Y, nothing is stored, and the same
    sentence waits with an empty, focused box, so the person just types again."""
    page.keyboard.type("maybe")
    page.keyboard.press("Enter")
    message = page.locator("#item-area .error[role=alert]")
    message.wait_for()
    assert message.inner_text() == (
        "Please type X or Y (“maybe” is neither), then press Enter. Your answer has not been saved yet."
    )
    page.wait_for_function("document.activeElement?.id === 'answer-box'", timeout=5000)
    assert page.input_value("#answer-box") == ""
    assert page.locator('#current-example[data-position="1"]').count() == 1
    assert page.locator("#episode-history li").count() == 0
    assert not Response.objects.filter(participant=participant).exists()
    page.screenshot(path=str(artifacts / "ambibench-refusal.png"))
    wait_until_interactive(page)


@pytest.mark.parametrize(
    "screen", [{"width": 1280, "height": 800}, {"width": 360, "height": 740}], ids=["desktop", "phone"]
)
@pytest.mark.usefixtures("prolific_standin")
def test_the_current_sentence_and_its_box_stay_in_view_to_the_last_sentence(live_server, page, screen, artifacts):
    """However long the episode grows, the sentence to label and the box to type in are on the
    screen after every answer (the earlier sentences scroll in their own box), so no one types blind;
    sentence 20 of 20 included, on a desktop window and on a phone."""
    import_ambibench()
    study = ambibench_study(f"in view {screen['width']}")
    page.set_viewport_size(screen)
    page.goto(live_server.url + entry_url(study, pid(90)))
    page.wait_for_selector("#start")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#consent")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#instructions")
    press_when_focused(page, "Enter")
    # the first sentence shown: the server is done with the request that moved the participant on (an
    # in-memory SQLite database shared with the server refuses a read while that request still writes)
    page.wait_for_selector('#current-example[data-position="1"]')
    participant = Participant.objects.get(study=study)
    items = [Item.objects.get(pk=item_id) for item_id in participant.sequence]
    assert len(items) == 20
    for position, item in enumerate(items, start=1):
        page.wait_for_selector(f'#current-example[data-position="{position}"]')
        page.wait_for_function("document.activeElement?.id === 'answer-box'", timeout=5000)
        wait_until_interactive(page)
        for selector in ("#current-sentence", "#answer-box", "#instruction"):
            where = in_view(page, selector)
            assert 0 <= where["top"] and where["bottom"] <= where["height"], f"sentence {position}: {selector} {where}"
        if position == 20:
            page.screenshot(path=str(artifacts / f"ambibench-episode-20-{screen['width']}.png"))
            # the earlier sentences are all there, their box scrolled to the latest, which shows whole
            assert page.locator("#episode-history li").count() == 19
            latest, box = in_view(page, '#episode-history li[data-position="19"]'), in_view(page, "#episode-history")
            assert box["top"] <= latest["top"] and latest["bottom"] <= box["bottom"] + 1, (latest, box)
            assert box["bottom"] <= in_view(page, "#current-sentence")["top"]
        page.keyboard.type(item.gold)
        page.keyboard.press("Enter")
    page.wait_for_selector("#prolific", timeout=15000)
