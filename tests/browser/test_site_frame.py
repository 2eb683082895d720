"""The frame of the researcher's pages in a browser: the navigation bar on every researcher page (and
on no participant page), Parity's own sign-in page, signing out with a POST, the favicon."""

from __future__ import annotations

import pytest

from tests.browser.helpers import sign_in
from tests.factories import Bot, entry_url, pid, small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-test-password"
NAV = {
    "#nav-studies": "/studies/",
    "#nav-new-study": "/studies/new/",
    "#nav-items": "/admin/annotation/item/",
    "#nav-runs": "/admin/modelruns/modelrun/",
    "#nav-api-docs": "/api/docs/",
    "#nav-admin": "/admin/",
}


@pytest.fixture
def fast_passwords(settings) -> None:
    # each sign-in checks a password, and the default hasher takes a while
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _with_password(user):
    user.first_name, user.last_name = "Ada", "Lovelace"
    user.set_password(PASSWORD)
    user.save(update_fields=["password", "first_name", "last_name"])
    return user


def test_every_researcher_page_has_the_navigation_bar_and_sign_out_is_a_post(
    live_server, page, artifacts, implicature_source, fast_passwords
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = _with_password(researcher("ada"))
    study = small_study("Implicature pilot", units=1, unit_size=5, per_unit=2, attention_checks=1, owner=owner)
    Bot(study, pid(1)).complete()
    sign_in(page, live_server, owner)
    pages = [
        "/studies/",
        "/studies/new/",
        "/studies/items/import/",
        f"/studies/{study.pk}/",
        f"/studies/{study.pk}/results/",
        f"/studies/{study.pk}/monitor/",
        f"/runs/study/{study.pk}/",
    ]
    for path in pages:
        page.goto(live_server.url + path)
        nav = page.locator("#site-nav")
        assert nav.count() == 1, f"{path} has no navigation bar"
        for selector, href in NAV.items():
            assert nav.locator(selector).get_attribute("href") == href, f"{path}: {selector}"
        assert nav.locator("#nav-user").inner_text() == "Signed in as Ada Lovelace"
    page.goto(live_server.url + "/studies/")
    page.set_viewport_size({"width": 1280, "height": 320})
    page.screenshot(path=str(artifacts / "study-list.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 720})

    # a participant's pages have no navigation, even in a researcher's browser
    page.goto(live_server.url + entry_url(study, pid(2)))
    page.wait_for_selector("#start")
    assert page.locator("#site-nav").count() == 0

    page.goto(live_server.url + "/studies/")
    methods: list[tuple[str, str]] = []
    page.on("request", lambda request: methods.append((request.method, request.url)))
    page.click("#sign-out button")
    page.wait_for_selector("#sign-in")
    assert ("POST", f"{live_server.url}/accounts/logout/") in methods
    assert page.url == f"{live_server.url}/accounts/login/"
    page.goto(live_server.url + "/studies/")
    assert page.url == f"{live_server.url}/accounts/login/?next=/studies/", "signed out: the pages ask to sign in"


def test_signing_out_needs_a_post(live_server, page):
    sign_in(page, live_server, researcher())
    response = page.request.get(f"{live_server.url}/accounts/logout/")
    assert response.status == 405
    page.goto(live_server.url + "/studies/")
    assert page.locator("#site-nav").count() == 1, "a GET signs no one out"


def test_the_sign_in_page_says_what_is_wrong_and_then_goes_where_it_was_asked(
    live_server, page, artifacts, fast_passwords
):
    _with_password(researcher("ada"))
    page.goto(f"{live_server.url}/studies/")
    assert page.url == f"{live_server.url}/accounts/login/?next=/studies/", "Parity's page, not the admin's"
    page.set_viewport_size({"width": 900, "height": 520})
    page.screenshot(path=str(artifacts / "sign-in.png"), full_page=True)
    page.fill("#id_username", "ada")
    page.fill("#id_password", "not-the-password")
    page.click("#sign-in-button")
    error = page.locator("#sign-in-error")
    assert "Please enter a correct username and password" in error.inner_text()
    assert page.input_value("#id_username") == "ada", "the username typed is kept"
    page.screenshot(path=str(artifacts / "sign-in-error.png"), full_page=True)

    page.fill("#id_password", PASSWORD)
    page.click("#sign-in-button")
    page.wait_for_selector("#site-nav")
    assert page.url == f"{live_server.url}/studies/"


def test_signing_in_without_next_lands_on_the_study_list(live_server, page, fast_passwords):
    _with_password(researcher("ada"))
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", PASSWORD)
    page.click("#sign-in-button")
    page.wait_for_selector("#site-nav")
    assert page.url == f"{live_server.url}/studies/"


def test_the_favicon_is_linked_and_served(live_server, page):
    page.goto(f"{live_server.url}/accounts/login/")
    icon = page.locator('link[rel="icon"]').get_attribute("href")
    assert icon == "/static/favicon.svg"
    for path in (icon, "/favicon.ico"):
        response = page.request.get(live_server.url + path)
        assert response.status == 200 and response.headers["content-type"].startswith("image/svg+xml"), path
        assert response.text().startswith("<svg")
