"""AmbiBench for people (Tamkin et al., Sections 4.2-4.3, Appendix F) over HTTP."""

from __future__ import annotations

import re

import pytest

from annotation.models import Item
from parity.benchmarks.ambibench.benchmark import ORIENTING_INSTRUCTIONS
from studies.models import Participant, Response
from tests.annotation.helpers import ambibench_study, answered_labels, import_ambibench, without_csrf
from tests.factories import Bot, form_item, pid

pytestmark = pytest.mark.django_db

FLIP = {"X": "Y", "Y": "X"}


@pytest.fixture
def ambibench(db):
    return import_ambibench()


def _started(study, n: int) -> Bot:
    bot = Bot(study, pid(n))
    bot.enter()
    bot.post("consent", {"agree": "yes"})
    return bot


def _page_is_the_same_whatever_the_gold(bot: Bot, item: Item) -> str:
    """Render the page, swap the current item's gold X<->Y, render again: nothing may differ."""
    html = bot.step().content.decode()
    Item.objects.filter(pk=item.pk).update(gold=FLIP[item.gold])
    flipped = bot.step().content.decode()
    Item.objects.filter(pk=item.pk).update(gold=item.gold)
    assert without_csrf(flipped) == without_csrf(html), "the current sentence's label leaks into the page"
    return html


def test_a_scripted_participant_types_through_an_episode_seeing_each_label_only_after_answering(ambibench):
    study = ambibench_study()
    bot = _started(study, 1)
    instructions = bot.step().content.decode()
    assert all(text.replace("'", "&#x27;") in instructions for text in ORIENTING_INSTRUCTIONS)
    bot.post("begin", {})
    participant = bot.participant
    items = [Item.objects.get(pk=item_id) for item_id in participant.sequence]
    assert len(items) == 20 and len({item.prompt["episode"] for item in items}) == 1
    assert [item.prompt["position"] for item in items] == list(range(1, 21))
    typed = ["x", "Y", "y.", "X ", "'y'"] * 4
    for position, item in enumerate(items, start=1):
        html = _page_is_the_same_whatever_the_gold(bot, item)
        # the history lists exactly the answered sentences, each with its correct label
        assert answered_labels(html) == [
            (earlier.prompt["position"], earlier.gold) for earlier in items[: position - 1]
        ]
        assert f'id="current-example" data-position="{position}"' in html and item.prompt["sentence"] in html
        assert html.count('class="label-shown"') == position - 1
        bot.post("answer", {"item": item.pk, "position": position, "answer": typed[position - 1]})
        if position < 20:
            after = bot.step().content.decode()
            assert answered_labels(after)[-1] == (position, item.gold), "the correct label replaces the answer"
    participant.refresh_from_db()
    assert participant.status == Participant.Status.COMPLETED
    responses = list(Response.objects.filter(participant=participant).order_by("position"))
    assert [r.raw_answer for r in responses] == typed
    assert [r.answer for r in responses] == ["X", "Y", "Y", "X", "Y"] * 4 and all(r.valid for r in responses)
    for response, item in zip(responses, items):
        assert response.correct == (response.answer == item.gold)


def test_a_second_answer_to_the_same_sentence_is_ignored(ambibench):
    study = ambibench_study()
    bot = _started(study, 2)
    bot.post("begin", {})
    first = Item.objects.get(pk=bot.participant.sequence[0])
    bot.post("answer", {"item": first.pk, "position": 1, "answer": FLIP[first.gold].lower()})
    again = bot.post("answer", {"item": first.pk, "position": 1, "answer": first.gold})
    assert again.status_code == 200
    stored = Response.objects.get(participant=bot.participant)
    assert (stored.raw_answer, stored.answer, stored.valid, stored.correct) == (
        FLIP[first.gold].lower(),
        FLIP[first.gold],
        True,
        False,
    )
    assert bot.participant.answered == 1
    # the page shows the correct label of sentence 1, whatever was typed
    assert answered_labels(bot.step().content.decode()) == [(1, first.gold)]


