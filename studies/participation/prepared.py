"""The participant's path's reads and writes, as statements built once per process.

Every participant page reads this browser's participant at the study link with its study; every
answer POST reads, in one statement, this browser's participant at the study link with its study
(row-locked for the answer's transaction) and the answered and next items, then writes the answer and
the progress (one statement on PostgreSQL). Through the ORM each read is compiled
anew on every answer (the first one: two tables, every column of both, a join, `FOR UPDATE OF`),
which cost more CPU than anything else the answer does (a sampling profile of the production server
under load: about a third of the worker's CPU for the first read, a sixth for the items). Here each
statement is built once from the models' own fields and run with plain parameters; the rows become
the same instances the ORM makes (each value through its field's database converters, then
`Model.from_db`). `tests/studies/participation/test_prepared_statements.py` checks both agree.

On PostgreSQL each statement is also a prepared statement of the connection (psycopg's `prepare`,
parameters bound on the server): PostgreSQL parses and plans it once per connection instead of on
every answer. Planning the answer's read (four tables, `FOR UPDATE`) cost the server more than running
it (`perf/statements.py` measures both). SQLite's driver keeps compiled statements by itself.
The ORM's own queries keep Django's default, client-side binding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction

from annotation.models import Item
from studies.models import Participant, Study

_Converter = Callable[[Any, Any, Any], Any]


def _cursor(connection):
    """A cursor of `connection` for the statements built here, wrapped as `connection.cursor()`
    wraps its own (database errors as Django's, and counted and logged wherever queries are): on
    PostgreSQL one that runs every statement prepared."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    prepared_cursor, logged_cursor, timezone_of, register_tzloader = _postgresql()
    logged = connection.queries_logged
    cursor = (logged_cursor if logged else prepared_cursor)(connection.connection)
    if connection.timezone != timezone_of(connection.connection):  # as Django's own cursors do
        register_tzloader(connection.timezone, cursor)
    return connection.make_debug_cursor(cursor) if logged else connection.make_cursor(cursor)


@cache
def _postgresql():
    """Django's server-binding psycopg cursor with every `execute` prepared; the time zone a
    connection's timestamps load in; Django's way to set another (the PostgreSQL backend's modules
    are imported only where PostgreSQL is used)."""
    from django.db.backends.postgresql.base import TIMESTAMPTZ_OID, ServerBindingCursor
    from django.db.backends.postgresql.psycopg_any import register_tzloader
    from psycopg.pq import Format

    class PreparedCursor(ServerBindingCursor):
        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True, binary=binary)

    class LoggedCursor(PreparedCursor):
        """Where queries are logged (DEBUG, tests): psycopg keeps no statement text for a prepared
        run, so keep what Django's log reads (the statement as PostgreSQL has it, `$1`...)."""

        def execute(self, query, params=None, *, prepare=None, binary=None):
            result = super().execute(query, params, binary=binary)
            self._query = self._convert_query(query, params)
            return result

    def timezone_of(raw_connection):
        return raw_connection.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT).timezone

    return PreparedCursor, LoggedCursor, timezone_of, register_tzloader


class _Table:
    """One model's columns in the statement: their SQL, and how a row's values become an instance."""

    def __init__(self, model, alias: str, connection, leave_out: tuple[str, ...] = ()) -> None:
        quote = connection.ops.quote_name
        self.model = model
        # a field left out is deferred on the instance (read on first use, as the ORM's `defer`)
        fields = [field for field in model._meta.concrete_fields if field.name not in leave_out]
        self.attnames = [field.attname for field in fields]
        self.columns = [f"{quote(alias)}.{quote(field.column)}" for field in fields]
        self.converters: list[tuple[int, list[_Converter], Any]] = []
        for index, field in enumerate(fields):
            column = field.get_col(alias)
            converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if converters:
                self.converters.append((index, converters, column))

    def instance(self, values: list, db: str, connection):
        for index, converters, column in self.converters:
            for convert in converters:
                values[index] = convert(values[index], column, connection)
        return self.model.from_db(db, self.attnames, values)


