"""What an answer costs PostgreSQL to write: the participant's progress updated in place, and the
answer's row entered only in the indexes a constraint or a lookup needs."""

from __future__ import annotations

import pytest
from django.db import connection

from annotation.models import Item
from studies.models import Participant, Response
from tests.factories import Bot, form_item, pid, small_study

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _participant_updates() -> tuple[int, int]:
    """This transaction's UPDATEs of the participants' table so far: (all, HOT)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = %s",
            [Participant._meta.db_table],
        )
        return cursor.fetchone()


@pytest.mark.parametrize("htmx", [False, True], ids=["form", "htmx"])
def test_an_answer_updates_the_participants_row_in_place(postgres, implicature, htmx):
    """A HOT update: no index of the table gets a new entry, because no indexed column changed."""
    study = small_study(f"in place {htmx}", units=1, unit_size=3, per_unit=2, attention_checks=1)
    bot = Bot(study, pid(1)).start_items()
    item_id, position = bot.current_form(bot.step().content.decode())
    before = _participant_updates()
    response = bot.client.post(
        f"/s/{study.link}/answer/",
        {
            "item": form_item(bot.participant.pk, position, item_id),
            "position": position,
            "answer": Item.objects.get(pk=item_id).gold,
        },
        headers={"HX-Request": "true"} if htmx else {},
    )
    assert response.status_code == (200 if htmx else 302)
    after = _participant_updates()
    assert bot.participant.answered == 1
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1)


def test_the_participants_table_leaves_room_on_its_pages_for_updates_in_place(postgres):
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [Participant._meta.db_table])
        assert cursor.fetchone()[0] == ["fillfactor=80"]


def test_an_answers_row_enters_only_the_indexes_of_its_constraints_and_item_lookups(postgres):
    """Every index of the answers' table that each new row enters (the partial one on `verified_by`
    takes only the verified answers)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s", [Response._meta.db_table])
        definitions = [row[0] for row in cursor.fetchall()]
    every_row = sorted(definition.split("USING btree ")[1] for definition in definitions if " WHERE " not in definition)
    assert every_row == sorted(["(id)", "(item_id)", "(participant_id, item_id)", '(participant_id, "position")'])
    partial = [definition for definition in definitions if " WHERE " in definition]
    assert len(partial) == 1 and "(verified_by_id) WHERE (verified_by_id IS NOT NULL)" in partial[0]
