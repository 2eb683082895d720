"""The people around a study, as accounts: who may see and do what (see `studies.access`).

One place for every persona the tests use:

- `superuser`: every study, every permission;
- `researcher`: staff holding the researcher permissions and the identity permission (owns studies);
- `assistant`: staff holding the researcher permissions (or the ones named) but not the identity one;
- `member`: signed in, not staff, no permission;
- `anonymous`: nobody signed in (`signed_in(client, anonymous())` leaves the client as it is);
- `participant_bot`: a participant walking a study through the HTTP views (`tests.factories.Bot`).

Around one study (`personas_for`): the superuser, its owner, a collaborator, a viewer (a
collaborator holding view permissions only) and an outsider (a researcher on none of its sides).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Permission
from django.db.models import Q
from django.test import Client

from studies.access import RESEARCHER_PERMISSIONS, VIEWER_PERMISSIONS
from studies.models import Study
from studies.participants.identity import IDENTITY_PERMISSION as VIEW_IDENTITY
from tests.factories import Bot, pid


def permissions(names: Iterable[str]) -> list[Permission]:
    names = list(names)
    query = Q(pk__in=[])
    for name in names:
        app_label, codename = name.split(".")
        query |= Q(content_type__app_label=app_label, codename=codename)
    found = list(Permission.objects.filter(query))
    assert len(found) == len(set(names)), f"unknown permissions among {sorted(names)}"
    return found


def user_with(username: str, names: Iterable[str] = RESEARCHER_PERMISSIONS, *, is_staff: bool = True) -> Any:
    # no password: hashing one costs a second per test, and force_login needs none
    user = get_user_model().objects.create(username=username, is_staff=is_staff)
    user.user_permissions.add(*permissions(names))
    return user


def superuser(username: str = "root", **fields: Any) -> Any:
    return get_user_model().objects.create(username=username, is_staff=True, is_superuser=True, **fields)


def researcher(username: str = "researcher", *, owns: Iterable[Study] = ()) -> Any:
    """Staff with every researcher permission and the identity permission, owning `owns`."""
    user = user_with(username, [*RESEARCHER_PERMISSIONS, VIEW_IDENTITY])
    for study in owns:
        study.owner = user
        study.save(update_fields=["owner"])
    return user


def assistant(
    username: str = "assistant", names: Iterable[str] = RESEARCHER_PERMISSIONS, *, on: Iterable[Study] = ()
) -> Any:
    """Staff without the identity permission, collaborating on `on`."""
    names = list(names)
    assert VIEW_IDENTITY not in names, "an assistant does not see identities"
    user = user_with(username, names)
    for study in on:
        study.collaborators.add(user)
    return user


def member(username: str = "member") -> Any:
    """Signed in, but neither staff nor holding any permission."""
    return user_with(username, [], is_staff=False)


def anonymous() -> AnonymousUser:
    return AnonymousUser()


def participant_bot(study: Study, number: int) -> Bot:
    return Bot(study, pid(number))


def signed_in(user: Any, client: Client | None = None) -> Client:
    """`client` (a new one by default) signed in as `user`; left anonymous for `anonymous()`."""
    client = client or Client()
    if user.is_authenticated:
        client.force_login(user)
    return client


@dataclass
class Personas:
    superuser: Any
    owner: Any
    collaborator: Any
    viewer: Any
    outsider: Any

    def all(self) -> dict[str, Any]:
        return dict(vars(self))


def personas_for(study: Study, prefix: str = "") -> Personas:
    """The five personas around `study` (the study is given to the owner)."""
    people = Personas(
        superuser=superuser(f"{prefix}root"),
        owner=user_with(f"{prefix}owner"),
        collaborator=user_with(f"{prefix}collaborator"),
        viewer=user_with(f"{prefix}viewer", VIEWER_PERMISSIONS),
        outsider=user_with(f"{prefix}outsider"),
    )
    study.owner = people.owner
    study.save(update_fields=["owner"])
    study.collaborators.add(people.collaborator, people.viewer)
    return people
