"""The integrity figures behind the flags are summed per participant by the database, out of each
answer's `extra`: the same figures on SQLite and PostgreSQL for every kind of record the answer path
stores (recorded, with and without a text box; no script, sooner and later than the reading floor;
refused; canary, honeypot, pasted), and no answer's whole `extra` is read into Python."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from parity.stats.quality import behaviour
from studies.models import Participant, Response
from studies.participants.quality import participant_evidence, participant_flags
from tests.factories import small_study

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]


def _recorded(**figures: int | None) -> dict:
    every = {"pastes": 0, "blurs": 0, "hidden": 0, "hidden_ms": 0, "keys": None, "first_input_ms": 700}
    return {"behaviour": {"status": behaviour.RECORDED, **every, **figures}}


#: (duration_ms, extra) of each answer of the one participant
ANSWERS = [
    (5000, _recorded(hidden=1, hidden_ms=4000, blurs=2)),
    (6000, _recorded(hidden=0, hidden_ms=0, blurs=1, pastes=1)),  # a paste, but no text box
    (7000, _recorded(keys=12, pastes=2, chars=40)),  # pasted into a text box
    (8000, {"behaviour": {"status": behaviour.NONE}, "reading_floor_ms": 9000}),  # sooner than the floor
    (9500, {"behaviour": {"status": behaviour.NONE}, "reading_floor_ms": 9000}),
    (4000, {"behaviour": {"status": behaviour.INVALID}}),
    (4000, {"canary": True, "honeypot": True, "option_order": [1, 0]}),
    (4000, {}),
]


@pytest.fixture
def answered(implicature):
    study = small_study("sums", units=1, unit_size=len(ANSWERS), per_unit=1, attention_checks=0)
    unit = study.units.get()
    person = Participant.objects.create(
        study=study, unit=unit, prolific_pid="p" * 24, pseudonym="A1", status=Participant.Status.ACTIVE
    )
    items = [link.item for link in unit.unit_items.order_by("order")]
    Response.objects.bulk_create(
        Response(
            participant=person,
            item=item,
            position=position,
            raw_answer="yes",
            answer="yes",
            valid=True,
            correct=True,
            shown_at=timezone.now(),
            answered_at=timezone.now(),
            duration_ms=duration,
            extra=extra,
        )
        for position, (item, (duration, extra)) in enumerate(zip(items, ANSWERS, strict=True), start=1)
    )
    return person


def test_the_figures_of_every_kind_of_record_are_summed(answered):
    figures = participant_evidence(Participant.objects.filter(pk=answered.pk))[answered.pk]
    assert figures["left_tab"] == {
        "detail": "the page was hidden during 1 of 3 answers, 4.0 s in all; 3 focus losses",
        "answers": 1,
        "recorded": 3,
        "hidden_ms": 4000,
        "blurs": 3,
    }
    assert figures["pasted"] == {
        "detail": "3 pastes recorded; 12 keys pressed for 40 characters of written answers",
        "pastes": 3,
        "keys": 12,
        "chars": 40,
    }
    assert figures["bot_speed"]["answers"] == 1 and figures["bot_speed"]["without_script"] == 2
    assert figures["canary"]["answers"] == 1 and figures["honeypot"]["answers"] == 1
    assert participant_flags(Participant.objects.filter(pk=answered.pk))[answered.pk] == [
        "straight_lining",
        "pasted",
        "left_tab",
        "canary",
        "honeypot",
        "bot_speed",
    ]


def test_no_answers_whole_extra_is_read(answered):
    with CaptureQueriesContext(connection) as queries:
        participant_flags(Participant.objects.filter(pk=answered.pk))
        participant_evidence(Participant.objects.filter(pk=answered.pk))
    # the column itself in a select list (not inside the database's JSON functions)
    column = f"{connection.ops.quote_name(Response._meta.db_table)}.{connection.ops.quote_name('extra')}"
    whole = re.compile(rf"(SELECT|,) {re.escape(column)}(,| FROM| AS)")
    assert len(queries) > 0 and [query["sql"] for query in queries if whole.search(query["sql"])] == []
