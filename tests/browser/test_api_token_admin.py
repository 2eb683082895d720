"""A superuser makes an API token in the admin: its expiry is filled in (90 days ahead), the token is
shown once with its lifetime, and the list of tokens gives each one's end and lifetime."""

from __future__ import annotations

import re

import pytest
from knox.models import AuthToken

from tests.browser.helpers import sign_in
from tests.personas import superuser, user_with

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_token_made_in_the_admin_expires_in_90_days_and_the_list_says_when(live_server, page, artifacts):
    sign_in(page, live_server, superuser())
    analyst = user_with("analyst")
    page.goto(f"{live_server.url}/admin/knox/authtoken/add/")
    page.fill("#id_user", str(analyst.pk))
    assert page.locator("#id_expiry_0").input_value()  # the date, filled in
    assert "90 days from now" in page.locator(".field-expiry").inner_text()
    page.click("input[name=_save]")
    message = page.locator(".messagelist .info").inner_text()
    stored = AuthToken.objects.get(user=analyst)
    assert re.search(r"TOKEN [0-9a-f]{64} — valid for 90 days, until ", message)
    assert f"{stored.expiry:%Y-%m-%d %H:%M}" in message
    page.goto(f"{live_server.url}/admin/knox/authtoken/")
    row = page.locator("#result_list tbody tr").first.inner_text()
    assert f"{stored.expiry:%Y-%m-%d %H:%M}" in row and "90 days" in row
    page.screenshot(path=str(artifacts / "api-tokens-admin.png"), full_page=True)