#: what the answer POST never shows: the study's long texts stay in the database
_ANSWER_LEAVES_OUT = ("consent_text", "instructions_text")


@cache
def _statement(db: str, count: int, for_answer: bool) -> tuple[str, _Table, _Table, _Table | None]:
    """The SELECT for `count` participant ids on database `db`, and its tables. `for_answer`: the
    answer's read, which locks the participant's row (FOR UPDATE) and joins, in the same row, the
    answered item and the one at an index of the participant's sequence (parameters: the item's id
    and the index, then the participant ids and the link)."""
    connection = connections[db]
    quote = connection.ops.quote_name
    participants = _Table(Participant, "p", connection)
    study = _Table(Study, "s", connection, leave_out=_ANSWER_LEAVES_OUT if for_answer else ())
    answered, following = (_Table(Item, "i", connection), _Table(Item, "n", connection)) if for_answer else (None, None)
    ids = ", ".join(["%s"] * count)
    columns = participants.columns + study.columns + (answered.columns + following.columns if for_answer else [])
    sql = (f"SELECT {', '.join(columns)} "
           f"FROM {quote(Participant._meta.db_table)} {quote('p')} "
           f"INNER JOIN {quote(Study._meta.db_table)} {quote('s')} "
           f"ON ({quote('p')}.{quote(Participant._meta.get_field('study').column)} = {quote('s')}.{quote('id')}) ")
    if for_answer:
        sql += (f"LEFT OUTER JOIN {quote(Item._meta.db_table)} {quote('i')} ON {quote('i')}.{quote('id')} = %s "
                f"LEFT OUTER JOIN {quote(Item._meta.db_table)} {quote('n')} "
                f"ON {quote('n')}.{quote('id')} = {_sequence_at(connection)} ")
    sql += (f"WHERE {quote('p')}.{quote('id')} IN ({ids}) AND {quote('s')}.{quote('link')} = %s "
            f"AND {quote('p')}.{quote('erased_at')} IS NULL")
    if for_answer and connection.features.has_select_for_update:
        # only the participant's row: locking the study row on every answer would serialise all of
        # a study's answers (SQLite has no row locks: its IMMEDIATE transactions serialise writers)
        of = (quote("p"),) if connection.features.has_select_for_update_of else ()
        sql += " " + connection.ops.for_update_sql(of=of)
    return sql, participants, study, answered


def _sequence_at(connection) -> str:
    """SQL for the item id at a 0-based index (a parameter) of the participant's sequence, a JSON
    array; NULL past its end or for a NULL index."""
    column = Participant._meta.get_field("sequence").column
    sequence = f"{connection.ops.quote_name('p')}.{connection.ops.quote_name(column)}"
    if connection.vendor == "postgresql":
        return f"CAST(({sequence} ->> CAST(%s AS integer)) AS bigint)"
    if connection.vendor == "sqlite":
        return f"json_extract({sequence}, '$[' || %s || ']')"
    raise NotImplementedError(f"the answer's read is written for PostgreSQL and SQLite, not {connection.vendor}")


def participant_at_link(participant_ids: Sequence[int], link: str, using: str = DEFAULT_DB_ALIAS) -> Participant | None:
    """The participant among `participant_ids` (a browser's) in the study at `link`, with its study;
    None when there is none (or its identity was erased). What every participant page reads first."""
    if not participant_ids:
        return None
    sql, participants, study, _items = _statement(using, len(participant_ids), False)
    connection = connections[using]
    with _cursor(connection) as cursor:
        cursor.execute(sql, [*participant_ids, link])
        row = cursor.fetchone()
    return None if row is None else _participant(row, participants, study, using, connection)


