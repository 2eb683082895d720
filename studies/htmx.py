"""The request that views reading `request.htmx` receive: django-htmx's middleware (config/settings.py)
sets the attribute on every request, which plain `HttpRequest` does not declare."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
