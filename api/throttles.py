"""Paging and throttling of the researchers' API, with the limits taken from the settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

if TYPE_CHECKING:
    from rest_framework.views import APIView

    # `ThrottledBeforeRefused` extends an APIView: its super() is the view's
    _View = APIView
else:
    _View = object


class CappedPagination(LimitOffsetPagination):
    """`?limit=` beyond `API_MAX_PAGE_SIZE` is cut to it: an unbounded page would load a whole table
    (and a limit past 2**63 overflows the database's integer, a server error)."""

    #: rows per page when `?limit=` is not given (not DRF's PAGE_SIZE setting: config/settings.py)
    default_limit = 100

    @property
    def max_limit(self) -> int:  # type: ignore[override]
        return settings.API_MAX_PAGE_SIZE


class _RatesFromSettings:
    """DRF binds the rates to the throttle class when it is imported; read them per request instead,
    so that the settings in force (and a test's override) decide."""

    scope: str | None

    def get_rate(self) -> str | None:
        if self.scope is None:
            return None
        # the stubs type the rates as numbers; DRF's are strings ("100/hour")
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)  # type: ignore[return-value]


class ResearcherRateThrottle(_RatesFromSettings, UserRateThrottle):
    """Per account (`user` rate)."""


class AnonymousRateThrottle(_RatesFromSettings, AnonRateThrottle):
    """Per client address for callers without valid credentials (`anon` rate)."""


# DRF checks permissions before throttles, and a bad token fails before either: callers without
# valid credentials would never be counted. Count every request right after authentication,
# whether it succeeded or not, and only once. (A comment, not a docstring: the schema would show
# it as the description of every operation.)
class ThrottledBeforeRefused(_View):
    _throttles_checked = False

    def perform_authentication(self, request: Request) -> None:
        try:
            super().perform_authentication(request)
        finally:
            self.check_throttles(request)

    def check_throttles(self, request: Request) -> None:
        if not self._throttles_checked:
            self._throttles_checked = True
            super().check_throttles(request)
