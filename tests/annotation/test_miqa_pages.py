"""MiQA for people: binary questions in a per-participant option order, and rating generative answers."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest
from django.core.management import CommandError, call_command
from django.utils.html import escape

from annotation.benchmarks.base import DatasetError
from annotation.benchmarks.miqa import generative_prompt
from annotation.models import Item, Response
from annotation.services import rating_items_from_answers
from studies.models import Participant
from studies.services import study_create
from tests.annotation.helpers import button_values, import_miqa
from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db


@pytest.fixture
def miqa(db):
    return import_miqa()


def _walk(bot: Bot, pick) -> list[str]:
    """Answer every question by on-screen position (`pick(item, values) -> index`); returns the orders seen."""
    bot.enter(); bot.post("consent", {"agree": "yes"}); bot.post("begin", {})
    seen = []
    while bot.participant.step == Participant.Step.ITEMS:
        html = bot.step().content.decode()
        item_id, position = bot.current_form(html)
        item = Item.objects.get(pk=item_id)
        values = button_values(html)
        assert sorted(values) == ["a", "b"]
        labels = [escape(item.prompt["options"][value]) for value in values]
        assert html.index(labels[0]) < html.index(labels[1]), "buttons are in the order their values say"
        seen.append("".join(values))
        bot.post("answer", {"item": item_id, "position": position, "answer": values[pick(item, values)],
                            "option_order": "ab"})  # what the browser claims is ignored
    return seen


def test_the_option_order_is_random_per_participant_stored_with_the_answer_and_scoring_ignores_it(miqa):
    study = study_create(name="miqa pilot", benchmark="miqa", design={"unit_size": 8, "per_unit": 6})
    orders_by_item: dict[int, list[str]] = defaultdict(list)
    for n in range(6):
        bot = Bot(study, pid(100 + n))
        seen = _walk(bot, pick=lambda item, values: values.index(item.gold))  # always the right option
        responses = list(Response.objects.filter(participant=bot.participant).order_by("position"))
        assert [r.extra["option_order"] for r in responses] == seen
        assert all(r.correct and r.answer == r.item.gold for r in responses)
        for response in responses:
            orders_by_item[response.item_id].append(response.extra["option_order"])
    shown = Counter(order for orders in orders_by_item.values() for order in orders)
    assert len(orders_by_item) == 8 and shown["ab"] + shown["ba"] == 48
    assert shown["ab"] >= 10 and shown["ba"] >= 10, "each order is drawn per participant and item"
    assert any(set(orders) == {"ab", "ba"} for orders in orders_by_item.values())
    # the same participant sees the same order on a refresh
    again = Bot(study, pid(200))
    again.enter(); again.post("consent", {"agree": "yes"}); again.post("begin", {})
    assert button_values(again.step().content.decode()) == button_values(again.step().content.decode())


def test_always_pressing_1_is_right_or_wrong_depending_on_the_order_shown(miqa):
    study = study_create(name="miqa first", benchmark="miqa", design={"unit_size": 20, "per_unit": 1})
    bot = Bot(study, pid(300))
    _walk(bot, pick=lambda item, values: 0)
    for response in Response.objects.filter(participant=bot.participant):
        assert response.answer == response.extra["option_order"][0]
        assert response.correct == (response.answer == response.item.gold)
    assert 0 < Response.objects.filter(participant=bot.participant, correct=True).count() < 20


def test_an_answer_outside_the_options_is_refused(miqa):
    study = study_create(name="miqa refuse", benchmark="miqa", design={"unit_size": 2, "per_unit": 1})
    bot = Bot(study, pid(301))
    bot.enter(); bot.post("consent", {"agree": "yes"}); bot.post("begin", {})
    item_id, position = bot.current_form(bot.step().content.decode())
    page = bot.post("answer", {"item": item_id, "position": position, "answer": "c"})
    assert page.status_code == 422 and "Please choose one of the answers" in page.content.decode()
    assert not Response.objects.exists()


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
    implies = Item.objects.get(benchmark="miqa", key="miqa-001-implies")
    first = items.get(key="miqa-001-generative/palm-540b")
    assert first.prompt["question"] == generative_prompt(implies.prompt) and first.gold == ""
    assert first.meta["model"] == "palm-540b" and "palm" not in json.dumps(first.prompt)
    call_command("import_benchmark", "miqa_rating", "--source", str(path))
    assert "0 created, 0 updated, 3 unchanged" in capsys.readouterr().out

    study = study_create(name="rating study", benchmark="miqa_rating", design={"models": "palm-540b", "per_unit": 3})
    assert [unit.unit_items.count() for unit in study.units.all()] == [2] and study.units.get().capacity == 3
    for n, rating in enumerate(["correct", "ambiguous", "wrong"]):
        bot = Bot(study, pid(400 + n))
        bot.enter(); bot.post("consent", {"agree": "yes"}); bot.post("begin", {})
        html = bot.step().content.decode()
        assert button_values(html) == ["correct", "ambiguous", "wrong"] and "palm" not in html
        refused = bot.answer_current(choose=lambda item: "fine")
        assert refused.status_code == 422
        bot.complete(choose=lambda item: rating)
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
