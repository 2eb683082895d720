"""`perf.verify.verify`, the database check after a load (the benchmark's and the fault test's): it
passes on what participants really stored and names each kind of loss or imbalance it looks for."""

from __future__ import annotations

import pytest
from django.db import connection

from perf.load import Answer, Outcome
from perf.verify import verify
from studies.models import Participant, Response, Unit
from studies.participants.answer_tokens import answer_token, participant_owner
from studies.setup.studies import unit_set_capacity
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


def _query(sql: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


@pytest.fixture
def finished(implicature):
    """Two participants who completed a study of two units of one place each."""
    study = small_study("verified", unit_size=3, units=2, per_unit=1, attention_checks=0)
    outcomes = []
    for n in (1, 2):
        Bot(study, pid(n)).complete()
        answers = [
            Answer(
                pid(n),
                r.position,
                answer_token(participant_owner(r.participant_id), r.position, r.item_id),
                r.raw_answer,
            )
            for r in Response.objects.filter(participant__prolific_pid=pid(n))
        ]
        outcomes.append(Outcome(pid(n), completed=True, acknowledged=answers))
    return study, outcomes


def test_what_the_participants_stored_passes(finished):
    study, outcomes = finished
    check = verify(_query, link=study.link, outcomes=outcomes, exact=True)
    assert (check.problems, check.acknowledged, check.stored) == ([], 6, 6)
    assert sorted(check.unit_completed.values()) == [1, 1]


def test_an_acknowledged_answer_that_is_not_stored_or_stored_otherwise_is_named(finished):
    study, outcomes = finished
    first = outcomes[0].acknowledged[0]
    outcomes[0].acknowledged.append(Answer(first.pid, 4, first.item, first.answer))  # never stored
    outcomes[1].acknowledged[0] = Answer(outcomes[1].pid, 1, outcomes[1].acknowledged[0].item, "not what was sent")
    check = verify(_query, link=study.link, outcomes=outcomes, exact=True)
    assert len(check.missing) == 2 and check.problems == [
        f"2 acknowledged answers are not stored, e.g. {check.missing[:3]}"
    ]


def test_an_answer_acknowledged_twice_a_unit_past_its_capacity_and_unequal_units_are_named(finished):
    study, outcomes = finished
    outcomes[0].acknowledged.append(outcomes[0].acknowledged[0])  # told twice, stored once: fine
    assert verify(_query, link=study.link, outcomes=outcomes, exact=True).problems == []
    first_unit, second_unit = Unit.objects.filter(study=study).order_by("position")
    unit_set_capacity(unit=first_unit, capacity=0)
    unit_set_capacity(unit=second_unit, capacity=2)
    Bot(study, pid(3)).complete()  # into the second unit, which then shrinks below what it holds
    unit_set_capacity(unit=second_unit, capacity=1)
    check = verify(_query, link=study.link, outcomes=outcomes, exact=True)
    assert check.over_capacity == [first_unit.pk, second_unit.pk]
    assert check.problems == [
        f"units past their capacity: {[first_unit.pk, second_unit.pk]}",
        "completed per unit differ: [1, 2]",
    ]


def test_a_participant_who_saw_the_done_page_but_is_not_stored_complete_is_named(finished):
    study, outcomes = finished
    outcomes.append(Outcome("f" * 24, completed=True))
    check = verify(_query, link=study.link, outcomes=outcomes, exact=True)
    assert check.completed_not_stored == ["f" * 24]


def test_an_answer_stored_on_another_item_than_its_positions_is_named(finished):
    study, outcomes = finished
    participant = Participant.objects.get(prolific_pid=pid(1))
    first, second = participant.sequence[:2]
    # the sequence says the first two items came the other way round: the stored rows no longer match
    Participant.objects.filter(pk=participant.pk).update(sequence=[second, first, *participant.sequence[2:]])
    check = verify(_query, link=study.link, outcomes=outcomes, exact=True)
    assert check.wrong_items == [(pid(1), 1), (pid(1), 2)]
    assert check.problems == [f"2 answers stored on an item other than their position's, e.g. {check.wrong_items}"]
