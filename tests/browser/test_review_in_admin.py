"""A reviewer after a study on Prolific, in a real browser at 1,600 px: finds the flagged people from
the participant list (which flag, in a column), excludes one with a reason and is brought back to the
same filtered list, previews the review (who is approved, who rejected with which message) and the
bonuses (each amount, the total) before anything goes to Prolific, sends them, and is warned when an
exclusion then disagrees with a decision already sent."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from freezegun import freeze_time

from prolific.services import prolific_study_configure, prolific_study_create
from studies.models import Participant, Response
from tests.browser.helpers import sign_in
from tests.personas import researcher
from tests.prolific.helpers import arrive, failing_checks, prolific_study
from tests.prolific.standin import StandIn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def standin(settings):
    server = StandIn(timeout_delay=4.0).start()
    settings.PROLIFIC_API_URL, settings.PROLIFIC_API_TOKEN = server.url, server.token
    settings.PROLIFIC_TIMEOUT_SECONDS, settings.PROLIFIC_BACKOFF_SECONDS = 5.0, 0.001
    settings.PROLIFIC_WORKSPACE_ID = "workspace-1"
    yield server
    server.stop()


def _act(page, action: str, *pks: int) -> None:
    """Tick the rows, choose the action, press Go: as a person does on an admin list."""
    for pk in pks:
        page.check(f'input.action-select[value="{pk}"]')
    page.select_option('select[name="action"]', action)
    page.click('button[name="index"]')


def test_a_reviewer_finds_excludes_previews_sends_and_is_warned(
    live_server, page, artifacts, standin, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher("ada")
    study = prolific_study("Implicature reviewed", owner=owner)
    found = prolific_study_create(study=study)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    # four people, 20 s an item on a test clock (no one reads as a program): A3 fails the checks,
    # A4 pastes the item into a chatbot (its answers carry the canary word)
    with freeze_time(timezone.now() - timedelta(hours=1)) as clock:
        for n in (1, 2, 3, 4):
            bot, submission = arrive(standin, study, found.prolific_id, n)
            bot.start_items().answer_items(
                failing_checks if n == 3 else None, wait=lambda: clock.tick(timedelta(seconds=20))
            )
            standin.submission_set(submission, "AWAITING REVIEW", bot.participant.completion_code())
    people = {p.pseudonym: p for p in Participant.objects.filter(study=study)}
    Response.objects.filter(participant=people["A4"]).update(extra={"canary": True})

    page.set_viewport_size({"width": 1600, "height": 900})
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/admin/studies/participant/?study__id__exact={study.pk}")
    page.click('#changelist-filter a:has-text("Any flag")')
    page.wait_for_url("**flag=any**")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 1 and "canary" in rows.first.inner_text()
    assert "A4 · Implicature reviewed" in rows.first.inner_text()
    filtered = page.url
    _act(page, "exclude_with_reason", people["A4"].pk)
    page.wait_for_selector("#exclusion-list")
    page.fill("#id_reason", "copied the items to an AI (the canary word)")
    page.click('input[name="apply"]')
    page.wait_for_selector(".messagelist .success")
    assert page.url == filtered  # the reviewer's filters are kept
    # nothing cut off at 1,600 px: the list needs no scrolling, and Excluded and Reason are on the screen
    assert page.evaluate("(el => el.scrollWidth <= el.clientWidth)(document.querySelector('#changelist .results'))")
    shown = page.locator("#changelist .results").bounding_box()
    for cell in ("th.column-excluded", "th.column-reason", "td.field-excluded", "td.field-reason span"):
        box = page.locator(f"#result_list {cell}").first.bounding_box()
        assert box is not None and shown is not None and box["x"] + box["width"] <= shown["x"] + shown["width"], cell
    page.screenshot(path=str(artifacts / "admin-review-list.png"), full_page=True)

    page.goto(f"{live_server.url}/admin/prolific/prolificstudy/")
    _act(page, "review", found.pk)
    page.wait_for_selector(".review-preview")
    rejections = page.locator(".preview-rejections").inner_text()
    assert "A3 · Implicature reviewed" in rejections and "you failed 2 attention checks" in rejections
    approvals = page.locator(".preview-approvals").inner_text()
    assert all(f"{name} · Implicature reviewed" in approvals for name in ("A1", "A2", "A4"))
    assert "copied the items to an AI" in approvals  # A4: approved although excluded, and why
    assert standin.decisions == []  # nothing sent yet
    page.screenshot(path=str(artifacts / "admin-review-preview.png"), full_page=True)
    page.click("#confirm-send")
    page.wait_for_selector(".messagelist .success")
    assert "approved 2, rejected 1, approved and flagged 1" in page.locator(".messagelist").inner_text()
    assert sorted(action for _, action in standin.decisions) == ["APPROVE", "APPROVE", "APPROVE", "REJECT"]

    _act(page, "pay_bonuses", found.pk)
    page.wait_for_selector(".bonus-preview")
    lines = page.locator(".preview-bonuses tbody tr")
    assert lines.count() == 2  # the kept ones: A1 and A2, three study items right each at 5p
    assert page.locator(".preview-bonuses tfoot .amount").inner_text() == "£0.30"
    assert standin.payments == []
    page.screenshot(path=str(artifacts / "admin-bonus-preview.png"), full_page=True)
    page.click("#confirm-send")
    page.wait_for_selector(".messagelist .success")
    assert len(standin.payments) == 1

    page.goto(f"{live_server.url}/admin/studies/participant/?study__id__exact={study.pk}")
    _act(page, "exclude_participants", people["A1"].pk)
    page.wait_for_selector("#decision-warnings")  # warned before: nothing changed yet
    assert not Participant.objects.get(pk=people["A1"].pk).excluded
    page.screenshot(path=str(artifacts / "admin-exclusion-conflict.png"), full_page=True)
    page.click('input[name="apply"]')
    page.wait_for_selector(".messagelist .warning")
    warning = page.locator(".messagelist .warning").inner_text()
    assert "A1 was approved on Prolific as a kept participant and given a bonus of £0.15" in warning
    page.goto(f"{live_server.url}/admin/studies/participant/?study__id__exact={study.pk}&mismatch=yes")
    assert page.locator("#result_list tbody tr").count() == 1
    page.click('#result_list a:has-text("A1 · Implicature reviewed")')
    assert "Disagrees with the exclusion" in page.locator(".field-prolific_decision").inner_text()
    page.screenshot(path=str(artifacts / "admin-participant-decision.png"), full_page=True)
