"""Instruction induction for people: the writing page, and the researcher's manual verification."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.contrib.auth.models import Permission
from django.utils.html import escape

from annotation.models import Item
from studies.models import Participant, Response
from studies.participants.answers import responses_verify
from studies.selectors import verification_summary
from studies.setup.studies import study_create
from tests import personas
from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db

WRITTEN = "Write the word that means the opposite of the input."


@pytest.fixture
def induction(instruction_induction):
    return instruction_induction


def _study(name: str = "induction pilot", owner=None, **design):
    return study_create(
        name=name,
        benchmark="instruction_induction",
        owner=owner,
        design={"tasks_per_participant": 3, "annotators_per_task": 1, **design},
    )


def _started(study, n: int) -> Bot:
    bot = Bot(study, pid(n))
    bot.start_items()
    return bot


def test_each_participant_writes_for_several_tasks_balanced_over_tasks(induction):
    study = _study()
    assert study.units.count() == 8 and {unit.capacity for unit in study.units.all()} == {1}
    tasks = Counter(item.meta["task"] for unit in study.units.all() for item in unit.items.all())
    assert len(tasks) == 24 and set(tasks.values()) == {1}
    assert all(len({item.meta["task"] for item in unit.items.all()}) == 3 for unit in study.units.all())


def test_the_page_shows_the_prompt_as_models_see_it_and_never_the_item_key(induction):
    study = _study()
    bot = _started(study, 1)
    for position in range(1, 4):
        html = bot.step().content.decode()
        item_id, _ = bot.current_form(html)
        item = Item.objects.get(pk=item_id)
        assert escape(item.prompt["text"]) in html and html.rstrip().count("The instruction was") >= 1
        assert item.key not in html
        task = item.meta["task"]
        assert task not in html or task in item.prompt["text"], "the task's name is never rendered"
        assert re.search(r'<textarea[^>]*name="answer"[^>]*minlength="15"', html)
        bot.post("answer", {"item": item_id, "position": position, "answer": f"{WRITTEN} ({position})"})
    assert bot.participant.status == Participant.Status.COMPLETED


def test_a_too_short_instruction_gets_a_message_and_is_not_stored(induction):
    study = _study(min_chars=20)
    bot = _started(study, 2)
    item_id, position = bot.current_form(bot.step().content.decode())
    page = bot.post("answer", {"item": item_id, "position": position, "answer": "  Opposites.  ", "pasted": "true"})
    html = page.content.decode()
    assert page.status_code == 422
    assert "at least 20 characters (you wrote 10)" in html and "has not been saved" in html
    assert ">  Opposites.  </textarea>" in html and 'name="pasted" value="true"' in html, "what was typed is kept"
    assert not Response.objects.exists()
    bot.post("answer", {"item": item_id, "position": position, "answer": WRITTEN, "pasted": "true"})
    response = Response.objects.get(participant=bot.participant)
    assert response.raw_answer == WRITTEN and response.valid and response.extra["pasted"] is True


def test_a_long_instruction_is_stored_whole(induction):
    """The page lets a person write up to 4,000 characters; every one of them is kept, in the
    answer as in the raw answer (PostgreSQL refused an answer over 200 characters and lost it)."""
    bot = _started(_study(), 4)
    item_id, position = bot.current_form(bot.step().content.decode())
    written = " ".join([WRITTEN] * 40)[:3990]
    page = bot.post("answer", {"item": item_id, "position": position, "answer": written})
    assert page.status_code in (200, 302)
    response = Response.objects.get(participant=bot.participant)
    assert response.raw_answer == written and response.answer == written and response.valid


def test_typing_without_pasting_records_no_paste(induction):
    bot = _started(_study(), 3)
    item_id, position = bot.current_form(bot.step().content.decode())
    bot.post("answer", {"item": item_id, "position": position, "answer": WRITTEN, "pasted": ""})
    assert Response.objects.get(participant=bot.participant).extra.get("pasted") is None


def _written(study, participants: int) -> list[Response]:
    for n in range(participants):
        Bot(study, pid(50 + n)).complete(choose=lambda item: WRITTEN)
    return list(Response.objects.filter(participant__study=study).select_related("item").order_by("pk"))


def test_the_admin_verification_marks_answers_and_changes_the_share_correct(induction, researcher_client, researcher):
    study = _study(tasks_per_participant=2, annotators_per_task=2, owner=researcher)
    responses = _written(study, 24)  # 24 units of 2 tasks: every task written twice
    by_task: dict[str, list[Response]] = {}
    for response in responses:
        by_task.setdefault(response.item.meta["task"], []).append(response)
    antonyms, sums = by_task["antonyms"], by_task["sum"]
    assert len(antonyms) == 2 and len(sums) == 2

    def row(task: str):
        return next(r for r in verification_summary(study) if r.category == task)

    assert (row("antonyms").written, row("antonyms").verified, row("antonyms").share_correct) == (2, 0, None)
    changelist = "/admin/studies/response/"
    researcher_client.post(changelist, {"action": "mark_correct", "_selected_action": [r.pk for r in antonyms]})
    researcher_client.post(changelist, {"action": "mark_correct", "_selected_action": [sums[0].pk]})
    researcher_client.post(changelist, {"action": "mark_incorrect", "_selected_action": [sums[1].pk]})
    assert row("antonyms").share_correct == 1.0 and row("sum").share_correct == 0.5
    summary = researcher_client.get("/admin/studies/response/verification/").content.decode()
    assert re.search(r'data-category="sum">.*?<td class="share">50%</td>', summary, re.S)
    assert re.search(r'data-category="antonyms">.*?<td class="share">100%</td>', summary, re.S)
    researcher_client.post(changelist, {"action": "mark_incorrect", "_selected_action": [antonyms[0].pk]})
    assert row("antonyms").share_correct == 0.5
    marked = Response.objects.get(pk=antonyms[0].pk)
    assert marked.verified_correct is False and marked.verified_by == researcher and marked.verified_at
    # the answer itself is untouched
    assert (marked.raw_answer, marked.answer, marked.valid, marked.correct) == (WRITTEN, WRITTEN, True, False)
    listing = researcher_client.get(f"{changelist}?participant__study__id__exact={study.pk}&verified=incorrect")
    assert listing.content.decode().count('class="action-select"') == 2


def test_only_written_answers_are_marked_and_only_by_those_allowed(induction, client, django_user_model, researcher):
    study = _study()
    response = _written(study, 1)[0]
    result = responses_verify(response_ids=[response.pk, 10**9], correct=True, user=researcher)
    assert (result.marked, result.skipped) == (1, 1)
    assistant = personas.assistant("assistant", ["studies.view_response"], on=[study])
    client.force_login(assistant)
    client.post("/admin/studies/response/", {"action": "mark_incorrect", "_selected_action": [response.pk]})
    assert Response.objects.get(pk=response.pk).verified_correct is True
    assistant.user_permissions.add(Permission.objects.get(codename="verify_response"))
    client.force_login(django_user_model.objects.get(pk=assistant.pk))
    client.post("/admin/studies/response/", {"action": "mark_incorrect", "_selected_action": [response.pk]})
    assert Response.objects.get(pk=response.pk).verified_correct is False