def test_maybe_is_asked_again_storing_nothing_then_x_is_stored(ambibench):
    study = ambibench_study()
    bot = _started(study, 8)
    bot.post("begin", {})
    first = Item.objects.get(pk=bot.participant.sequence[0])
    page = bot.post("answer", {"item": first.pk, "position": 1, "answer": "maybe"})
    html = page.content.decode()
    assert page.status_code == 422
    assert "Please type X or Y (“maybe” is neither), then press Enter. Your answer has not been saved yet." in html
    # the same sentence again, its box empty and focused for the X or Y
    assert 'id="current-example" data-position="1"' in html and first.prompt["sentence"] in html
    assert re.search(r'<input type="text" id="answer-box" class="label-box" name="answer" required autofocus', html)
    assert 'value="maybe"' not in html and answered_labels(html) == []
    assert not Response.objects.filter(participant=bot.participant).exists() and bot.participant.answered == 0
    bot.post("answer", {"item": first.pk, "position": 1, "answer": "x"})
    stored = Response.objects.get(participant=bot.participant)
    assert (stored.position, stored.raw_answer, stored.answer, stored.valid) == (1, "x", "X", True)
    assert stored.correct == (first.gold == "X") and bot.participant.answered == 1


def test_with_htmx_a_refusal_swaps_in_the_same_sentence_with_the_message(ambibench):
    study = ambibench_study()
    bot = _started(study, 9)
    bot.post("begin", {})
    first = Item.objects.get(pk=bot.participant.sequence[0])
    answer_url = f"/s/{study.link}/answer/"
    partial = bot.client.post(
        answer_url,
        {"item": form_item(bot.participant.pk, 1, first.pk), "position": 1, "answer": "xy"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert partial.startswith('<section id="item-area"') and "<html" not in partial
    assert '<p class="error" role="alert">Please type X or Y (“xy” is neither)' in partial
    assert 'data-position="1"' in partial and "autofocus" in partial
    assert not Response.objects.filter(participant=bot.participant).exists()


def test_an_empty_box_is_not_an_answer(ambibench):
    study = ambibench_study()
    bot = _started(study, 3)
    bot.post("begin", {})
    item = Item.objects.get(pk=bot.participant.sequence[0])
    page = bot.post("answer", {"item": item.pk, "position": 1, "answer": "  "})
    assert page.status_code == 422 and "Please type X or Y, then press Enter." in page.content.decode()
    assert not Response.objects.filter(participant=bot.participant).exists()


def test_with_htmx_the_answer_swaps_in_the_next_sentence_under_the_labelled_ones(ambibench):
    study = ambibench_study()
    bot = _started(study, 4)
    bot.post("begin", {})
    items = [Item.objects.get(pk=item_id) for item_id in bot.participant.sequence[:2]]
    partial = bot.client.post(
        f"/s/{study.link}/answer/",
        {"item": form_item(bot.participant.pk, 1, items[0].pk), "position": 1, "answer": "X"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert partial.startswith('<section id="item-area"') and "<html" not in partial
    assert answered_labels(partial) == [(1, items[0].gold)]
    assert items[1].prompt["sentence"] in partial and "autofocus" in partial


def test_the_three_example_page_shows_both_labelled_examples_and_the_query_at_once(ambibench):
    study = ambibench_study("ambibench 4.2", split="instruction", instruction="inform")
    bot = _started(study, 5)
    bot.post("begin", {})
    participant = bot.participant
    assert participant.total == 1
    item = Item.objects.get(pk=participant.sequence[0])
    html = _page_is_the_same_whatever_the_gold(bot, item)
    assert 'id="ambibench-instruction"' in html and item.prompt["instruction"].replace("'", "&#x27;") in html
    for sentence, _label in item.prompt["examples"]:
        assert sentence in html
    assert html.count('class="label-shown"') == 2 and item.prompt["query"] in html
    bot.post("answer", {"item": item.pk, "position": 1, "answer": item.gold.lower()})
    response = Response.objects.get(participant=participant)
    assert response.correct and response.answer == item.gold
    assert bot.participant.status == Participant.Status.COMPLETED


def test_no_participant_takes_two_ambibench_studies_of_a_group(ambibench):
    first = ambibench_study("ambibench A", group="ambibench-2026")
    second = ambibench_study("ambibench B", group="ambibench-2026")
    browser = Bot(first, pid(6))
    browser.complete()
    refused = Bot(second, pid(6), client=browser.client).enter()
    assert "You have already taken part" in refused.content.decode()
    assert not Participant.objects.filter(study=second).exists()
    assert Bot(second, pid(7)).enter().status_code == 200 and Participant.objects.filter(study=second).count() == 1
