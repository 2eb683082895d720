"""The answer path's reads (`studies.participation.prepared`): the same participant, study and items
as the ORM reads, every field converted alike, and the participant's row (only it) locked."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Item
from studies.models import Participant, Study
from studies.participation.prepared import items_by_id, participant_at_link, participant_lock_for_answer
from tests.factories import Bot, pid, small_study

pytestmark = [pytest.mark.both_databases, pytest.mark.django_db]


def participant_lock_by_link(*, participant_ids, link):
    """The answer's locked read, for the participant alone (no item asked for)."""
    return participant_lock_for_answer(participant_ids=participant_ids, link=link, item_id=0, next_index=None)[0]


def _fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


def _working_participant() -> Participant:
    study = small_study("locked read", attention_checks=1)
    bot = Bot(study, pid(7))
    bot.start_items()
    bot.answer_current()
    participant = bot.participant
    # every kind of column carries a value: JSON lists and objects, times, booleans, text
    participant.session_changes = [{"at": "2026-01-01T00:00:00+00:00", "from": "A", "to": "B", "let_in": True}]
    participant.excluded, participant.exclusion_reason = True, "by hand"
    participant.completed_at = timezone.now()
    participant.save()
    return participant


def test_it_reads_the_participant_and_study_the_orm_reads_field_for_field(implicature):
    participant = _working_participant()
    expected = Participant.objects.select_related("study").get(pk=participant.pk)
    other = small_study("another study")
    with transaction.atomic():
        read = participant_lock_by_link(participant_ids=[participant.pk + 1000, participant.pk],
                                        link=participant.study.link)
    assert isinstance(read, Participant) and isinstance(read.study, Study)
    assert _fields(read) == _fields(expected)
    assert _fields(read.study) == _fields(expected.study)
    unlocked = participant_at_link([participant.pk], participant.study.link)  # what every page reads
    assert (_fields(unlocked), _fields(unlocked.study)) == (_fields(expected), _fields(expected.study))
    assert read.sequence == expected.sequence and isinstance(read.sequence, list)
    assert read.current_shown_at == expected.current_shown_at and read.current_shown_at.tzinfo is not None
    assert read._state.adding is False and read._state.db == "default"
    # what it is used for: a save of some fields, as the answer's progress update makes
    read.answered += 1
    read.save(update_fields=["answered"])
    assert Participant.objects.get(pk=participant.pk).answered == expected.answered + 1
    with transaction.atomic():
        assert participant_lock_by_link(participant_ids=[participant.pk], link=other.link) is None
        assert participant_lock_by_link(participant_ids=[], link=participant.study.link) is None


def test_an_erased_participant_is_no_ones(implicature):
    participant = _working_participant()
    Participant.objects.filter(pk=participant.pk).update(erased_at=timezone.now())
    with transaction.atomic():
        assert participant_lock_by_link(participant_ids=[participant.pk], link=participant.study.link) is None
    assert participant_at_link([participant.pk], participant.study.link) is None


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_it_locks_the_participants_row_and_not_the_studys(postgres, implicature):
    participant = _working_participant()
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        participant_lock_by_link(participant_ids=[participant.pk], link=participant.study.link)
        assert queries[-1]["sql"].endswith('FOR UPDATE OF "p"')
        seen: dict[str, object] = {}

        def other_connection() -> None:
            # another connection (as another worker): the study row is free, the participant's is held
            try:
                with transaction.atomic():
                    Study.objects.select_for_update(nowait=True).get(pk=participant.study_id)
                    seen["study"] = "free"
                    try:
                        with transaction.atomic():
                            Participant.objects.select_for_update(nowait=True).get(pk=participant.pk)
                        seen["participant"] = "free"
                    except Exception as exc:  # psycopg's LockNotAvailable, wrapped by Django
                        seen["participant"] = type(exc).__name__
            finally:
                connections.close_all()

        thread = threading.Thread(target=other_connection)
        thread.start()
        thread.join(30)
    assert seen == {"study": "free", "participant": "OperationalError"}


def test_items_are_read_as_the_orm_reads_them(implicature):
    study = small_study("items read", attention_checks=1)
    ids = list(Item.objects.filter(benchmark="implicature").order_by("pk").values_list("pk", flat=True)[:3])
    check = Item.objects.filter(is_attention_check=True).values_list("pk", flat=True).first()
    wanted = [*ids, check, 10**9]  # an id that names no item is left out, as in_bulk leaves it out
    read, expected = items_by_id(wanted), Item.objects.in_bulk(wanted)
    assert sorted(read) == sorted(expected) and len(read) == 4
    for pk, item in expected.items():
        assert _fields(read[pk]) == _fields(item)
        assert isinstance(read[pk].prompt, dict) and isinstance(read[pk].is_attention_check, bool)
    assert items_by_id([]) == {} and study.pk


def test_an_answer_and_the_progress_are_written_as_the_orm_writes_them(implicature):
    from studies.models import Response
    from studies.participation import prepared

    participant = _working_participant()
    stored = Response.objects.filter(participant=participant).get()  # written through the answer path
    item, other = Item.objects.exclude(pk=stored.item_id).filter(benchmark="implicature")[:2]
    fields = dict(participant=participant, item=item, position=2, raw_answer="yes 'quoted' é", answer="yes",
                  valid=True, correct=False, is_attention_check=False, shown_at=stored.shown_at,
                  answered_at=stored.answered_at, duration_ms=1234, extra={"pasted": True, "order": [2, 1]})
    written = Response(**fields)
    prepared.insert(written)
    assert written.pk and not written._state.adding
    by_orm = Response.objects.create(**{**fields, "item": other, "position": 3})
    got, expected = _fields(Response.objects.get(pk=written.pk)), _fields(Response.objects.get(pk=by_orm.pk))
    different = {"id": None, "position": None, "item_id": None}
    assert {**got, **different} == {**expected, **different} and got["item_id"] == item.pk
    participant.answered, participant.attention_failures = 5, 2
    prepared.update(participant, ["answered", "attention_failures"])
    fresh = Participant.objects.get(pk=participant.pk)
    assert (fresh.answered, fresh.attention_failures, fresh.sequence) == (5, 2, participant.sequence)


