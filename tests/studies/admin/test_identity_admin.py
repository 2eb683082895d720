"""One rule for every admin and every store of a Prolific identity (a PID, a session or submission id):
staff without `studies.view_identity` can neither filter, search nor order on one — directly or
through relations — nor read one on a list or a row's page.

The tests walk every model the admin shows and every identity field any model declares, so a model
or an admin added later is held to the rule without being named here."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.db.models import Model
from django.urls import reverse

from studies.participants.identity import IDENTITY_PERMISSION
from tests import personas
from tests.factories import Bot, pid
from tests.prolific.helpers import PROLIFIC_PID, SUBMISSION_ID, prolific_study, through_prolific

pytestmark = pytest.mark.django_db

#: field names that say a column holds a Prolific id: each must be declared in its model's IDENTITY_FIELDS
LOOKS_LIKE_AN_IDENTITY = re.compile(r"pid|session_id|submission_id")
#: fields named like one that hold no one's id, and why
NOT_IDENTITIES = {
    "studies.Study.pid_format": "the format the study expects PIDs in",
}
#: relations followed from each admin's model to reach an identity (`participant__prolific_pid` is one)
DEPTH = 2


def declared(model: type[Model]) -> tuple[str, ...]:
    return tuple(getattr(model, "IDENTITY_FIELDS", ()))


def shown_models() -> list[type[Model]]:
    return [model for model in apps.get_models() if admin.site.is_registered(model)]


def identity_paths(model: type[Model], depth: int = DEPTH, seen: tuple[type[Model], ...] = ()) -> set[str]:
    """Every `__` path from `model` to an identity field, through at most `depth` relations (either way)."""
    paths = set(declared(model))
    if depth == 0:
        return paths
    for field in model._meta.get_fields():
        target = field.related_model if field.is_relation else None
        if target is None or not isinstance(target, type) or target in seen:
            continue
        paths |= {f"{field.name}__{path}" for path in identity_paths(target, depth - 1, (*seen, model))}
    return paths


def touches_identity(model: type[Model], path: str) -> bool:
    current: type[Model] | None = model
    for part in path.lstrip("-").split("__"):
        if current is None:
            return False
        if part in declared(current):
            return True
        fields = {field.name: field for field in current._meta.get_fields()}
        field = fields.get(part)
        current = field.related_model if field is not None and field.is_relation else None
    return False


def entry_name(entry: object) -> str | None:
    if isinstance(entry, (list, tuple)):
        entry = entry[0]
    return entry.lstrip("^=@-") if isinstance(entry, str) else None


@pytest.fixture
def footprint(implicature):
    """One participant who went through Prolific (every store holds their ids), and one who did not."""
    study = prolific_study()
    trace = through_prolific(study)
    Bot(study, pid(0xC0FFEE), session="SESSION-NOT-ON-PROLIFIC").complete()
    return trace


def _every_view_permission() -> list[str]:
    return [
        f"{perm.content_type.app_label}.{perm.codename}"
        for perm in Permission.objects.select_related("content_type").filter(codename__startswith="view_")
        if f"{perm.content_type.app_label}.{perm.codename}" != IDENTITY_PERMISSION
    ]


@pytest.fixture
def staff(footprint):
    """Staff holding every view permission of every app, but not the identity one, on the study."""
    return personas.assistant("staff", _every_view_permission(), on=[footprint.participant.study])


@pytest.fixture
def holder(footprint):
    """The same staff, holding the identity permission too."""
    user = personas.user_with("holder", [*_every_view_permission(), IDENTITY_PERMISSION])
    footprint.participant.study.collaborators.add(user)
    return user


def _identities(footprint) -> list[str]:
    participant = footprint.participant
    return [PROLIFIC_PID, SUBMISSION_ID, participant.prolific_pid, participant.prolific_session_id]


def test_every_field_named_like_a_prolific_id_is_declared_an_identity():
    undeclared = [
        f"{model._meta.label}.{field.name}"
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if LOOKS_LIKE_AN_IDENTITY.search(field.name)
        and field.name not in declared(model)
        and f"{model._meta.label}.{field.name}" not in NOT_IDENTITIES
    ]
    assert undeclared == []
    for model in apps.get_models():
        for name in declared(model):
            model._meta.get_field(name)  # a declared name that is no field protects nothing


def test_identity_lookups_are_refused_on_every_admin_list_directly_and_through_relations(client, footprint, staff):
    client.force_login(staff)
    walked = 0
    for model in shown_models():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for path in sorted(identity_paths(model)):
            page = client.get(url, {f"{path}__startswith": PROLIFIC_PID[:3]})
            assert page.status_code == 400, (url, path, page.status_code)
            walked += 1
    assert walked > 50  # the walk reached the stores (participants, submissions, bonus lines, deliveries)


def test_the_issues_lookups_are_refused_and_a_holder_may_still_make_them(client, footprint, staff, holder):
    client.force_login(staff)
    for lookup, value in [("prolific_pid__startswith", "5f0"), ("submission_id__startswith", "64b")]:
        page = client.get("/admin/prolific/prolificsubmission/", {lookup: value})
        assert page.status_code == 400 and "1 Prolific submission" not in page.content.decode()
    client.force_login(holder)
    page = client.get("/admin/prolific/prolificsubmission/", {"prolific_pid__startswith": "5f0"})
    assert page.status_code == 200 and PROLIFIC_PID in page.content.decode()


def test_no_admin_searches_orders_filters_or_lists_an_identity_for_staff_without_the_permission(rf, footprint, staff):
    request = rf.get("/")
    request.user = staff
    for model in shown_models():
        model_admin = admin.site.get_model_admin(model)
        entries = {
            "search": model_admin.get_search_fields(request),
            "ordering": model_admin.get_ordering(request),
            "sortable": model_admin.get_sortable_by(request),
            "columns": model_admin.get_list_display(request),
            "filters": model_admin.get_list_filter(request),
        }
        for kind, listed in entries.items():
            for entry in listed or ():
                name = entry_name(entry)
                assert name is None or not touches_identity(model, name), (model._meta.label, kind, name)


def test_no_admin_page_shows_an_identity_to_staff_without_the_permission(client, footprint, staff):
    identities = _identities(footprint)
    client.force_login(staff)
    for model in shown_models():
        meta = model._meta
        pages = [reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")]
        pages += [
            reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[pk])
            for pk in model.objects.order_by("-pk").values_list("pk", flat=True)[:20]
        ]
        for url in pages:
            page = client.get(url, follow=True)
            html = page.content.decode().lower()
            shown = [identity for identity in identities if identity.lower() in html]
            assert page.status_code in (200, 403, 404) and shown == [], (url, page.status_code, shown)


def test_the_identity_holder_reads_the_ids_where_staff_without_it_read_pseudonyms(client, footprint, staff, holder):
    """The same pages hold the ids for a holder: the walk above looked where they would be."""
    submission = footprint.participant.prolific_submissions.get()
    pages = [
        f"/admin/prolific/prolificsubmission/{submission.pk}/change/",
        "/admin/prolific/prolificflag/",
        f"/admin/prolific/bonusbatch/{footprint.participant.bonus.batch_id}/change/",
    ]
    client.force_login(holder)
    for url in pages:
        html = client.get(url).content.decode()
        assert SUBMISSION_ID in html or PROLIFIC_PID in html, url
    client.force_login(staff)
    for url in pages:
        html = client.get(url).content.decode()
        assert footprint.participant.pseudonym in html, url
