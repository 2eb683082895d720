"""The answer's transaction on PostgreSQL outside any transaction, as a web worker runs it
(`prepared.answer_transaction`): no BEGIN or COMMIT, one round trip for the locked read and one for
the write and its Sync; the row locked from the read until the Sync; a failed write or an exception
leaves nothing written and the connection as it was."""

from __future__ import annotations

import pytest
from django.db import connection, connections
from django.db.utils import OperationalError

from annotation.models import Item
from studies.models import Participant, Response
from studies.participation import prepared
from studies.participation.services import Outcome, response_submit
from tests.factories import Bot, pid, small_study
from tests.test_postgresql_backend import Traced

# committed, as a web worker's statements are: no test transaction around them
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _at_first_item(name: str) -> Participant:
    study = small_study(name, units=1, unit_size=3, per_unit=2, attention_checks=1)
    Bot(study, pid(1)).start_items()
    return Participant.objects.select_related("study").get(study=study)


def _submit(participant: Participant, position: int = 1, answer: str = "yes"):
    return response_submit(link=participant.study.link, known=[participant.pk], item_id=participant.sequence[position - 1],
                           position=position, raw_answer=answer, show_next=True)


def _locked_elsewhere(participant: Participant) -> bool:
    """Whether another connection finds the participant's row locked."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            try:
                cursor.execute(f"SELECT 1 FROM {Participant._meta.db_table} WHERE id = %s FOR UPDATE NOWAIT",
                               [participant.pk])
                return False
            except OperationalError:
                return True
    finally:
        other.close()


def _round_trips(messages: list[str], sent: set[str]) -> int:
    """How many times the client sent and then waited for the server."""
    trips, sending = 0, False
    for message in messages:
        if message in sent:
            sending = True
        elif sending:
            trips, sending = trips + 1, False
    return trips


def test_an_answer_is_two_round_trips_with_no_begin_or_commit(postgres, implicature):
    participant = _at_first_item("two round trips")
    _submit(participant)  # the statements are prepared on this connection once
    participant = Participant.objects.select_related("study").get(pk=participant.pk)
    answer = Item.objects.get(pk=participant.sequence[1]).gold
    with Traced(connection) as traced:
        result = _submit(participant, position=2, answer=answer)
    assert result.outcome is Outcome.STORED and result.next_item is not None
    assert Response.objects.get(pk=result.response.pk).position == 2
    assert "Query" not in traced.messages  # no BEGIN, no COMMIT
    assert traced.messages.count("Bind") == 2 and traced.messages.count("ReadyForQuery") == 1
    assert _round_trips(traced.messages, {"Parse", "Bind", "Describe", "Execute", "Flush", "Sync"}) == 2
    participant.refresh_from_db()
    assert participant.answered == 2 and participant.current_shown_at is not None


def test_the_participants_row_stays_locked_from_the_read_until_the_write(postgres, implicature):
    participant = _at_first_item("lock held")
    item_id = participant.sequence[0]
    with prepared.answer_transaction() as pipelined:
        assert pipelined is not None
        locked, items = prepared.participant_lock_for_answer(participant_ids=[participant.pk],
                                                             link=participant.study.link, item_id=item_id, next_index=1)
        assert locked.pk == participant.pk and item_id in items
        assert _locked_elsewhere(participant)
    assert not _locked_elsewhere(participant)


def test_a_write_refused_by_a_constraint_writes_nothing_and_the_answer_is_ignored(postgres, implicature):
    participant = _at_first_item("refused write")
    # an answer at position 1 already stored behind the service's back: the INSERT must fail
    Response.objects.create(participant=participant, item_id=participant.sequence[1], position=1, raw_answer="no",
                            answer="no", valid=True, correct=False, shown_at=participant.started_at,
                            answered_at=participant.started_at, duration_ms=0)
    result = _submit(participant)
    assert result.outcome is Outcome.IGNORED
    participant.refresh_from_db()
    assert participant.answered == 0  # the progress UPDATE, in the same statement, did not stay
    assert Response.objects.filter(participant=participant).count() == 1
    assert not _locked_elsewhere(participant)
    assert connection.connection._pipeline is None
    with connection.cursor() as cursor:  # the connection goes on as before
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_an_exception_in_the_transaction_writes_nothing_and_releases_the_row(postgres, implicature):
    participant = _at_first_item("exception")
    with pytest.raises(RuntimeError), prepared.answer_transaction():
        prepared.participant_lock_for_answer(participant_ids=[participant.pk], link=participant.study.link,
                                             item_id=participant.sequence[0], next_index=None)
        raise RuntimeError("scoring failed")
    assert not _locked_elsewhere(participant)
    assert connection.connection._pipeline is None and connection.get_autocommit()
    assert _submit(participant).outcome is Outcome.STORED


def test_inside_a_transaction_already_it_is_an_atomic_block(postgres, implicature):
    from django.db import transaction

    participant = _at_first_item("inside atomic")
    with transaction.atomic():
        with prepared.answer_transaction() as pipelined:
            assert pipelined is None and connection.in_atomic_block
        assert _submit(participant).outcome is Outcome.STORED
    assert Response.objects.filter(participant=participant).count() == 1
