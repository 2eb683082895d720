"""A study's results judge the review flags on the answers they have already read (`HumanColumns`)
instead of reading every answer a second time: the flags, and every participant's answers as the
rules read them, are those the database gives."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Item
from results.loading.selectors import load_study_data
from studies.models import Participant, Response
from studies.participants.quality import answers_by_participant, participant_flags
from tests.factories import small_study

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

UNIT_SIZE = 15


def _answer(person: Participant, item, position: int, *, answer: str, raw: str, duration: int, check: bool = False):
    now = timezone.now()
    return Response(
        participant=person,
        item=item,
        position=position,
        raw_answer=raw,
        answer=answer,
        valid=True,
        correct=answer == item.gold,
        is_attention_check=check,
        shown_at=now,
        answered_at=now,
        duration_ms=duration,
    )


@pytest.fixture
def study(implicature):
    study = small_study("flags", units=1, unit_size=UNIT_SIZE, per_unit=6, attention_checks=0)
    unit = study.units.get()
    items = [link.item for link in unit.unit_items.order_by("order")]
    check = Item.objects.filter(benchmark="implicature", is_attention_check=True).first()
    began = timezone.now() - timedelta(hours=1)
    # (pseudonym, completed after minutes or None, imported, the answers' pattern, ms per item)
    people = [
        ("steady", 12, False, "gold", 9000),
        ("yes-sayer", 11, False, "yes", 8000),
        ("writer", 13, False, "written", 10000),
        ("hurried", 1, False, "gold", 300),
        ("unfinished", None, False, "yes", 7000),
        ("published", 12, True, "yes", 8000),
    ]
    for number, (pseudonym, minutes, imported, pattern, ms) in enumerate(people):
        person = Participant.objects.create(
            study=study,
            unit=unit,
            prolific_pid=f"{number:024x}",
            pseudonym=pseudonym,
            status=Participant.Status.COMPLETED if minutes else Participant.Status.ACTIVE,
            is_imported=imported,
            started_at=began,
            completed_at=began + timedelta(minutes=minutes) if minutes else None,
        )
        rows = []
        for position, item in enumerate(items, start=1):
            if pattern == "gold":
                rows.append(_answer(person, item, position, answer=item.gold, raw=item.gold, duration=ms + position))
            elif pattern == "yes":
                # 14 of 15 the same answer
                said = "no" if position == 3 else "yes"
                rows.append(_answer(person, item, position, answer=said, raw=said, duration=ms))
            else:
                rows.append(_answer(person, item, position, answer="", raw=f"  {item.gold.upper()} ", duration=ms))
        rows.append(_answer(person, check, len(items) + 1, answer="no", raw="no", duration=ms, check=True))
        Response.objects.bulk_create(rows)
    return study


def test_the_flags_judged_on_the_columns_are_the_databases(study):
    chosen = Participant.objects.filter(study=study)
    data = load_study_data(study)
    given = data.columns.given_answers()
    names = dict(chosen.values_list("pk", "pseudonym"))
    # every participant who is not imported, none who is
    assert sorted(names[pk] for pk in given) == ["hurried", "steady", "unfinished", "writer", "yes-sayer"]
    read = answers_by_participant(Response.objects.filter(participant__in=chosen.filter(is_imported=False)))
    for pk, own in given.items():
        pairs = sorted(zip(own.durations, own.answers, own.golds))
        assert pairs == sorted(zip(read[pk].durations, read[pk].answers, read[pk].golds))
        assert len(pairs) == UNIT_SIZE  # the attention check left out
    writer = next(pk for pk, name in names.items() if name == "writer")
    assert set(given[writer].answers) <= {"yes", "no"} and given[writer].answers == given[writer].golds
    from_database = participant_flags(chosen)
    assert participant_flags(chosen, given=given) == from_database
    flagged = {names[pk]: marks for pk, marks in from_database.items()}
    assert "straight_lining" in flagged["yes-sayer"]
    assert "writer" not in flagged


def test_the_results_read_the_answers_once(study):
    data = load_study_data(study)
    with CaptureQueriesContext(connection) as queries:
        flagged = data.flagged_participants
    answer_reads = [
        q["sql"] for q in queries.captured_queries if '"duration_ms"' in q["sql"] and "GROUP BY" not in q["sql"]
    ]
    assert answer_reads == []
    names = dict(Participant.objects.filter(study=study).values_list("pk", "pseudonym"))
    assert "yes-sayer" in {names[pk] for pk in flagged}
