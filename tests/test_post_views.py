"""Every view of the URLconf that accepts a POST checks the permission of what it writes.

The URLconf is walked, not listed: a new POST view is exercised the day it is added. Each view is
posted to as a view-only collaborator of a study (the `viewer` persona, `VIEWER_PERMISSIONS`), signed
in by session, through a client that enforces CSRF and sends a valid token, with URL arguments naming
real rows of that study. Every view must refuse (403 or 404; 405 for one that does not take a POST,
a redirect to the sign-in page) and no row may change. A superuser then posts to the same URLs and
is refused by none of them, so the viewer's refusals come from the permission checks, not from a
CSRF failure or arguments that name nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.views.generic import RedirectView

from modelruns.services import modelrun_start, modelspec_get_or_create
from studies.models import Participant, Response, Study
from tests.factories import Bot, pid, small_study
from tests.personas import Personas, personas_for

pytestmark = pytest.mark.django_db

#: views not posted to here, each with the reason (and where its rules are tested)
SKIPPED_NAMESPACES = {
    "admin": "the admin checks each model's permissions and scopes its rows itself "
    "(tests/studies/test_admin*.py, tests/studies/test_permissions.py, tests/annotation/test_admin_scope.py)",
}
SKIPPED_NAMES = {
    "login": "signing in is for everyone",
    "logout": "signing out is for everyone who is signed in",
    "prolific:webhook": "Prolific's calls, checked by their signature (tests/prolific/test_webhooks.py)",
}
#: participants reach these by a study's link, never by a researcher's permission (tests/participation/)
PARTICIPANT_ROUTE = "s/<slug:link>/"
#: views a viewer may post to because they write no row: the preview walks a study in the
#: researcher's own session, as a read of what participants will see
READS_BY_POST = {
    "participation:preview_restart",
    "participation:preview_consent",
    "participation:preview_begin",
    "participation:preview_answer",
    "participation:preview_practice",
    "participation:preview_practice_next",
    "participation:preview_comprehension",
}
#: the writes the walk must reach, so that a broken walk cannot pass by posting to nothing
KNOWN_WRITES = {
    "studies:new",
    "studies:items_import",
    "studies:edit",
    "studies:status",
    "studies:duplicate",
    "studies:preregistration",
    "modelruns:start",
    "modelruns:cancel",
    "modelruns:rate",
    "prolific:study",
    "api:study_create",
    "api:study_status",
    "api:participant_exclusion",
    "api:model_run_start",
    "api:model_run_cancel",
    "review:participant_decide",
    "review:verify_mark",
}
_PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")


@dataclass(frozen=True)
class Route:
    route: str  # the whole route, from the root ("runs/study/<int:study_id>/")
    name: str  # "namespace:name", or "" for an unnamed route
    callback: Callable[..., Any]


def routes(patterns: list[Any], prefix: str = "", namespace: str = "") -> Iterator[Route]:
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            if entry.namespace in SKIPPED_NAMESPACES:
                continue
            yield from routes(entry.url_patterns, route, inner)
        elif isinstance(entry, URLPattern):
            yield Route(route, f"{namespace}{entry.name}" if entry.name else "", entry.callback)


def posted_routes() -> list[Route]:
    """Every route but those skipped above (and plain redirects, which run no code of ours)."""
    return [
        found
        for found in routes(get_resolver().url_patterns)
        if found.name not in SKIPPED_NAMES
        and not found.route.startswith(PARTICIPANT_ROUTE)
        and getattr(found.callback, "view_class", None) is not RedirectView
    ]


@dataclass
class World:
    study: Study
    people: Personas
    arguments: dict[str, str]


@pytest.fixture
def world(implicature) -> World:
    """A study with one of everything a URL names: a finished participant, a model run."""
    study = small_study("shared pilot")
    Bot(study, pid(0xC1)).complete()
    spec = modelspec_get_or_create(model="smollm2")
    run = modelrun_start(study=study, spec=spec, enqueue=False).run
    arguments = {
        "study_id": str(study.pk),
        "run_id": str(run.pk),
        "pseudonym": Participant.objects.get(study=study).pseudonym,
        "participant_id": str(Participant.objects.get(study=study).pk),
        "response_id": str(Response.objects.filter(participant__study=study).first().pk),
        "fmt": "csv",
    }
    return World(study, personas_for(study), arguments)


def url_of(found: Route, arguments: dict[str, str]) -> str:
    missing = sorted(set(_PARAMETER.findall(found.route)) - set(arguments))
    assert not missing, f"{found.route}: give the fixture `world` a value for {missing}"
    url = "/" + _PARAMETER.sub(lambda match: arguments[match.group(1)], found.route)
    assert resolve(url).func is found.callback, f"{url} does not reach {found.name or found.route}"
    return url


def signed_in_with_csrf(user: Any, study: Study) -> tuple[Client, dict[str, str]]:
    """A client that enforces CSRF like a browser, and the header that passes it."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get(reverse("studies:detail", args=[study.pk])).status_code == 200
    return client, {"HTTP_X_CSRFTOKEN": client.cookies[settings.CSRF_COOKIE_NAME].value}


def row_counts() -> dict[str, int]:
    """The rows of every table (but the sessions, where the preview keeps its walk)."""
    return {model._meta.label: model.objects.count() for model in apps.get_models() if model is not Session}


def refused(response: Any) -> bool:
    if response.status_code == 302:
        return response["Location"].startswith(settings.LOGIN_URL)
    return response.status_code in (403, 404, 405)


def test_a_view_only_collaborator_posts_to_every_view_and_writes_nothing(world):
    client, csrf = signed_in_with_csrf(world.people.viewer, world.study)
    before = row_counts()
    accepted: dict[str, int] = {}
    takes_post: list[tuple[Route, str]] = []
    for found in posted_routes():
        url = url_of(found, world.arguments)
        response = client.post(url, {}, **csrf)
        if response.status_code != 405:
            takes_post.append((found, url))
        if not refused(response) and found.name not in READS_BY_POST:
            accepted[found.name or found.route] = response.status_code
        assert row_counts() == before, f"a viewer's POST to {url} wrote rows"
    assert accepted == {}, f"views that do not refuse a view-only collaborator's POST: {accepted}"
    names = {found.name for found, _ in takes_post}
    assert KNOWN_WRITES <= names, f"the walk did not reach {sorted(KNOWN_WRITES - names)}"

    # the same URLs, token and client let a superuser through: the viewer was refused for want of a
    # permission, not for a CSRF failure or an argument that names nothing
    root, root_csrf = signed_in_with_csrf(world.people.superuser, world.study)
    missed = {
        url: status
        for _, url in takes_post
        if (status := root.post(url, {}, **root_csrf).status_code) in (403, 404) or status >= 500
    }
    assert missed == {}, f"refused a superuser too (CSRF, or arguments that name nothing): {missed}"


def test_every_view_left_out_or_allowed_exists():
    """A renamed view is not left out by a stale entry: each name above is in the URLconf."""
    named = {found.name for found in routes(get_resolver().url_patterns)}
    assert set(SKIPPED_NAMES) <= named
    assert READS_BY_POST <= {found.name for found in posted_routes()}
    assert any(
        isinstance(entry, URLResolver) and entry.namespace in SKIPPED_NAMESPACES
        for entry in get_resolver().url_patterns
    )
