"""The base of every admin that can reach participants: a researcher sees the rows of their own
studies only (superusers: all), and Prolific identities are shown, filtered, searched and ordered on
only for users holding `studies.view_identity`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from studies.access import studies_for_user
from studies.participants.identity import can_see_identities, identity_fields, lookup_touches_identity

if TYPE_CHECKING:
    from django.contrib.admin.options import BaseModelAdmin

    # the mixins below extend an admin (a model's or an inline's): their super() is the admin's
    _AnyAdmin = BaseModelAdmin[Any]
    _ModelAdmin = admin.ModelAdmin[Any]
else:
    _AnyAdmin = _ModelAdmin = object


def _field_name(entry: Any) -> str | None:
    """The field path a list_display / search / ordering / list_filter entry names, if it names one."""
    if isinstance(entry, (list, tuple)):
        entry = entry[0]
    return entry.lstrip("^=@-") if isinstance(entry, str) else None


class IdentityGuard(_AnyAdmin):
    """The rule of `studies.participants.identity` for an admin or an inline of any model: for users without
    `studies.view_identity`, a URL lookup reaching an identity (`?prolific_pid__regex=^a`,
    `?participant__prolific_pid=…`, `?submission__prolific_pid=…`) is refused with a 400 (Django's
    DisallowedModelAdminLookup), and the identity fields of the model — and any column, search,
    ordering or filter reaching one through relations — leave its lists, forms and pages. Holders see
    them as declared."""

    def _without_identities(self, request: HttpRequest, entries: Any) -> list[Any]:
        entries = list(entries or [])
        if can_see_identities(request.user):
            return entries
        return [
            entry
            for entry in entries
            if (name := _field_name(entry)) is None or not lookup_touches_identity(self.model, name)
        ]

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if lookup_touches_identity(self.model, lookup) and not can_see_identities(request.user):
            return False
        return super().lookup_allowed(lookup, value, request)

    def get_ordering(self, request: HttpRequest) -> list[Any]:
        return self._without_identities(request, super().get_ordering(request))

    def get_sortable_by(self, request: HttpRequest) -> list[Any]:
        return self._without_identities(request, super().get_sortable_by(request))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        return self._without_identities(request, super().get_readonly_fields(request, obj))

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> list[str]:
        """The form never carries an identity for a user who may not see one (nor takes one in a POST)."""
        excluded = list(super().get_exclude(request, obj) or [])
        if can_see_identities(request.user):
            return excluded
        return [*excluded, *(name for name in identity_fields(self.model) if name not in excluded)]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[tuple[Any, Any]]:
        fieldsets = list(super().get_fieldsets(request, obj))
        if can_see_identities(request.user):
            return fieldsets
        kept = []
        for title, options in fieldsets:
            fields = []
            for entry in options.get("fields", ()):
                # an entry is a field or a row of fields shown on one line
                row = self._without_identities(request, entry if isinstance(entry, (list, tuple)) else [entry])
                if row:
                    fields.append(tuple(row) if isinstance(entry, (list, tuple)) else row[0])
            kept.append((title, {**options, "fields": fields}))
        return kept


def participant_label(pseudonym: str, study_name: str) -> str:
    """A participant as lists spanning studies name them: pseudonyms repeat from study to study
    (A1 in each), so the study goes beside it."""
    return f"{pseudonym} · {study_name}"


class NoBulkDeletion(_ModelAdmin):
    """No "Delete selected" action, for anyone: participants, answers and studies change through the
    services, which keep the study's audit trail (a participant goes through the erasure request)."""

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


class ResearcherAdmin(IdentityGuard, admin.ModelAdmin):
    """The identity rule (`IdentityGuard`), and the rows of the user's studies only.

    `study_path` is the path from the admin's model to its study ("" for studies themselves, None
    for rows shared by every study such as items): rows of other researchers' studies are left out
    of the lists, the change pages and the actions."""

    study_path: str | None = None

    # the identity rule for the lists' columns, searches and filters (which inlines do not have)
    def get_search_fields(self, request: HttpRequest) -> list[str]:
        return self._without_identities(request, super().get_search_fields(request))

    def get_list_display(self, request: HttpRequest) -> list[Any]:
        return self._without_identities(request, super().get_list_display(request))

    def get_list_filter(self, request: HttpRequest) -> list[Any]:
        return self._without_identities(request, super().get_list_filter(request))

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset = super().get_queryset(request)
        if self.study_path is None or request.user.is_superuser:
            return queryset
        mine = studies_for_user(request.user).values("pk")
        return queryset.filter(**{f"{self.study_path}__pk__in" if self.study_path else "pk__in": mine})
