"""The answer's transaction on PostgreSQL, committed as a web worker's is: the participant's row (and
not the study's) locked from the read until the transaction ends, so a second submit of the same
participant waits for the first and sees its progress; a refused write or an exception leaves
nothing written and the row free."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import pytest
from django.db import connection, connections, transaction
from django.db.utils import OperationalError

from annotation.models import Item
from studies.models import Participant, Response, Study
from studies.participants import answers as participant_answers
from studies.participants.answers import Outcome, response_submit
from tests.factories import Bot, pid, small_study

# committed, as a web worker's statements are: no test transaction around them
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _at_first_item(name: str) -> Participant:
    study = small_study(name, units=1, unit_size=3, per_unit=2, attention_checks=1)
    Bot(study, pid(1)).start_items()
    return Participant.objects.select_related("study").get(study=study)


def _submit(participant: Participant, position: int = 1, answer: str = "yes"):
    return response_submit(
        link=participant.study.link,
        known=[participant.pk],
        item_id=participant.sequence[position - 1],
        position=position,
        raw_answer=answer,
        show_next=True,
    )


def _locked_elsewhere(model, pk: int) -> bool:
    """Whether another connection finds the row `pk` of `model` locked."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            try:
                cursor.execute(f"SELECT 1 FROM {model._meta.db_table} WHERE id = %s FOR UPDATE NOWAIT", [pk])
                return False
            except OperationalError:
                return True
    finally:
        other.close()


class _Paused:
    """An answer held inside its transaction, after the participant's locked read (while the answer is
    scored), until `release()`; `result` once it has finished."""

    def __init__(self, participant: Participant) -> None:
        self.participant, self.inside, self.go = participant, threading.Event(), threading.Event()
        self.result = self.error = None
        self.thread = threading.Thread(target=self._run, name="paused answer")
        self.screen_for = participant_answers.screen_for

    def held(self, participant: Participant, item: Item):
        if threading.current_thread() is self.thread:  # only this answer waits; any other goes on
            self.inside.set()
            assert self.go.wait(30), "the test never released the answer"
        return self.screen_for(participant, item)

    def _run(self) -> None:
        try:
            self.result = _submit(self.participant)
        except BaseException as exc:  # surfaced to the test
            self.error = exc
        finally:
            connections.close_all()

    def release(self) -> None:
        self.go.set()
        self.thread.join(30)
        assert self.error is None, self.error


@contextmanager
def _paused_inside_the_answer(participant: Participant) -> Iterator[_Paused]:
    paused = _Paused(participant)
    with mock.patch.object(participant_answers, "screen_for", paused.held):
        paused.thread.start()
        try:
            assert paused.inside.wait(30), "the answer did not reach its scoring"
            yield paused
        finally:
            paused.release()


def test_an_answer_outside_any_transaction_is_committed_with_its_progress_and_the_next_item(postgres, implicature):
    participant = _at_first_item("committed")
    _submit(participant)
    participant = Participant.objects.select_related("study").get(pk=participant.pk)
    answer = Item.objects.get(pk=participant.sequence[1]).gold
    result = _submit(participant, position=2, answer=answer)
    assert result.outcome is Outcome.STORED and result.next_item is not None
    assert result.next_item.pk == participant.sequence[2]
    assert Response.objects.get(pk=result.response.pk).position == 2
    participant.refresh_from_db()
    assert participant.answered == 2 and participant.current_shown_at is not None
    assert not connection.in_atomic_block and connection.get_autocommit()


def test_the_participants_row_stays_locked_from_the_read_until_the_transaction_ends(postgres, implicature):
    participant = _at_first_item("lock held")
    with _paused_inside_the_answer(participant) as paused:
        assert _locked_elsewhere(Participant, participant.pk)
        # only the participant's row: another participant of the study answers meanwhile
        assert not _locked_elsewhere(Study, participant.study_id)
    assert paused.result.outcome is Outcome.STORED
    assert not _locked_elsewhere(Participant, participant.pk)


def test_a_second_submit_waits_for_the_first_and_is_ignored(postgres, implicature):
    participant = _at_first_item("double submit")
    second: dict[str, object] = {}

    def submit_again() -> None:
        try:
            second["result"] = _submit(participant)
        finally:
            connections.close_all()

    with _paused_inside_the_answer(participant) as paused:
        other = threading.Thread(target=submit_again)
        other.start()
        other.join(1.0)
        # the second's locked read waits for the first's transaction to end
        assert other.is_alive() and "result" not in second
    other.join(30)
    assert paused.result.outcome is Outcome.STORED
    # the second names the item the first answered: said to be answered already, nothing written
    assert second["result"].outcome is Outcome.ALREADY_ANSWERED and second["result"].participant.answered == 1
    assert Response.objects.filter(participant=participant).count() == 1


def test_the_same_answer_sent_many_times_at_once_is_stored_once(postgres, implicature):
    participant = _at_first_item("at once")
    barrier, results, errors = threading.Barrier(4), [], []

    def submit() -> None:
        try:
            barrier.wait(30)
            results.append(_submit(participant).outcome)
        except BaseException as exc:  # surfaced to the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert sorted(outcome.value for outcome in results) == [
        "already_answered",
        "already_answered",
        "already_answered",
        "stored",
    ]
    assert Response.objects.filter(participant=participant).count() == 1
    participant.refresh_from_db()
    assert participant.answered == 1


def test_a_write_refused_by_a_constraint_writes_nothing_and_the_answer_is_ignored(postgres, implicature):
    participant = _at_first_item("refused write")
    # an answer at position 1 already stored behind the service's back: the INSERT must fail
    Response.objects.create(
        participant=participant,
        item_id=participant.sequence[1],
        position=1,
        raw_answer="no",
        answer="no",
        valid=True,
        correct=False,
        shown_at=participant.started_at,
        answered_at=participant.started_at,
        duration_ms=0,
    )
    result = _submit(participant)
    assert result.outcome is Outcome.IGNORED
    participant.refresh_from_db()
    assert participant.answered == 0  # the progress did not stay
    assert Response.objects.filter(participant=participant).count() == 1
    assert not _locked_elsewhere(Participant, participant.pk)
    with connection.cursor() as cursor:  # the connection goes on as before
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_an_exception_in_the_transaction_writes_nothing_and_releases_the_row(postgres, implicature):
    participant = _at_first_item("exception")
    with (
        pytest.raises(RuntimeError),
        mock.patch.object(participant_answers, "screen_for", side_effect=RuntimeError("scoring failed")),
    ):
        _submit(participant)
    assert not _locked_elsewhere(Participant, participant.pk)
    assert not connection.in_atomic_block and connection.get_autocommit()
    assert not Response.objects.filter(participant=participant).exists()
    assert _submit(participant).outcome is Outcome.STORED


def test_inside_a_transaction_already_it_is_an_atomic_block(postgres, implicature):
    participant = _at_first_item("inside atomic")
    with transaction.atomic():
        assert _submit(participant).outcome is Outcome.STORED
        assert connection.in_atomic_block
    assert Response.objects.filter(participant=participant).count() == 1
