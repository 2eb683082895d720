"""Repeated failed logins lock the caller's address out for a cool-off time: at the admin's login
page and at the API (a wrong token counts as a failed login). The right credentials are refused too
while locked out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests import personas

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"
ATTACKER, COLLEAGUE = "203.0.113.7", "198.51.100.23"


@pytest.fixture
def staff(django_user_model, settings):
    # a fast hasher: each login below checks a password, and the default one takes a while
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    user = personas.superuser("lockout-staff")
    user.set_password(PASSWORD)
    user.save(update_fields=["password"])
    return user


def _login(password: str, address: str = ATTACKER):
    browser = Client(REMOTE_ADDR=address)
    response = browser.post("/admin/login/?next=/admin/", {"username": "lockout-staff", "password": password})
    return response, browser


def _signed_in(browser: Client) -> bool:
    return browser.get("/admin/").status_code == 200


def _limit(settings) -> int:
    # the configured limit (read leniently, so that a settings module without one fails on behaviour)
    return getattr(settings, "AXES_FAILURE_LIMIT", 5)


def test_the_admin_login_refuses_the_right_password_after_the_failure_limit(staff, settings):
    limit = _limit(settings)
    failed = [_login("wrong-password")[0] for _ in range(limit)]
    assert all(r.status_code == 200 and b"Please enter the correct" in r.content for r in failed[:-1])
    assert failed[-1].status_code in {200, 429}  # the failure that reaches the limit may say so at once
    response, browser = _login(PASSWORD)
    assert response.status_code == 429 and b"too many login attempts" in response.content
    assert not _signed_in(browser)
    # another address is not locked out
    response, browser = _login(PASSWORD, COLLEAGUE)
    assert response.status_code == 302 and _signed_in(browser)


def test_a_login_below_the_limit_succeeds_and_the_lockout_ends_after_the_cool_off(staff, settings):
    from axes.models import AccessAttempt

    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _login("wrong-password")
    response, browser = _login(PASSWORD)
    assert response.status_code == 302 and _signed_in(browser)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login("wrong-password")
    assert _login(PASSWORD)[0].status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    )
    response, browser = _login(PASSWORD)
    assert response.status_code == 302 and _signed_in(browser)


def test_the_api_refuses_the_right_token_after_the_failure_limit_of_wrong_ones(staff, settings):
    token = AuthToken.objects.create(staff)[1]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "1000/minute", "user": "1000/minute"},
    }

    def call(key: str, address: str = ATTACKER) -> int:
        return APIClient(REMOTE_ADDR=address).get("/api/studies/", HTTP_AUTHORIZATION=f"Token {key}").status_code

    assert call(token) == 200
    wrong = [call("f" * 64) for _ in range(_limit(settings))]
    assert wrong[:-1] == [401] * (_limit(settings) - 1) and wrong[-1] in {401, 429}
    assert call(token) == 429
    assert call(token, COLLEAGUE) == 200


def test_the_limits_come_from_the_settings(settings):
    assert settings.AXES_FAILURE_LIMIT >= 3 and settings.AXES_COOLOFF_TIME >= timedelta(minutes=1)
    assert settings.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"


def _login_via(forwarded: str, password: str, proxy: str = "10.0.0.2"):
    browser = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=forwarded)
    return browser.post("/admin/login/?next=/admin/", {"username": "lockout-staff", "password": password})


def test_behind_a_trusted_proxy_each_client_address_is_locked_out_on_its_own(staff, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    for n in range(_limit(settings)):
        # the attacker varies what it writes itself; the proxy appends the address it saw
        _login_via(f"192.0.2.{n}, {ATTACKER}", "wrong-password")
    assert _login_via(f"192.0.2.99, {ATTACKER}", PASSWORD).status_code == 429
    assert _login_via(COLLEAGUE, PASSWORD).status_code == 302


def test_without_a_proxy_a_forged_forwarded_header_does_not_escape_the_lockout(staff, settings):
    for n in range(_limit(settings)):
        _login_via(f"192.0.2.{n}", "wrong-password", proxy=ATTACKER)
    assert _login_via("192.0.2.200", PASSWORD, proxy=ATTACKER).status_code == 429


def test_the_sign_in_page_locks_out_as_the_admin_login_does(staff, settings):
    def sign_in(password: str) -> tuple[int, Client]:
        browser = Client(REMOTE_ADDR=ATTACKER)
        response = browser.post("/accounts/login/?next=/studies/", {"username": "lockout-staff", "password": password})
        return response.status_code, browser

    failed = [sign_in("wrong-password")[0] for _ in range(_limit(settings))]
    assert failed[:-1] == [200] * (_limit(settings) - 1) and failed[-1] in {200, 429}
    status, browser = sign_in(PASSWORD)
    assert status == 429 and not _signed_in(browser)
