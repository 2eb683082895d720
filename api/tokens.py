"""Making API tokens. Only a hash of each token is stored: the caller shows the plaintext once.

Every token has a lifetime, `API_TOKEN_DAYS` (90) unless made with another: a token copied into a
script, a notebook or a shell history stops working by itself. A token made before tokens had a
lifetime (its expiry empty) lasts that long from when it was made."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone
from knox.models import AuthToken


class TokenError(ValueError):
    pass


def token_lifetime() -> timedelta:
    """How long a new token is valid unless made with another lifetime."""
    return timedelta(days=settings.API_TOKEN_DAYS)


def token_expires(token: AuthToken) -> datetime:
    """When `token` stops working: its expiry, or (made before tokens had one) its creation plus the lifetime."""
    return token.expiry if token.expiry is not None else token.created + token_lifetime()


def token_lifetime_days(token: AuthToken) -> int:
    """The whole days from a token's making to its end."""
    return round((token_expires(token) - token.created) / timedelta(days=1))


def token_has_expired(token: AuthToken) -> bool:
    return token_expires(token) <= timezone.now()


def api_token_create(*, username: str, valid_days: int | None = None) -> tuple[AuthToken, str]:
    """A new token for a researcher (a staff account), valid for `valid_days` (default
    `API_TOKEN_DAYS`); returns the stored row and the plaintext."""
    user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}).first()
    if user is None:
        raise TokenError(f"There is no account {username!r}.")
    if not (user.is_active and user.is_staff):
        raise TokenError(f"{username!r} is not an active staff account: the API is for researchers only.")
    if valid_days is not None and valid_days < 1:
        raise TokenError("A token is valid for at least one day.")
    return AuthToken.objects.create(user, expiry=timedelta(days=valid_days) if valid_days else token_lifetime())
