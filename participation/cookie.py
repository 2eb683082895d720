"""Which participants this browser entered as: a cookie signed with the site's key.

Every participant page asks this first. It used to be a key of the session; the cookie carries the
same ids with the request itself, so a participant's pages need no session at all, and nobody can
forge one without SECRET_KEY. It holds only ids (study → participant), as the session did: what a
participant may do is decided by their row (an erased or released participant leads nowhere,
whatever the cookie says).

Browsers that entered before the cookie existed still have the ids in their session: read there
when the cookie is absent, and the cookie is written with the next response that admits them.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from django.conf import settings
from django.http import HttpRequest, HttpResponse

COOKIE = "parity_participants"
_SALT = "parity.participants"
#: the session key of the ids before the cookie (still read, never written)
SESSION_KEY = "parity:participants"
#: what `known` read for a request, kept while the request lives (one page asks several times)
_read: WeakKeyDictionary[HttpRequest, dict[int, int]] = WeakKeyDictionary()


def known(request: HttpRequest) -> dict[int, int]:
    """study id → participant id, for every study this browser entered (empty when none, or when the
    cookie was tampered with or has expired)."""
    cached = _read.get(request)
    if cached is not None:
        return cached
    value = request.get_signed_cookie(COOKIE, default=None, salt=_SALT, max_age=settings.SESSION_COOKIE_AGE)
    found = _parse(value) if value is not None else _from_session(request)
    _read[request] = found
    return found


def remember(request: HttpRequest, response: HttpResponse, study_id: int, participant_id: int) -> None:
    """This browser is `participant_id` in study `study_id` from now on (the others it entered stay)."""
    ids = {**known(request), study_id: participant_id}
    _read[request] = ids
    response.set_signed_cookie(
        COOKIE,
        "-".join(f"{study}.{participant}" for study, participant in sorted(ids.items())),
        salt=_SALT,
        max_age=settings.SESSION_COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def _parse(value: str) -> dict[int, int]:
    ids = {}
    for pair in value.split("-"):
        study, _, participant = pair.partition(".")
        if study.isdigit() and participant.isdigit():
            ids[int(study)] = int(participant)
    return ids


def _from_session(request: HttpRequest) -> dict[int, int]:
    """The ids a browser from before the cookie keeps in its session (only a browser that sends a
    session cookie costs the session read)."""
    if settings.SESSION_COOKIE_NAME not in request.COOKIES or not hasattr(request, "session"):
        return {}
    stored = request.session.get(SESSION_KEY, {})
    return {
        int(study): participant
        for study, participant in stored.items()
        if str(study).isdigit() and isinstance(participant, int)
    }
