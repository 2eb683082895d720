"""The live monitor in a real browser: the counts shown, and the htmx refresh after a new arrival."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from freezegun import freeze_time

from tests.browser.helpers import sign_in
from tests.factories import Bot, pid, small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _count(page, name: str) -> str:
    return page.locator(f'#monitor [data-count="{name}"]').inner_text().strip()


def test_the_monitor_shows_the_counts_and_refreshes_after_a_new_arrival(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    study = small_study(
        "monitored in a browser",
        units=2,
        unit_size=5,
        per_unit=3,
        attention_checks=1,
        exclude_at=1,
        reward_pence=25,
        owner=owner,
    )
    # the last half hour, on a test clock: four complete at 15-30 s an item, one answers "yes" throughout;
    # the median completion takes 2 minutes: 25p makes £7.50/h
    with freeze_time(timezone.now() - timedelta(minutes=30)) as clock:
        for n, seconds in enumerate((20, 30, 15, 25), start=1):
            Bot(study, pid(n)).start_items().answer_items(wait=lambda s=seconds: clock.tick(timedelta(seconds=s)))
            clock.tick(timedelta(minutes=3))
        Bot(study, pid(5)).start_items().answer_items(
            lambda item: item.gold if item.is_attention_check else "yes", wait=lambda: clock.tick(timedelta(seconds=12))
        )
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/studies/{study.pk}/monitor/")
    page.wait_for_selector("#monitor-chart svg")
    assert (_count(page, "arrivals"), _count(page, "working"), _count(page, "completed")) == ("5", "0", "5")
    assert "A5" in page.locator("#monitor-flagged").inner_text()
    assert "below Prolific's recommended rate" in page.locator("#monitor-warnings").inner_text()
    before = page.locator("#monitor").get_attribute("data-generated")

    Bot(study, pid(6)).start_items().answer_items(count=1)  # someone arrives and starts answering
    page.wait_for_function(
        "document.querySelector('#monitor [data-count=\"arrivals\"]').textContent.trim() === '6'", timeout=30_000
    )
    page.wait_for_selector("#monitor:not(.htmx-swapping):not(.htmx-settling)")
    assert page.locator("#monitor").get_attribute("data-generated") != before
    assert (_count(page, "arrivals"), _count(page, "working"), _count(page, "completed")) == ("6", "1", "5")
    page.screenshot(path=str(artifacts / "monitor.png"), full_page=True)
