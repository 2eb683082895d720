"""Run in a fresh interpreter (spawned, never forked: a test process that has loaded torch or a
browser holds threads, and a fork of it can hang on a lock one of them held): set Django up with
the cache and the rate a test gives, then ask the anonymous throttle `times` times and return how
many it let through."""

from __future__ import annotations

import os
from typing import Any


def ask(times: int, caches_setting: dict[str, Any], rest_framework: dict[str, Any]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth.models import AnonymousUser
    from django.test import override_settings

    class Caller:
        """What the anonymous throttle reads of a request: the user and the client's address."""

        user = AnonymousUser()
        META = {"REMOTE_ADDR": "203.0.113.7"}
        headers: dict[str, str] = {}

    with override_settings(CACHES=caches_setting, REST_FRAMEWORK=rest_framework):
        from api.throttles import AnonymousRateThrottle

        return sum(AnonymousRateThrottle().allow_request(Caller(), None) for _ in range(times))  # type: ignore[arg-type]
