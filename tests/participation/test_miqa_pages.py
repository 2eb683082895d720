"""MiQA for people: binary questions in a per-participant option order, and rating generative answers."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

import pytest
from django.core.management import CommandError, call_command
from django.utils.html import escape

from annotation.models import Item
from annotation.services import rating_items_from_answers
from parity.benchmarks.base import DatasetError
from parity.benchmarks.miqa import generative_prompt
from studies.models import Response
from studies.setup.studies import study_create
from tests.annotation.helpers import button_values, import_miqa, without_csrf, without_item_token
from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db


@pytest.fixture
def miqa(db):
    return import_miqa()


def _screen_order(html: str, item: Item) -> list[str]:
    """The option keys in on-screen order, read from where each option's text stands among the buttons."""
    buttons = html[html.index('role="group"') :]
    return sorted(item.prompt["options"], key=lambda key: buttons.index(escape(item.prompt["options"][key])))


def _walk(bot: Bot, pick) -> list[str]:
    """Answer every question by on-screen position (`pick(item, keys_on_screen) -> index`); returns the orders seen."""
    bot.start_items()
    seen = []
    for html, item, position in bot.item_pages():
        item_id = item.pk
        assert button_values(html) == ["1", "2"], "a button posts its screen position, not its option"
        keys = _screen_order(html, item)
        seen.append("".join(keys))
        bot.post(
            "answer", {"item": item_id, "position": position, "answer": str(pick(item, keys) + 1), "option_order": "ab"}
        )  # what the browser claims is ignored
    return seen


def test_the_option_order_is_random_per_participant_stored_with_the_answer_and_scoring_ignores_it(miqa):
    study = study_create(name="miqa pilot", benchmark="miqa", design={"unit_size": 8, "per_unit": 7})
    orders_by_item: dict[int, list[str]] = defaultdict(list)
    for n in range(6):
        bot = Bot(study, pid(100 + n))
        seen = _walk(bot, pick=lambda item, keys: keys.index(item.gold))  # always the right option
        responses = list(Response.objects.filter(participant=bot.participant).order_by("position"))
        assert [r.extra["option_order"] for r in responses] == seen
        assert all(r.correct and r.answer == r.item.gold for r in responses)
        assert all(r.raw_answer == str(r.extra["option_order"].index(r.answer) + 1) for r in responses)
        for response in responses:
            orders_by_item[response.item_id].append(response.extra["option_order"])
    shown = Counter(order for orders in orders_by_item.values() for order in orders)
    assert len(orders_by_item) == 8 and shown["ab"] + shown["ba"] == 48
    assert shown["ab"] >= 10 and shown["ba"] >= 10, "each order is drawn per participant and item"
    assert any(set(orders) == {"ab", "ba"} for orders in orders_by_item.values())
    # the same participant sees the same order on a refresh
    again = Bot(study, pid(200))
    again.start_items()
    first, second = again.step().content.decode(), again.step().content.decode()
    item = Item.objects.get(pk=again.current_form(first)[0])
    assert _screen_order(first, item) == _screen_order(second, item)


def test_always_pressing_1_is_right_or_wrong_depending_on_the_order_shown(miqa):
    study = study_create(name="miqa first", benchmark="miqa", design={"unit_size": 20, "per_unit": 1})
    bot = Bot(study, pid(300))
    _walk(bot, pick=lambda item, keys: 0)
    for response in Response.objects.filter(participant=bot.participant):
        assert response.raw_answer == "1" and response.answer == response.extra["option_order"][0]
        assert response.correct == (response.answer == response.item.gold)
    assert 0 < Response.objects.filter(participant=bot.participant, correct=True).count() < 20


def test_an_answer_outside_the_options_is_refused(miqa):
    study = study_create(name="miqa refuse", benchmark="miqa", design={"unit_size": 2, "per_unit": 1})
    bot = Bot(study, pid(301))
    bot.start_items()
    item_id, position = bot.current_form(bot.step().content.decode())
    for raw in ("c", "3", "0", ""):
        page = bot.post("answer", {"item": item_id, "position": position, "answer": raw})
        assert page.status_code == 422 and "Please choose one of the answers" in page.content.decode()
    assert not Response.objects.exists()


# -- the page must not give the answer away (issue: 40 of 40 right from the page source) ----------


def _normalised(html: str, item: Item) -> str:
    """The page with what differs by design blanked: the question, the option texts, the numbers."""
    for text in [item.prompt["question"], *item.prompt["options"].values()]:
        html = html.replace(escape(text), "")
    return re.sub(r"\d+", "#", without_item_token(without_csrf(html)))


@pytest.mark.parametrize("shuffle", [True, False])
def test_the_page_carries_nothing_that_identifies_the_correct_option(miqa, shuffle):
    """Every question's page, attention checks included, is the same HTML once its texts and
    numbers are blanked: no value, attribute or order in it tells the correct option."""
    study = study_create(
        name=f"miqa source {shuffle}",
        benchmark="miqa",
        design={"unit_size": 40, "per_unit": 1, "attention_checks": 3, "shuffle_options": shuffle},
    )
    bot = Bot(study, pid(310))
    bot.start_items()
    pages, correct_positions = set(), Counter()
    for html, item, position in bot.item_pages():
        item_id = item.pk
        pages.add(_normalised(html, item))
        correct = _screen_order(html, item).index(item.gold) + 1
        correct_positions[(item.prompt["direction"], correct)] += 1
        assert bot.post("answer", {"item": item_id, "position": position, "answer": str(correct)}).status_code == 200
    assert len(pages) == 1
    assert Response.objects.filter(participant=bot.participant).count() == 43
    assert all(r.correct for r in Response.objects.filter(participant=bot.participant))
    # the correct position is not predicted by the question's direction, with or without shuffling
    for direction in ("implies", "implied-by"):
        assert correct_positions[(direction, 1)] >= 5 and correct_positions[(direction, 2)] >= 5


