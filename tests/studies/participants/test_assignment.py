from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from studies.models import Participant
from studies.participants.decisions import participants_mark_returned
from studies.participants.entry import participant_enter
from tests.factories import Bot, arrive_at_once, pid, small_study

pytestmark = pytest.mark.django_db


def test_units_fill_evenly_and_never_past_capacity(implicature):
    study = small_study(units=3, per_unit=2)
    entries = [participant_enter(study=study, pid=pid(n)) for n in range(8)]
    admitted = [e.participant for e in entries if e.participant]
    assert len(admitted) == 6
    assert [e.participant.unit.position for e in entries[:3]] == [1, 2, 3]
    assert Counter(p.unit_id for p in admitted) == Counter({u.pk: 2 for u in study.units.all()})
    assert [e.refusal.value for e in entries[6:]] == ["full", "full"]
    assert [p.pseudonym for p in admitted] == [f"A{n}" for n in range(1, 7)]


def test_a_timed_out_reservation_is_reclaimed_and_a_returned_one_reopens(implicature):
    study = small_study(units=1, per_unit=1)
    first = participant_enter(study=study, pid=pid(1), prolific_session_id="SESSION1").participant
    assert participant_enter(study=study, pid=pid(2)).refusal.value == "full"
    Participant.objects.filter(pk=first.pk).update(last_seen_at=timezone.now() - timedelta(minutes=61))
    second = participant_enter(study=study, pid=pid(2)).participant
    assert second is not None and second.unit_id == first.unit_id
    first.refresh_from_db()
    assert first.status == Participant.Status.TIMED_OUT
    # the timed-out participant comes back: the place went to someone else, so they are told so
    back = participant_enter(study=study, pid=pid(1), prolific_session_id="SESSION1")
    assert back.refusal.value == "released"
    participants_mark_returned(participant_ids=[second.pk])
    assert participant_enter(study=study, pid=pid(3)).participant is not None


def test_a_timed_out_participant_may_finish_when_the_slot_is_still_free(implicature):
    study = small_study(units=1, per_unit=1)
    bot = Bot(study, pid(1))
    bot.enter()
    Participant.objects.filter(pk=bot.participant.pk).update(
        last_seen_at=timezone.now() - timedelta(minutes=90), status=Participant.Status.TIMED_OUT
    )
    bot.complete()
    assert bot.participant.status == Participant.Status.COMPLETED


def test_excluded_completions_free_their_slot_for_a_replacement(implicature):
    study = small_study(units=1, per_unit=1, attention_checks=2, exclude_at=2)
    Bot(study, pid(1)).complete(choose=lambda item: "no" if item.is_attention_check else item.gold)
    assert participant_enter(study=study, pid=pid(2)).participant is not None


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_forty_participants_entering_at_once_end_balanced_with_no_unit_over_capacity(postgres, implicature):
    study = small_study("crowd", units=4, per_unit=9, unit_size=10)
    errors = arrive_at_once(study, [pid(1000 + n) for n in range(40)])
    assert not errors
    per_unit = Counter(Participant.objects.filter(study=study).values_list("unit__position", flat=True))
    assert per_unit == Counter({1: 9, 2: 9, 3: 9, 4: 9})
    assert Participant.objects.filter(study=study).count() == 36
    assert len(set(Participant.objects.filter(study=study).values_list("pseudonym", flat=True))) == 36
