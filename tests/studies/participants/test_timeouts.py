"""A participant whose reservation timed out: they continue while their slot is free, and are told
politely, with nothing stored, once it has been given to someone else."""

from __future__ import annotations

import threading
from datetime import timedelta
from functools import partial

import pytest
from django.db import connections
from django.utils import timezone

from studies.models import Participant, Response, Study
from studies.participants.answers import response_submit
from studies.participants.entry import participant_enter, reservations_reclaim
from tests.factories import Bot, form_item, pid, small_study

pytestmark = pytest.mark.django_db

GIVEN_AWAY = "it has been given to another participant"


def _working(study: Study, n: int) -> Bot:
    bot = Bot(study, pid(n))
    bot.start_items()
    return bot


def _go_quiet(bot: Bot, minutes: int = 61) -> None:
    Participant.objects.filter(pk=bot.participant.pk).update(last_seen_at=timezone.now() - timedelta(minutes=minutes))


def _holding(study: Study) -> int:
    return Participant.objects.filter(study=study).holding_slot().count()


def test_an_answer_after_the_slot_was_given_away_stores_nothing_and_says_so(implicature):
    study = small_study(units=1, per_unit=1)
    late = _working(study, 1)
    late.answer_current()
    item_id, position = late.current_form(late.step().content.decode())
    _go_quiet(late)
    assert participant_enter(study=study, pid=pid(2)).participant is not None  # takes the reclaimed slot
    page = late.post("answer", {"item": item_id, "position": position, "answer": "yes"})
    assert GIVEN_AWAY in page.content.decode()
    assert Response.objects.filter(participant=late.participant).count() == 1
    assert late.participant.step == Participant.Step.RELEASED
    # answering on to the end stores nothing more and never completes: the unit stays at capacity
    late.complete()
    assert Response.objects.filter(participant=late.participant).count() == 1
    assert late.participant.status == Participant.Status.TIMED_OUT and _holding(study) == 1


def test_the_item_page_and_htmx_answers_say_the_slot_was_given_away(implicature):
    study = small_study(units=1, per_unit=1)
    late = _working(study, 3)
    item_id, position = late.current_form(late.step().content.decode())
    _go_quiet(late)
    participant_enter(study=study, pid=pid(4))
    partial = late.client.post(
        f"/s/{study.link}/answer/",
        {"item": form_item(late.participant.pk, position, item_id), "position": position, "answer": "yes"},
        HTTP_HX_REQUEST="true",
    )
    assert partial.headers["HX-Redirect"] == f"/s/{study.link}/step/"
    assert GIVEN_AWAY in late.step().content.decode()
    assert not Response.objects.filter(participant=late.participant).exists()


def test_a_timed_out_participant_whose_slot_is_still_free_takes_it_back_and_continues(implicature):
    study = small_study(units=1, per_unit=1)
    late = _working(study, 5)
    _go_quiet(late)
    reservations_reclaim(study=study)
    assert late.participant.status == Participant.Status.TIMED_OUT
    late.answer_current()
    assert Response.objects.filter(participant=late.participant).count() == 1
    assert late.participant.status == Participant.Status.ACTIVE and _holding(study) == 1
    # the slot is theirs again: a newcomer is refused
    assert participant_enter(study=study, pid=pid(6)).refusal.value == "full"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_late_answer_and_a_newcomer_at_once_never_overfill_the_unit(postgres, implicature):
    from studies.participants.steps import item_mark_shown, participant_begin, participant_consent

    for round_ in range(6):
        study = small_study(f"race {round_}", units=1, per_unit=1, unit_size=3, attention_checks=0)
        late = participant_enter(study=study, pid=pid(100 + round_)).participant
        participant_consent(participant=late, agree=True)
        late = item_mark_shown(participant=participant_begin(participant=late))
        Participant.objects.filter(pk=late.pk).update(
            status=Participant.Status.TIMED_OUT, last_seen_at=timezone.now() - timedelta(minutes=90)
        )
        barrier = threading.Barrier(2)
        errors: list[BaseException] = []

        def run(action, barrier=barrier, errors=errors) -> None:
            try:
                barrier.wait()
                action()
            except BaseException as exc:  # surfaced to the test
                errors.append(exc)
            finally:
                connections.close_all()

        threads = [
            threading.Thread(
                target=run,
                args=(
                    partial(
                        response_submit, participant_id=late.pk, item_id=late.sequence[0], position=1, raw_answer="yes"
                    ),
                ),
            ),
            threading.Thread(target=run, args=(partial(participant_enter, study=study, pid=pid(200 + round_)),)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        assert _holding(study) == 1
        stored = Response.objects.filter(participant=late).exists()
        newcomer = Participant.objects.filter(study=study, prolific_pid=pid(200 + round_)).exists()
        assert stored != newcomer, "exactly one of them holds the slot"
