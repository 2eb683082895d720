"""Who may see Prolific identities, and whether a lookup path reaches them.

The one place that decides it: the admin (`studies.admin_base.ResearcherAdmin`), the API and the
exports ask here. A lookup such as `prolific_pid__regex=^a` or `participant__prolific_session_id`
filters on an identity as surely as showing it would (one character at a time), so lookups,
searches and orderings that reach `Participant.IDENTITY_FIELDS` are refused to anyone without
`studies.view_identity`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model

from studies.models import Participant

IDENTITY_PERMISSION = "studies.view_identity"
#: query parameters that name a field to order by (DRF, the admin's own `o` takes column numbers)
ORDERING_PARAMETERS = frozenset({"ordering", "order", "order_by", "sort"})


def can_see_identities(user: Any) -> bool:
    return bool(user and user.is_active and user.has_perm(IDENTITY_PERMISSION))


def lookup_touches_identity(model: type[Model], lookup: str) -> bool:
    """Whether `lookup` (a `__` path from `model`, with transforms and lookups after the field)
    names an identity field of a participant, directly or through relations."""
    current: type[Model] | None = model
    for part in lookup.lower().lstrip("-").split("__"):
        if current is None:
            return False
        if current is Participant and part in Participant.IDENTITY_FIELDS:
            return True
        try:
            field = current._meta.get_field(part)
        except FieldDoesNotExist:
            return False
        current = field.related_model if field.is_relation else None
    return False


def names_identity(path: str) -> bool:
    """Whether any step of a `__` path (`participant__prolific_pid__regex`, `-prolific_pid`) is an identity field."""
    return any(part in Participant.IDENTITY_FIELDS for part in path.strip().lower().lstrip("-").split("__"))


def parameter_touches_identity(name: str, values: Iterable[str]) -> bool:
    """Whether a query parameter filters, searches or orders on an identity: by its name (`prolific_pid`,
    `participant__prolific_pid__startswith`, `PROLIFIC_PID`) or, for an ordering parameter, by its value."""
    if names_identity(name):
        return True
    if name.lower() in ORDERING_PARAMETERS:
        return any(names_identity(field) for value in values for field in value.split(","))
    return False
