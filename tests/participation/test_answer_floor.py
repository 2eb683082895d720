"""An answer that arrives too soon after its item was shown to have been read is refused: a second key
press or tap meant for the item before must not answer this one unseen (the study's floor)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from freezegun import freeze_time

from annotation.models import Item
from studies.models import Response, Study
from studies.participants.answers import TOO_SOON_MESSAGE, Outcome, response_submit
from studies.setup.studies import study_create
from tests.factories import Bot, form_item, pid, small_study

pytestmark = pytest.mark.django_db


def _post_current(bot: Bot, *, htmx: bool = False):
    item_id, position = bot.current_form(bot.step().content.decode())
    item = Item.objects.get(pk=item_id)
    response = bot.client.post(
        f"/s/{bot.study.link}/answer/",
        {"item": form_item(bot.participant.pk, position, item_id), "position": position, "answer": item.gold},
        headers={"HX-Request": "true"} if htmx else {},
    )
    return item_id, response


@pytest.mark.parametrize("htmx", [False, True], ids=["form", "htmx"])
def test_an_answer_sooner_than_the_floor_stores_nothing_and_shows_the_item_again(implicature, htmx):
    study = small_study("floor", units=1, unit_size=3, per_unit=1, attention_checks=1, min_answer_ms=800)
    with freeze_time(timezone.now()) as clock:
        bot = Bot(study, pid(1)).start_items()
        clock.tick(timedelta(milliseconds=250))  # a second key press, 250 ms after the item came
        item_id, response = _post_current(bot, htmx=htmx)
        assert response.status_code == (200 if htmx else 422)
        html = response.content.decode()
        assert TOO_SOON_MESSAGE in html
        assert bot.current_form(html) == (item_id, 1), "the same item, shown again"
        assert not Response.objects.filter(participant__study=study).exists()
        assert bot.participant.answered == 0

        clock.tick(timedelta(milliseconds=600))  # read now: 850 ms after it was first shown
        again, response = _post_current(bot, htmx=htmx)
        assert again == item_id
        stored = Response.objects.get(participant__study=study)
        assert stored.item_id == item_id and stored.duration_ms == 850, "timed from when it was first shown"
        assert bot.participant.answered == 1


def test_the_next_items_floor_counts_from_when_it_came_with_the_answer_before(implicature):
    """With htmx the next item comes in the answer's response: its clock starts there, so a press
    meant for the answered item that lands on the next one is refused."""
    study = small_study("floor chain", units=1, unit_size=3, per_unit=1, attention_checks=1, min_answer_ms=500)
    with freeze_time(timezone.now()) as clock:
        bot = Bot(study, pid(2)).start_items()
        participant = bot.participant
        first = participant.sequence[0]
        clock.tick(timedelta(seconds=2))
        gold = Item.objects.get(pk=first).gold
        result = response_submit(
            participant_id=participant.pk, item_id=first, position=1, raw_answer=gold, show_next=True
        )
        assert result.outcome is Outcome.STORED and result.next_item.pk == participant.sequence[1]
        clock.tick(timedelta(milliseconds=200))
        second = response_submit(
            participant_id=participant.pk, item_id=participant.sequence[1], position=2, raw_answer=gold
        )
        assert second.outcome is Outcome.TOO_SOON and second.message == TOO_SOON_MESSAGE
        assert Response.objects.filter(participant=participant).count() == 1


def test_a_floor_of_zero_takes_any_answer(implicature):
    study = small_study("no floor", units=1, unit_size=3, per_unit=1, attention_checks=1, min_answer_ms=0)
    with freeze_time(timezone.now()):
        bot = Bot(study, pid(3)).start_items()
        _post_current(bot)
    assert bot.participant.answered == 1


def test_new_studies_get_the_sites_floor(implicature, settings):
    settings.MIN_ANSWER_MS = 600
    study = study_create(name="default floor", benchmark="implicature", design={"units": 1, "unit_size": 3})
    assert study.min_answer_ms == 600


def test_create_study_sets_the_floor(implicature):
    from django.core.management import call_command

    call_command("create_study", "--benchmark", "implicature", "--name", "cli floor", "--min-answer-ms", "1500")
    assert Study.objects.get(name="cli floor").min_answer_ms == 1500
