"""What the item commands share: the owner a new item set is given."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser


def add_owner_option(parser: CommandParser) -> None:
    parser.add_argument(
        "--owner",
        help="username of the researcher a new item set belongs to (alone with superusers); "
        "without it the set is open to every researcher",
    )


def owner_named(username: str | None) -> Any:
    """The user `--owner` names (None without one); CommandError for a name no user has."""
    if not username:
        return None
    found = get_user_model().objects.filter(username=username).first()
    if found is None:
        raise CommandError(f"--owner {username}: no such user")
    return found