def participant_lock_for_answer(*, participant_ids: Sequence[int], link: str, item_id: int, next_index: int | None,
                                using: str = DEFAULT_DB_ALIAS) -> tuple[Participant | None, dict[int, Item]]:
    """`participant_at_link` with the participant's row locked until the transaction ends and, in
    the same statement, the answered item (`item_id`) and the item at `next_index` (0-based) of the
    participant's sequence when there is one: (the participant or None, the items found by id). The
    study comes without its consent and instructions texts (deferred). Call it inside
    `transaction.atomic()`."""
    if not participant_ids:
        return None, {}
    sql, participants, study, items = _statement(using, len(participant_ids), True)
    connection = connections[using]
    with _cursor(connection) as cursor:
        cursor.execute(sql, [item_id, next_index, *participant_ids, link])
        row = cursor.fetchone()
    if row is None:
        return None, {}
    participant = _participant(row, participants, study, using, connection)
    start, width = len(participants.attnames) + len(study.attnames), len(items.attnames)
    found = [items.instance(list(row[at:at + width]), using, connection)
             for at in (start, start + width) if row[at] is not None]
    return participant, {item.pk: item for item in found}


def _participant(row, participants: _Table, study: _Table, using: str, connection) -> Participant:
    width, end = len(participants.attnames), len(participants.attnames) + len(study.attnames)
    participant = participants.instance(list(row[:width]), using, connection)
    participant.study = study.instance(list(row[width:end]), using, connection)
    return participant


@cache
def _items_statement(db: str, count: int) -> tuple[str, _Table]:
    connection = connections[db]
    quote = connection.ops.quote_name
    items = _Table(Item, "i", connection)
    return (f"SELECT {', '.join(items.columns)} FROM {quote(Item._meta.db_table)} {quote('i')} "
            f"WHERE {quote('i')}.{quote('id')} IN ({', '.join(['%s'] * count)})"), items


def items_by_id(item_ids: Sequence[int], using: str = DEFAULT_DB_ALIAS) -> dict[int, Item]:
    """The items with these ids, by id (as `Item.objects.in_bulk(item_ids)`)."""
    if not item_ids:
        return {}
    sql, items = _items_statement(using, len(item_ids))
    connection = connections[using]
    with _cursor(connection) as cursor:
        cursor.execute(sql, list(item_ids))
        rows = cursor.fetchall()
    found = [items.instance(list(row), using, connection) for row in rows]
    return {item.pk: item for item in found}


# -- writes ------------------------------------------------------------------------------------------


@cache
def _insert_statement(db: str, model) -> tuple[str, tuple]:
    connection = connections[db]
    quote = connection.ops.quote_name
    fields = tuple(field for field in model._meta.concrete_fields if field is not model._meta.auto_field)
    sql = (f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
           f"VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {quote(model._meta.pk.column)}")
    return sql, fields


def _values(instance, fields: Sequence, connection, *, adding: bool) -> list:
    """Each field's database value, as `save()` computes it (its `pre_save`, then `get_db_prep_save`)."""
    return [field.get_db_prep_save(field.pre_save(instance, adding), connection) for field in fields]


def _inserted(instance, pk, using: str) -> None:
    instance.pk = pk
    instance._state.adding, instance._state.db = False, using


def insert(instance, using: str = DEFAULT_DB_ALIAS) -> None:
    """INSERT the new `instance` and set its id: what `instance.save()` writes for a new row, without
    signals (the answer path's models have none)."""
    sql, fields = _insert_statement(using, type(instance))
    connection = connections[using]
    with _cursor(connection) as cursor:
        cursor.execute(sql, _values(instance, fields, connection, adding=True))
        _inserted(instance, cursor.fetchone()[0], using)


@cache
def _update_statement(db: str, model, names: tuple[str, ...]) -> tuple[str, tuple]:
    connection = connections[db]
    quote = connection.ops.quote_name
    fields = tuple(model._meta.get_field(name) for name in names)
    sql = (f"UPDATE {quote(model._meta.db_table)} SET {', '.join(f'{quote(field.column)} = %s' for field in fields)} "
           f"WHERE {quote(model._meta.pk.column)} = %s")
    return sql, fields


