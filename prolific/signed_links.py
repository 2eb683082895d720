"""Prolific's optional signed study links: a JWT checked against Prolific's published JWKS.

Off unless PROLIFIC_JWKS_URL is set. The checks follow Prolific's documentation
(https://docs.prolific.com/api-reference/well-known-endpoints/get-study-jwks): the signature (key
chosen by `kid`), `exp`, `aud` (our domain), and the `prolific` claim against the link: the
participant, and the Prolific study that recruits for this Parity study.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    # imported where a link is checked: every command loads the participants' views
    import jwt


class SignatureError(ValueError):
    pass


def signing_enabled() -> bool:
    return bool(settings.PROLIFIC_JWKS_URL)


@lru_cache(maxsize=4)
def _jwks_client(url: str) -> jwt.PyJWKClient:
    import jwt

    # PyJWKClient caches the key set (Prolific asks clients to refresh at least daily).
    return jwt.PyJWKClient(url, cache_keys=True, lifespan=6 * 3600)


def verify_signed_link(
    token: str | None, *, pid: str, study_id: str = "", session_id: str = "", prolific_study_id: str = ""
) -> dict:
    """Return the token's claims, or raise SignatureError with a reason a participant can read.

    The `prolific` claim carries the link's parameters as Prolific filled them in: it must name this
    PROLIFIC_PID (a token signed for nobody in particular would let any made-up ID in), and the
    STUDY_ID and SESSION_ID it names must be the link's. `prolific_study_id`: the Prolific study
    that recruits for this Parity study, when Parity created it; the link and the token must both
    name it, or a valid token for any other study of any researcher would let its holder in."""
    import jwt

    if not token:
        raise SignatureError("the link is not signed")
    try:
        key = _jwks_client(settings.PROLIFIC_JWKS_URL).get_signing_key_from_jwt(token)
        claims = jwt.decode(
            token,
            key.key,
            algorithms=["RS256"],
            audience=settings.PROLIFIC_JWT_AUDIENCE or None,
            options={"require": ["exp", "aud"]},
        )
    except jwt.ExpiredSignatureError:
        raise SignatureError("the link has expired") from None
    except (jwt.PyJWKClientError, jwt.InvalidTokenError) as exc:
        raise SignatureError(f"the link's signature is not valid ({exc})") from None
    signed = claims.get("prolific")
    named: dict[str, Any] = signed if isinstance(signed, dict) else {}
    if not named.get("PROLIFIC_PID"):
        raise SignatureError("the link's signature does not name a participant")
    if str(named["PROLIFIC_PID"]).lower() != pid.lower():
        raise SignatureError("the link was signed for another participant")
    if prolific_study_id and study_id != prolific_study_id:
        raise SignatureError("the link is for another Prolific study")
    if prolific_study_id and named.get("STUDY_ID") != prolific_study_id:
        raise SignatureError("the link was signed for another Prolific study")
    for name, value in (("STUDY_ID", study_id), ("SESSION_ID", session_id)):
        if named.get(name) and named[name] != value:
            raise SignatureError(f"the link's {name} is not the one Prolific signed")
    return claims