def test_the_answers_read_brings_the_answered_and_the_next_item_with_the_locked_participant(implicature):
    participant = _working_participant()
    link, sequence = participant.study.link, participant.sequence
    expected = Participant.objects.select_related("study").get(pk=participant.pk)
    with transaction.atomic():
        read, items = participant_lock_for_answer(participant_ids=[participant.pk + 1000, participant.pk], link=link,
                                                  item_id=sequence[1], next_index=2)
    assert _fields(read) == _fields(expected)
    # the study comes without its long texts, which are read when asked for
    assert read.study.get_deferred_fields() == {"consent_text", "instructions_text"}
    assert {key: value for key, value in _fields(read.study).items() if not key.endswith("_text")} == {
        key: value for key, value in _fields(expected.study).items() if not key.endswith("_text")}
    assert read.study.consent_text == expected.study.consent_text
    assert sorted(items) == sorted(sequence[1:3])
    for pk, item in Item.objects.in_bulk(sequence[1:3]).items():
        assert _fields(items[pk]) == _fields(item)
    with transaction.atomic():
        # past the sequence's end, or no next item asked for: the answered item alone
        for next_index in (len(sequence), None):
            _read, items = participant_lock_for_answer(participant_ids=[participant.pk], link=link,
                                                       item_id=sequence[-1], next_index=next_index)
            assert list(items) == [sequence[-1]]
        # an item id that names no item: the participant, no item
        again, items = participant_lock_for_answer(participant_ids=[participant.pk], link=link, item_id=10**9,
                                                   next_index=None)
        assert again.pk == participant.pk and items == {}
        assert participant_lock_for_answer(participant_ids=[participant.pk], link=small_study("other").link,
                                           item_id=sequence[0], next_index=1) == (None, {})
        assert participant_lock_for_answer(participant_ids=[], link=link, item_id=sequence[0], next_index=1) == (None, {})


def test_the_answer_and_the_progress_are_written_together_or_not_at_all(implicature):
    from django.db import IntegrityError

    from studies.models import Response
    from studies.participation import prepared

    participant = _working_participant()
    stored = Response.objects.filter(participant=participant).get()
    item = Item.objects.exclude(pk=stored.item_id).filter(benchmark="implicature").first()
    fields = dict(participant=participant, item=item, position=2, raw_answer="no", answer="no", valid=True,
                  correct=True, is_attention_check=False, shown_at=stored.shown_at, answered_at=stored.answered_at,
                  duration_ms=5, extra={})
    answered = participant.answered
    participant.answered, participant.last_seen_at = answered + 1, stored.answered_at
    written = Response(**fields)
    with CaptureQueriesContext(connection) as queries:
        prepared.insert_and_update(written, participant, ["answered", "last_seen_at"])
    assert len(queries) == (1 if connection.vendor == "postgresql" else 2)
    assert Response.objects.get(pk=written.pk).raw_answer == "no"
    fresh = Participant.objects.get(pk=participant.pk)
    assert (fresh.answered, fresh.last_seen_at) == (answered + 1, stored.answered_at)
    # the same position again: the unique constraint refuses the answer, and the progress stays
    participant.answered = answered + 2
    with pytest.raises(IntegrityError), transaction.atomic():
        prepared.insert_and_update(Response(**{**fields, "item": stored.item}), participant, ["answered"])
    assert Participant.objects.get(pk=participant.pk).answered == answered + 1
    assert Response.objects.filter(participant=participant).count() == 2


def _prepared_statements() -> list[tuple[str, str]]:
    """(name, text) of the statements prepared on this connection through the protocol (not SQL's
    PREPARE)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements WHERE NOT from_sql ORDER BY name")
        return cursor.fetchall()


@pytest.mark.postgres
def test_on_postgresql_the_paths_statements_are_prepared_once_per_connection_and_the_orms_are_not(postgres, implicature):
    participant = _working_participant()
    link = participant.study.link

    def reads() -> None:
        assert participant_at_link([participant.pk], link).pk == participant.pk
        with transaction.atomic():
            assert participant_lock_by_link(participant_ids=[participant.pk], link=link).pk == participant.pk

    reads()
    prepared = _prepared_statements()
    for _ in range(3):
        reads()
    Participant.objects.select_related("study").get(pk=participant.pk)  # an ORM query
    assert _prepared_statements() == prepared  # run again, nothing prepared anew
    reads_prepared = [text for _name, text in prepared if 'FROM "studies_participant" "p" INNER JOIN' in text]
    # the page's read and the answer's locked read (earlier tests on this connection may have
    # prepared more variants of them, e.g. with other parameter types)
    assert {text.endswith('FOR UPDATE OF "p"') for text in reads_prepared} == {False, True}
    assert all("$1" in text for text in reads_prepared)  # parameters bound by the server
    assert not [text for _name, text in prepared if '"studies_participant"."id"' in text]


@pytest.mark.postgres
def test_on_postgresql_a_prepared_statement_is_logged_with_its_text(postgres, implicature):
    participant = _working_participant()
    link = participant.study.link
    with CaptureQueriesContext(connection) as queries:
        for _ in range(2):
            participant_at_link([participant.pk], link)
    assert len(queries) == 2
    assert all(query["sql"] and "FROM \"studies_participant\" \"p\"" in query["sql"] for query in queries)