def update(instance, fields: Sequence[str], using: str = DEFAULT_DB_ALIAS) -> None:
    """UPDATE `fields` of the stored `instance`: what `instance.save(update_fields=fields)` writes,
    without signals."""
    sql, model_fields = _update_statement(using, type(instance), tuple(fields))
    connection = connections[using]
    with _cursor(connection) as cursor:
        cursor.execute(sql, [*_values(instance, model_fields, connection, adding=False), instance.pk])


@cache
def _insert_and_update_statement(db: str, new_model, stored_model, names: tuple[str, ...]) -> tuple[str, tuple, tuple]:
    """PostgreSQL: the INSERT with the UPDATE in a data-modifying WITH, one statement; and the fields
    of each."""
    insert_sql, insert_fields = _insert_statement(db, new_model)
    update_sql, update_fields = _update_statement(db, stored_model, names)
    return f"WITH {connections[db].ops.quote_name('progress')} AS ({update_sql}) {insert_sql}", insert_fields, update_fields


def insert_and_update(new, stored, fields: Sequence[str], using: str = DEFAULT_DB_ALIAS, *,
                      pipelined: Pipelined | None = None) -> None:
    """`insert(new)` and `update(stored, fields)`, in one statement where the database runs a write
    inside a WITH (PostgreSQL: one round trip); both or neither, as the two in one transaction.
    `pipelined`: what `answer_transaction` gave; the statement then goes out with the Sync that
    ends the transaction, and `new` gets its id once that has come back."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        insert(new, using)
        update(stored, fields, using)
        return
    sql, insert_fields, update_fields = _insert_and_update_statement(using, type(new), type(stored), tuple(fields))
    cursor = _cursor(connection)
    cursor.execute(sql, [*_values(stored, update_fields, connection, adding=False), stored.pk,
                         *_values(new, insert_fields, connection, adding=True)])

    def inserted() -> None:
        with cursor:
            _inserted(new, cursor.fetchone()[0], using)

    if pipelined is None:
        inserted()
    else:
        pipelined.then.append(inserted)


# -- the answer's transaction ----------------------------------------------------------------------


class Pipelined:
    """An answer's transaction in pipeline mode: what to do once its Sync has come back."""

    def __init__(self) -> None:
        self.then: list[Callable[[], None]] = []


@contextmanager
def answer_transaction(using: str = DEFAULT_DB_ALIAS) -> Iterator[Pipelined | None]:
    """The transaction of an answer's locked read and its write; gives what to pass to
    `insert_and_update` (a `Pipelined`, or None).

    On PostgreSQL, outside any transaction (a web worker's request), the statements go in pipeline
    mode with no BEGIN and no COMMIT: in the extended query protocol everything up to a Sync runs
    as one implicit transaction, committed at the Sync and rolled back if a statement in it fails
    (the error is raised as the block ends). The read goes out at once with a flush, which keeps the
    transaction open: the participant's row stays locked from the read until the write's Sync, as
    in `atomic()`, for two round trips fewer (`atomic()` sends BEGIN and COMMIT as round trips of
    their own): the read's, and the write's with the Sync. A block left without a write (an answer
    refused or ignored, an exception) sends only the Sync: nothing was written, the lock is released.

    Elsewhere (SQLite; inside a transaction already, as a test's or a caller's `atomic()`),
    `transaction.atomic()`, and None."""
    connection = connections[using]
    if connection.vendor != "postgresql" or connection.in_atomic_block or not connection.get_autocommit():
        with transaction.atomic(using=using):
            yield None
        return
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    pipelined = Pipelined()
    with connection.wrap_database_errors, connection.connection.pipeline():
        yield pipelined
    for step in pipelined.then:
        step()
