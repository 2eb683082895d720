"""The client's address as the login lockout sees it, behind a known number of proxies."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """REMOTE_ADDR, or, behind TRUSTED_PROXY_COUNT proxies that each append the address they saw to
    X-Forwarded-For, the address the outermost trusted proxy saw (the same rule as the API's
    throttles): entries further left were written by the client and prove nothing."""
    count = settings.TRUSTED_PROXY_COUNT
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if count and forwarded:
        return forwarded[-min(count, len(forwarded))]
    return request.META.get("REMOTE_ADDR")
