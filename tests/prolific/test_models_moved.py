"""The Prolific models moved from the studies app to their own (prolific migration 0001): the tables
are the same, and the content types move with them, so permissions already granted still hold."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from prolific.models import ProlificStudy

BEFORE = [("studies", "0011_answer_path_indexes"), ("prolific", None)]


def _migrate(targets: list[tuple[str, str | None]] | None = None) -> None:
    """To `targets`, or back to the latest migrations (the schema every later test expects)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets if targets is not None else executor.loader.graph.leaf_nodes())


def test_the_models_keep_their_tables() -> None:
    assert ProlificStudy._meta.db_table == "studies_prolificstudy"
    assert ProlificStudy._meta.app_label == "prolific"


@pytest.mark.django_db(transaction=True)
def test_a_permission_granted_before_the_move_still_holds_after_it() -> None:
    moved = ContentType.objects.get(app_label="prolific", model="prolificstudy")
    _migrate(BEFORE)
    try:
        # as a deployment had it: the content type (and so its permissions) under the studies app
        before = ContentType.objects.get(pk=moved.pk)
        assert before.app_label == "studies"
        user = User.objects.create_user("researcher-before-the-move")
        user.user_permissions.add(Permission.objects.get(content_type=before, codename="change_prolificstudy"))
    finally:
        _migrate()
    after = ContentType.objects.get(pk=moved.pk)
    assert (after.app_label, after.model) == ("prolific", "prolificstudy")
    assert User.objects.get(username="researcher-before-the-move").has_perm("prolific.change_prolificstudy")
    assert not ContentType.objects.filter(app_label="studies", model="prolificstudy").exists()
