"""API tokens are stored as hashes: the plaintext is shown once, when the token is made, and never in
the admin afterwards."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.admin.models import LogEntry
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from tests import personas
from tests.personas import user_with

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r"\b[0-9a-f]{64}\b")


def _api(token: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api


def test_a_token_made_in_the_admin_is_shown_once_and_never_again(superuser_client, django_user_model):
    staff = user_with("analyst")
    made = superuser_client.post("/admin/knox/authtoken/add/", {"user": staff.pk}, follow=True)
    assert made.status_code == 200
    shown = TOKEN.findall(made.content.decode())
    assert len(shown) == 1, "the new token is shown on the page that follows its creation"
    token = shown[0]
    assert _api(token).get("/api/studies/").status_code == 200

    from knox.models import AuthToken

    stored = AuthToken.objects.get(user=staff)
    assert token not in {stored.digest, stored.token_key} and stored.token_key == token[: len(stored.token_key)]
    pages = [
        "/admin/knox/authtoken/",
        f"/admin/knox/authtoken/{stored.pk}/change/",
        f"/admin/knox/authtoken/{stored.pk}/history/",
        f"/admin/knox/authtoken/{stored.pk}/delete/",
        f"/admin/auth/user/{staff.pk}/delete/",
        "/admin/",
    ]
    for url in pages:
        page = superuser_client.get(url)
        assert page.status_code == 200, url
        assert token not in page.content.decode(), f"{url} shows the token"
    assert not any(token in entry.object_repr or token in entry.change_message for entry in LogEntry.objects.all())


def test_the_command_prints_a_working_token_and_stores_only_its_hash(django_user_model):
    user = user_with("scripted")
    out = StringIO()
    call_command("create_api_token", "scripted", stdout=out)
    token = TOKEN.findall(out.getvalue())
    assert len(token) == 1
    assert _api(token[0]).get("/api/studies/").status_code == 200

    from knox.models import AuthToken

    assert [row.digest != token[0] for row in AuthToken.objects.filter(user=user)] == [True]
    assert _api("0" * 64).get("/api/studies/").status_code == 401


def test_the_command_refuses_an_unknown_or_non_staff_account(django_user_model):
    personas.member("member")
    with pytest.raises(CommandError, match="no account"):
        call_command("create_api_token", "nobody")
    with pytest.raises(CommandError, match="staff"):
        call_command("create_api_token", "member")


def test_a_token_with_bytes_that_are_not_utf8_is_refused_not_a_server_error(db):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token caf\xe9")
    assert api.get("/api/studies/").status_code == 401


# -- every token has a lifetime ------------------------------------------------------------------


def _days_ahead(moment) -> float:
    from django.utils import timezone

    return (moment - timezone.now()) / timedelta(days=1)


def test_a_new_token_lasts_90_days_by_default_and_says_so(django_user_model):
    from knox.models import AuthToken

    user_with("scripted")
    out = StringIO()
    call_command("create_api_token", "scripted", stdout=out)
    stored = AuthToken.objects.get(user__username="scripted")
    assert 89.99 < _days_ahead(stored.expiry) <= 90
    assert f"valid for 90 days, until {stored.expiry:%Y-%m-%d %H:%M} UTC" in out.getvalue()
    call_command("create_api_token", "scripted", "--days", "7", stdout=out)
    assert "valid for 7 days" in out.getvalue()


def test_the_default_lifetime_is_a_setting(settings, django_user_model):
    from api.tokens import api_token_create

    settings.API_TOKEN_DAYS = 30
    user_with("scripted")
    stored, _ = api_token_create(username="scripted")
    assert 29.99 < _days_ahead(stored.expiry) <= 30


def test_an_expired_token_is_refused_with_401(django_user_model):
    from django.utils import timezone
    from knox.models import AuthToken

    user = user_with("scripted")
    stored, token = AuthToken.objects.create(user)
    assert _api(token).get("/api/studies/").status_code == 200
    AuthToken.objects.filter(pk=stored.pk).update(expiry=timezone.now() - timedelta(minutes=1))
    assert _api(token).get("/api/studies/").status_code == 401


def test_a_token_made_without_an_expiry_lasts_the_lifetime_from_its_making(django_user_model):
    from django.utils import timezone
    from knox.models import AuthToken

    user = user_with("scripted")
    recent, recent_token = AuthToken.objects.create(user, expiry=None)
    old, old_token = AuthToken.objects.create(user, expiry=None)
    AuthToken.objects.filter(pk=recent.pk).update(created=timezone.now() - timedelta(days=89))
    AuthToken.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(days=91))
    assert _api(recent_token).get("/api/studies/").status_code == 200
    assert _api(old_token).get("/api/studies/").status_code == 401


def test_the_admin_fills_in_a_new_tokens_expiry_and_lists_each_tokens_lifetime(superuser_client):
    from knox.models import AuthToken

    staff = user_with("analyst")
    form = superuser_client.get("/admin/knox/authtoken/add/").context["adminform"].form
    assert 89.99 < _days_ahead(form["expiry"].initial) <= 90
    assert "90 days from now" in form.fields["expiry"].help_text
    made = superuser_client.post("/admin/knox/authtoken/add/", {"user": staff.pk}, follow=True)
    stored = AuthToken.objects.get(user=staff)
    assert 89.99 < _days_ahead(stored.expiry) <= 90
    assert f"valid for 90 days, until {stored.expiry:%Y-%m-%d %H:%M}" in made.content.decode()
    page = superuser_client.get("/admin/knox/authtoken/").content.decode()
    assert f"{stored.expiry:%Y-%m-%d %H:%M}" in page and "90 days" in page
    past = {"user": staff.pk, "expiry_0": "2020-01-01", "expiry_1": "00:00:00"}
    refused = superuser_client.post("/admin/knox/authtoken/add/", past)
    assert refused.status_code == 200 and "A token&#x27;s expiry is in the future." in refused.content.decode()
    assert AuthToken.objects.filter(user=staff).count() == 1
