"""Images in a researcher's Markdown: one from this site is shown, one from another host is shown as
its alt text and the participant's browser never asks that host for it (their address stays here)."""

from __future__ import annotations

import pytest

from studies.models import Study
from tests.browser.helpers import press_when_focused
from tests.factories import entry_url, pid, small_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONSENT = (
    "Please read this before you agree.\n\n"
    "![the study's logo](/static/favicon.svg)\n\n"
    "![a picture from elsewhere](https://images.example.org/track.png?who=participant)"
)


def test_the_consent_page_shows_the_sites_own_image_and_never_fetches_a_remote_one(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    study = small_study("images", units=1, unit_size=2, per_unit=1, attention_checks=0, exclude_at=0)
    Study.objects.filter(pk=study.pk).update(consent_text=CONSENT)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(live_server.url + entry_url(study, pid(31)))
    page.wait_for_selector("#start")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#consent")
    page.wait_for_load_state("networkidle")
    own = page.locator("#consent img")
    assert own.count() == 1 and own.get_attribute("src") == "/static/favicon.svg"
    assert own.evaluate("image => image.complete && image.naturalWidth > 0")
    assert page.locator("#consent .remote-image").inner_text() == "a picture from elsewhere"
    assert not [url for url in asked if "images.example.org" in url]
    assert any(url.endswith("/static/favicon.svg") for url in asked)
    page.screenshot(path=str(artifacts / "consent-images.png"), full_page=True)