def test_posting_option_keys_as_the_page_source_once_suggested_is_refused(miqa):
    """The old leak: the key of the correct option followed from the direction ("implies" -> b)."""
    study = study_create(name="miqa keys", benchmark="miqa", design={"unit_size": 40, "per_unit": 1})
    bot = Bot(study, pid(311))
    bot.start_items()
    item_id, position = bot.current_form(bot.step().content.decode())
    item = Item.objects.get(pk=item_id)
    for key in ("a", "b", item.gold):
        page = bot.post("answer", {"item": item_id, "position": position, "answer": key})
        assert page.status_code == 422 and "Please choose one of the answers" in page.content.decode()
    assert not Response.objects.exists()
    # guessing the position from the direction (the keys' old rule) scores about half, not all
    for _, item, position in bot.item_pages():
        guess = "2" if item.prompt["direction"] == "implies" else "1"
        assert bot.post("answer", {"item": item.pk, "position": position, "answer": guess}).status_code == 200
    right = Response.objects.filter(participant=bot.participant, correct=True).count()
    assert Response.objects.filter(participant=bot.participant).count() == 40
    assert 10 <= right <= 30


def test_without_shuffling_every_participant_sees_one_random_order_per_question(miqa):
    study = study_create(
        name="miqa fixed", benchmark="miqa", design={"unit_size": 20, "per_unit": 2, "shuffle_options": False}
    )
    orders = []
    for n in range(2):
        bot = Bot(study, pid(320 + n))
        _walk(bot, pick=lambda item, keys: 0)
        orders.append(
            {r.item_id: r.extra["option_order"] for r in Response.objects.filter(participant=bot.participant)}
        )
    assert orders[0] == orders[1]
    assert set(orders[0].values()) == {"ab", "ba"}


# -- rating the generative task ---------------------------------------------------------------


def _answers_file(tmp_path, records):
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


ANSWERS = [
    {"question_id": "miqa-001-generative", "model": "palm-540b", "answer": "No. It is a figure of speech."},
    {"question_id": "miqa-002-generative", "model": "palm-540b", "answer": "Yes, it could."},
    {"question_id": "miqa-001-generative", "model": "smollm2", "answer": "Maybe."},
]


def test_generative_answers_are_imported_from_a_jsonl_file_and_rated_by_several_raters(miqa, tmp_path, capsys):
    path = _answers_file(tmp_path, ANSWERS)
    call_command("import_benchmark", "miqa_rating", "--source", str(path))
    items = Item.objects.filter(benchmark="miqa_rating").order_by("key")
    assert items.count() == 3
    implies = Item.objects.get(benchmark="miqa", meta__row=1, meta__direction="implies")
    first = items.get(key="miqa-001-generative/palm-540b")
    assert first.prompt["question"] == generative_prompt(implies.prompt) and first.gold == ""
    assert first.meta["model"] == "palm-540b" and "palm" not in json.dumps(first.prompt)
    call_command("import_benchmark", "miqa_rating", "--source", str(path))
    assert "0 created, 0 updated, 3 unchanged" in capsys.readouterr().out

    study = study_create(name="rating study", benchmark="miqa_rating", design={"models": "palm-540b", "per_unit": 3})
    assert [unit.unit_items.count() for unit in study.units.all()] == [2] and study.units.get().capacity == 3
    for n, rating in enumerate(["correct", "ambiguous", "wrong"]):
        bot = Bot(study, pid(400 + n))
        bot.start_items()
        html = bot.step().content.decode()
        assert button_values(html) == ["correct", "ambiguous", "wrong"] and "palm" not in html
        refused = bot.answer_current(choose=lambda item: "fine")
        assert refused.status_code == 422
        bot.complete(choose=lambda item, rating=rating: rating)
        assert list(bot.participant.responses.values_list("answer", "valid")) == [(rating, True)] * 2
    assert "This study is full" in Bot(study, pid(499)).enter().content.decode()


def test_the_importer_wants_a_file_and_miqa_first(db, tmp_path):
    path = _answers_file(tmp_path, ANSWERS)
    with pytest.raises(CommandError, match="no MiQA questions are imported"):
        call_command("import_benchmark", "miqa_rating", "--source", str(path))
    with pytest.raises(CommandError, match="reads one file"):
        call_command("import_benchmark", "miqa_rating", "--source", str(tmp_path))


def test_a_model_run_hands_its_answers_over_in_memory(miqa):
    result = rating_items_from_answers([dict(record) for record in ANSWERS[:2]])
    assert result.created == 2 and Item.objects.filter(benchmark="miqa_rating").count() == 2
    assert rating_items_from_answers([dict(record) for record in ANSWERS[:2]]).unchanged == 2
    with pytest.raises(DatasetError, match="row 2: unknown question_id 'miqa-999-generative'"):
        rating_items_from_answers([ANSWERS[2], {"question_id": "miqa-999-generative", "model": "m", "answer": ""}])
    with pytest.raises(DatasetError, match="row 1: missing field"):
        rating_items_from_answers([{"question_id": "miqa-001-generative", "answer": "x"}])
    assert Item.objects.filter(benchmark="miqa_rating").count() == 2
