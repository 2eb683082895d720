"""The participant's path's reads and writes, as statements built once per process.

Every participant page reads this browser's participant at the study link with its study; every
answer POST reads this browser's participant at the study link with its study (row-locked
for the answer's transaction) and the answered and next items. Through the ORM each read is compiled
anew on every answer (the first one: two tables, every column of both, a join, `FOR UPDATE OF`),
which cost more CPU than anything else the answer does (a sampling profile of the production server
under load: about a third of the worker's CPU for the first read, a sixth for the items). Here each
statement is built once from the models' own fields and run with plain parameters; the rows become
the same instances the ORM makes (each value through its field's database converters, then
`Model.from_db`). `tests/studies/participation/test_prepared_statements.py` checks both agree.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Sequence

from django.db import DEFAULT_DB_ALIAS, connections

from annotation.models import Item
from studies.models import Participant, Study

_Converter = Callable[[Any, Any, Any], Any]


class _Table:
    """One model's columns in the statement: their SQL, and how a row's values become an instance."""

    def __init__(self, model, alias: str, connection) -> None:
        quote = connection.ops.quote_name
        self.model = model
        fields = model._meta.concrete_fields
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


@lru_cache(maxsize=None)
def _statement(db: str, count: int, lock: bool) -> tuple[str, _Table, _Table]:
    """The SELECT for `count` participant ids on database `db` (`lock`: FOR UPDATE), and its two tables."""
    connection = connections[db]
    quote = connection.ops.quote_name
    participants, study = _Table(Participant, "p", connection), _Table(Study, "s", connection)
    ids = ", ".join(["%s"] * count)
    sql = (f"SELECT {', '.join(participants.columns + study.columns)} "
           f"FROM {quote(Participant._meta.db_table)} {quote('p')} "
           f"INNER JOIN {quote(Study._meta.db_table)} {quote('s')} "
           f"ON ({quote('p')}.{quote(Participant._meta.get_field('study').column)} = {quote('s')}.{quote('id')}) "
           f"WHERE {quote('p')}.{quote('id')} IN ({ids}) AND {quote('s')}.{quote('link')} = %s "
           f"AND {quote('p')}.{quote('erased_at')} IS NULL")
    if lock and connection.features.has_select_for_update:
        # only the participant's row: locking the study row on every answer would serialise all of
        # a study's answers (SQLite has no row locks: its IMMEDIATE transactions serialise writers)
        of = (quote("p"),) if connection.features.has_select_for_update_of else ()
        sql += " " + connection.ops.for_update_sql(of=of)
    return sql, participants, study


def participant_lock_by_link(*, participant_ids: Sequence[int], link: str,
                             using: str = DEFAULT_DB_ALIAS) -> Participant | None:
    """The participant among `participant_ids` (a browser's) in the study at `link`, with its study,
    its row locked until the transaction ends; None when there is none (or its identity was
    erased). Call it inside `transaction.atomic()`."""
    return _participant_at_link(participant_ids, link, lock=True, using=using)


def participant_at_link(participant_ids: Sequence[int], link: str, using: str = DEFAULT_DB_ALIAS) -> Participant | None:
    """The same read without the lock: what every participant page reads first."""
    return _participant_at_link(participant_ids, link, lock=False, using=using)


def _participant_at_link(participant_ids: Sequence[int], link: str, *, lock: bool, using: str) -> Participant | None:
    if not participant_ids:
        return None
    sql, participants, study = _statement(using, len(participant_ids), lock)
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*participant_ids, link])
        row = cursor.fetchone()
    if row is None:
        return None
    row, width = list(row), len(participants.attnames)
    participant = participants.instance(row[:width], using, connection)
    participant.study = study.instance(row[width:], using, connection)
    return participant


@lru_cache(maxsize=None)
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
    with connection.cursor() as cursor:
        cursor.execute(sql, list(item_ids))
        rows = cursor.fetchall()
    found = [items.instance(list(row), using, connection) for row in rows]
    return {item.pk: item for item in found}


# -- writes ------------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _insert_statement(db: str, model) -> tuple[str, tuple]:
    connection = connections[db]
    quote = connection.ops.quote_name
    fields = tuple(field for field in model._meta.concrete_fields if field is not model._meta.auto_field)
    sql = (f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
           f"VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {quote(model._meta.pk.column)}")
    return sql, fields


def insert(instance, using: str = DEFAULT_DB_ALIAS) -> None:
    """INSERT the new `instance` and set its id: what `instance.save()` writes for a new row (each
    field's `pre_save` and database value), without signals (the answer path's models have none)."""
    sql, fields = _insert_statement(using, type(instance))
    connection = connections[using]
    values = [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        instance.pk = cursor.fetchone()[0]
    instance._state.adding, instance._state.db = False, using


@lru_cache(maxsize=None)
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
    values = [field.get_db_prep_save(field.pre_save(instance, False), connection) for field in model_fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, instance.pk])
