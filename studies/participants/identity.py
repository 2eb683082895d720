"""Who may see Prolific identities, where they are stored, and whether a lookup path reaches them.

The one rule: every model that stores a PID, a Prolific session id or a submission id names those
fields in `IDENTITY_FIELDS` (`Participant`, `ProlificSubmission`, `BonusLine`, the stored webhook
deliveries' payloads, ...). The admin (`studies.admin.base.IdentityGuard`), the API and the erasure
of an identity (`studies.participants.erasure`) ask here, so a model that declares its fields is guarded
everywhere without being named anywhere else.

A lookup such as `prolific_pid__regex=^a` or `participant__prolific_session_id` filters on an
identity as surely as showing it would (one character at a time), so lookups, searches and orderings
that reach an identity field, directly or through relations, are refused to anyone without
`studies.view_identity`.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model

IDENTITY_PERMISSION = "studies.view_identity"
#: query parameters that name a field to order by (DRF, the admin's own `o` takes column numbers)
ORDERING_PARAMETERS = frozenset({"ordering", "order", "order_by", "sort"})


def can_see_identities(user: Any) -> bool:
    return bool(user and user.is_active and user.has_perm(IDENTITY_PERMISSION))


def identity_fields(model: type[Model]) -> tuple[str, ...]:
    """The fields of `model` that hold a Prolific identity (none for a model that declares none)."""
    return tuple(getattr(model, "IDENTITY_FIELDS", ()))


def guarded_models() -> list[type[Model]]:
    """Every installed model that stores an identity."""
    return [model for model in apps.get_models() if identity_fields(model)]


@cache
def identity_names() -> frozenset[str]:
    """The names of every model's identity fields (the models do not change while the process runs)."""
    return frozenset(name for model in guarded_models() for name in identity_fields(model))


def lookup_touches_identity(model: type[Model], lookup: str) -> bool:
    """Whether `lookup` (a `__` path from `model`, with transforms and lookups after the field)
    names an identity field of any model, directly or through relations."""
    current: type[Model] | None = model
    for part in lookup.strip().lower().lstrip("-").split("__"):
        if current is None:
            return False
        if part in identity_fields(current):
            return True
        try:
            field = current._meta.get_field(part)
        except FieldDoesNotExist:
            return False
        current = field.related_model if field.is_relation else None
    return False


def names_identity(path: str) -> bool:
    """Whether any step of a `__` path (`participant__prolific_pid__regex`, `-prolific_pid`) is an identity field."""
    return any(part in identity_names() for part in path.strip().lower().lstrip("-").split("__"))


def parameter_touches_identity(name: str, values: Iterable[str]) -> bool:
    """Whether a query parameter filters, searches or orders on an identity: by its name (`prolific_pid`,
    `participant__prolific_pid__startswith`, `PROLIFIC_PID`) or, for an ordering parameter, by its value."""
    if names_identity(name):
        return True
    if name.lower() in ORDERING_PARAMETERS:
        return any(names_identity(field) for value in values for field in value.split(","))
    return False
