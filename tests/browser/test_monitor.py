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


def test_the_monitor_forecasts_the_participants_and_rewards_a_planned_looks_target_will_take(
    live_server, page, artifacts, implicature_source
):
    import math
    import statistics

    from scipy import stats

    from annotation.services import benchmark_import
    from prolific.models import ProlificStudy
    from studies.models import Participant, Response

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    study = small_study(
        "forecast in a browser", units=2, unit_size=5, per_unit=20, attention_checks=1, exclude_at=1, owner=owner
    )
    # six people complete, the n-th wrong on the first n % 4 study items: a spread of accuracies
    for n in range(1, 7):
        missed = []

        def answer(item, n=n, missed=missed):
            if item.is_attention_check or len(missed) >= n % 4:
                return item.gold
            missed.append(item.pk)
            return "no" if item.gold == "yes" else "yes"

        Bot(study, pid(n)).start_items().answer_items(answer)
    ProlificStudy.objects.create(
        study=study,
        prolific_id="6a1f",
        status=ProlificStudy.Status.ACTIVE,
        places=6,
        currency="USD",
        target_kind="ci_width",
        target_value=20,
        max_spend_pence=450 * 200,
    )

    # the forecast worked out here from the stored answers and the study's reward
    kept = Participant.objects.filter(study=study, status=Participant.Status.COMPLETED, excluded=False)
    accuracies = []
    for person in kept:
        right = list(
            Response.objects.filter(participant=person, is_attention_check=False).values_list("correct", flat=True)
        )
        accuracies.append(sum(right) / len(right))
    n, sd = len(accuracies), statistics.stdev(accuracies)
    assert n == 6 and sd > 0

    def needs(spread: float) -> int:
        t = stats.t.ppf(0.98, n - 1)  # the looks' 96% t quantile
        return max(n, 20, math.ceil((2 * t * spread / 0.20) ** 2))

    expected = needs(sd)
    low = needs(sd * math.sqrt((n - 1) / stats.chi2.ppf(0.975, n - 1)))
    high = needs(sd * math.sqrt((n - 1) / stats.chi2.ppf(0.025, n - 1)))
    reward = study.reward_pence

    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/studies/{study.pk}/monitor/")
    forecast = page.locator("#monitor-forecast")
    forecast.wait_for()
    assert forecast.locator('[data-forecast="expected"]').inner_text() == str(expected)
    assert forecast.locator('[data-forecast="range"]').inner_text() == f"{low}–{high}"
    assert forecast.locator('[data-forecast="cost"]').inner_text() == f"${expected * reward / 100:.2f}"
    assert forecast.locator('[data-forecast="cost-range"]').inner_text() == (
        f"${low * reward / 100:.2f}–${high * reward / 100:.2f}"
    )
    text = forecast.inner_text()
    assert f"the {n} so far, SD {sd:.3f}" in text and f"{expected - n} more" in text
    assert f"${(expected - n) * reward / 100:.2f} of it still to come" in text
    # the monitor gives no estimate of accuracy to stop on, and says why
    assert "there is no early stop" in page.locator("#monitor-looks-why").inner_text()
    assert "The next look reads 20 kept participants." in page.locator("#monitor-looks").inner_text()
    page.screenshot(path=str(artifacts / "monitor-forecast.png"), full_page=True)
