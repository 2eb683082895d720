"""`manage.py check --deploy` is clean for a deployment configured as the README says (DEBUG off,
HTTPS=1), and the embedded default (plain HTTP on localhost) keeps working."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO


def _manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DEBUG",
            "HTTPS",
            "SECURE_COOKIES",
            "SECURE_SSL_REDIRECT",
            "HSTS_SECONDS",
            "HSTS_INCLUDE_SUBDOMAINS",
            "HSTS_PRELOAD",
            "BEHIND_TLS_PROXY",
            "SECRET_KEY",
            "DATABASE_URL",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
            "CACHE_URL",
            "DATABASE_CONN_MAX_AGE",
        }
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**base, "PARITY_VAR_DIR": str(tmp_path), **env},
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_documented_https_settings(tmp_path):
    done = _manage(
        tmp_path,
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        HTTPS="1",
        ALLOWED_HOSTS="parity.example.org",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_https_turns_on_redirects_secure_cookies_and_hsts(tmp_path):
    show = (
        "from django.conf import settings as s; print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, "
        "s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, getattr(s, 'SECURE_PROXY_SSL_HEADER', None))"
    )
    on = _manage(tmp_path, "shell", "-c", show, HTTPS="1", BEHIND_TLS_PROXY="1")
    assert on.stdout.strip().splitlines()[-1] == "True True True 31536000 ('HTTP_X_FORWARDED_PROTO', 'https')", (
        on.stderr
    )
    embedded = _manage(tmp_path, "shell", "-c", show)
    assert embedded.stdout.strip().splitlines()[-1] == "False False False 0 None", embedded.stderr


@pytest.mark.parametrize("name", ["HTTPS", "HSTS_SECONDS"])
def test_a_bad_value_is_a_clear_error(tmp_path, name):
    done = _manage(tmp_path, "check", **{name: "sometimes"})
    assert done.returncode != 0 and f"{name}='sometimes'" in done.stderr


def test_the_production_profile_keeps_connections_and_reads_sessions_through_redis(tmp_path):
    show = (
        "from django.conf import settings as s; d = s.DATABASES['default']; "
        "print(d['CONN_MAX_AGE'], d['CONN_HEALTH_CHECKS'], s.SESSION_ENGINE, s.CACHES['default']['BACKEND'])"
    )
    served = _manage(tmp_path, "shell", "-c", show, DATABASE_CONN_MAX_AGE="60", CACHE_URL="redis://127.0.0.1:6379/3")
    assert served.stdout.strip().splitlines()[-1] == (
        "60 True django.contrib.sessions.backends.cached_db django.core.cache.backends.redis.RedisCache"
    ), served.stderr
    embedded = _manage(tmp_path, "shell", "-c", show)
    assert embedded.stdout.strip().splitlines()[-1] == (
        "0 False django.contrib.sessions.backends.db django.core.cache.backends.filebased.FileBasedCache"
    ), embedded.stderr


def test_postgresql_runs_on_djangos_own_backend_with_its_default_binding(tmp_path):
    show = (
        "from django.conf import settings as s; d = s.DATABASES['default']; "
        "print(d['ENGINE'], sorted(d.get('OPTIONS', {})))"
    )
    served = _manage(tmp_path, "shell", "-c", show, DATABASE_URL="postgres://postgres@127.0.0.1:5432/parity")
    assert served.stdout.strip().splitlines()[-1] == "django.db.backends.postgresql []", served.stderr


def test_the_throttles_count_across_the_processes_of_one_machine_without_redis(tmp_path):
    """`scripts/serve` starts several web workers: a client allowed two requests a minute gets two in
    all, not two from each worker (the count lives in files under the data directory, not in each
    process's memory)."""
    ask = (
        "from django.test import RequestFactory; from rest_framework.request import Request; "
        "from rest_framework.throttling import AnonRateThrottle; "
        "request = Request(RequestFactory().get('/api/studies/')); "
        "print([AnonRateThrottle().allow_request(request, None) for _ in range({n})])"
    )
    first = _manage(tmp_path, "shell", "-c", ask.replace("{n}", "2"), API_THROTTLE_ANON="2/minute")
    assert first.stdout.strip().splitlines()[-1] == "[True, True]", first.stderr
    other = _manage(tmp_path, "shell", "-c", ask.replace("{n}", "1"), API_THROTTLE_ANON="2/minute")
    assert other.stdout.strip().splitlines()[-1] == "[False]", other.stderr
