"""Making API tokens. Only a hash of each token is stored: the caller shows the plaintext once."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from knox.models import AuthToken


class TokenError(ValueError):
    pass


def api_token_create(*, username: str, valid_days: int | None = None) -> tuple[AuthToken, str]:
    """A new token for a researcher (a staff account); returns the stored row and the plaintext."""
    user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}).first()
    if user is None:
        raise TokenError(f"There is no account {username!r}.")
    if not (user.is_active and user.is_staff):
        raise TokenError(f"{username!r} is not an active staff account: the API is for researchers only.")
    if valid_days is not None and valid_days < 1:
        raise TokenError("A token is valid for at least one day.")
    return AuthToken.objects.create(user, expiry=timedelta(days=valid_days) if valid_days else None)
