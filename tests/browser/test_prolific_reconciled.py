"""A study whose Prolific side changed on its own, reconciled in a real browser: one completer's submission
timed out, one returned after completing, a bulk approval was accepted but not applied for one, and
Prolific moved the study to awaiting review. The researcher syncs from the admin, reads each person's
flags there and Prolific's status beside Parity's on the monitor, previews and pays the bonus owed to the
timed-out completer; nobody's answers are lost and everybody's pay is accounted for."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from freezegun import freeze_time

from prolific.models import BonusLine, ProlificFlag, ProlificStudy, ProlificSubmission
from prolific.review import prolific_review
from prolific.services import prolific_study_create, prolific_study_transition
from studies.models import Participant, Response, Study
from tests.browser.helpers import sign_in
from tests.factories import small_study
from tests.personas import researcher
from tests.prolific.helpers import arrive
from tests.prolific.standin import StandIn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAME = "Implicature drifted"


@pytest.fixture
def standin(settings):
    server = StandIn(timeout_delay=4.0).start()
    settings.PROLIFIC_API_URL, settings.PROLIFIC_API_TOKEN = server.url, server.token
    settings.PROLIFIC_TIMEOUT_SECONDS, settings.PROLIFIC_BACKOFF_SECONDS = 5.0, 0.001
    settings.PROLIFIC_WORKSPACE_ID, settings.PROLIFIC_PROJECT_ID = "workspace-1", ""
    yield server
    server.stop()


def _act(page, action: str, *pks: int) -> None:
    """Tick the rows, choose the action, press Go: as a person does on an admin list."""
    for pk in pks:
        page.check(f'input.action-select[value="{pk}"]')
    page.select_option('select[name="action"]', action)
    page.click('button[name="index"]')


def test_a_study_prolific_changed_on_its_own_is_reconciled_on_the_admin_and_the_monitor(
    live_server, page, artifacts, standin, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher("ada")
    # room in Parity for six, four places on Prolific: Prolific opens a place again for the timed-out
    # and the returned submission, and two more people take them
    study = small_study(
        NAME, unit_size=3, units=2, per_unit=3, attention_checks=2, exclude_at=2, reward_pence=450,
        estimated_minutes=10, owner=owner, status=Study.Status.LIVE,
    )  # fmt: skip
    found = prolific_study_create(study=study, places=4)
    prolific_study_transition(prolific_study=found, action="publish")
    submissions = {}
    # the last hour, on a test clock: 20 s an item, as a person reads (no flag for speed to look past)
    with freeze_time(timezone.now() - timedelta(hours=1)) as clock:
        for n in range(1, 7):
            bot, submissions[f"A{n}"] = arrive(standin, study, found.prolific_id, n)
            bot.start_items().answer_items(wait=lambda: clock.tick(timedelta(seconds=20)))
            bot.step()
            clock.tick(timedelta(minutes=2))
    people = {p.pseudonym: p for p in Participant.objects.filter(study=study)}
    assert set(people) == {f"A{n}" for n in range(1, 7)}
    assert {p.status for p in people.values()} == {Participant.Status.COMPLETED}
    answers = {name: Response.objects.filter(participant=p).count() for name, p in people.items()}
    for name in ("A1", "A2", "A5", "A6"):
        standin.submission_set(submissions[name], "AWAITING REVIEW", study.completion_code)
    # the researcher reviewed them; Prolific accepted the bulk approval and applied it to all but A2
    standin.bulk_async = True
    assert prolific_review(prolific_study=found).approved == 4
    standin.pending_approvals.remove(submissions["A2"])
    standin.bulk_apply()
    # then, on Prolific's side alone: A4 sends in and returns the study, A3's submission times out, and
    # every place being sent in, Prolific moves the study to awaiting review
    standin.submission_set(submissions["A4"], "AWAITING REVIEW", study.completion_code)
    standin.give_back(submissions["A4"])
    standin.time_out(submissions["A3"])
    assert standin.study_settle(found.prolific_id)["status"] == "AWAITING REVIEW"
    assert ProlificStudy.objects.get(pk=found.pk).status == ProlificStudy.Status.ACTIVE  # Parity does not know yet

    page.set_viewport_size({"width": 1600, "height": 900})
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/admin/prolific/prolificstudy/")
    _act(page, "sync", found.pk)
    page.wait_for_selector(".messagelist .success")
    synced = page.locator(".messagelist").inner_text()
    assert synced == (
        f"{NAME}: 6 submissions pulled; on Prolific: stopped, awaiting review; 1 approval sent again (accepted "
        "by Prolific but not applied); 2 flags open, listed under Prolific flags"
    )
    assert standin.submissions[submissions["A2"]]["status"] == "APPROVED"  # sent again, applied this time
    row = page.locator("#result_list tbody tr").first.inner_text()
    assert "awaiting review" in row.lower()
    page.screenshot(path=str(artifacts / "prolific-reconciled-sync.png"), full_page=True)

    # the admin's flags, one per person Prolific changed, with the figures
    page.goto(f"{live_server.url}/admin/prolific/prolificflag/?resolved__exact=0")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 2
    flags = {ProlificFlag.objects.get(participant=people[name], resolved=False).kind: name for name in ("A3", "A4")}
    assert flags == {ProlificFlag.Kind.COMPLETED_TIMED_OUT: "A3", ProlificFlag.Kind.COMPLETED_RETURNED: "A4"}
    listed = page.locator("#result_list").inner_text()
    for flag in ProlificFlag.objects.filter(resolved=False):
        assert flag.detail in listed
    timed_out = ProlificFlag.objects.get(kind=ProlificFlag.Kind.COMPLETED_TIMED_OUT).detail
    items = people["A3"].responses.filter(is_attention_check=False).count()
    assert timed_out.startswith(f"A3 completed the study in Parity ({items} answers")
    assert "The reward, £4.50, is offered as a bonus" in timed_out
    page.screenshot(path=str(artifacts / "prolific-reconciled-flags.png"), full_page=True)
    # each flag's words are on the screen at 1,600 px, not past the list's right edge
    shown = page.locator("#changelist .results").bounding_box()
    for n in range(rows.count()):
        box = page.locator("#result_list td.field-detail").nth(n).bounding_box()
        assert box is not None and shown is not None and box["x"] + box["width"] <= shown["x"] + shown["width"]

    # each person's page says where they stand on Prolific
    for name, said in {
        "A1": "submission APPROVED; decision: Approve",
        "A2": "submission APPROVED; decision: Approve",
        "A3": "submission TIMED-OUT",
        "A4": "submission RETURNED",
    }.items():
        page.goto(f"{live_server.url}/admin/studies/participant/{people[name].pk}/change/")
        shown = page.locator(".field-prolific_decision").inner_text()
        assert said in shown, name
        # the flag about them is read on their own page too, with its figures
        for flag in ProlificFlag.objects.filter(participant=people[name], resolved=False):
            assert f"flagged ({flag.get_kind_display()}): {flag.detail}" in shown, name
        assert ("flagged (" in shown) == (name in ("A3", "A4")), name
    page.screenshot(path=str(artifacts / "prolific-reconciled-returned.png"), full_page=True)

    # the monitor: Prolific's status beside Parity's, with when it was read
    found.refresh_from_db()
    assert found.status == ProlificStudy.Status.AWAITING_REVIEW and found.synced_at is not None
    page.goto(f"{live_server.url}/studies/{study.pk}/monitor/")
    page.wait_for_selector("#monitor-prolific")
    shown = page.locator("#monitor-prolific").inner_text()
    assert shown.startswith(
        f"Here: live. On Prolific: stopped, awaiting review, 4 places, as Prolific gave it at "
        f"{found.status_at:%Y-%m-%d %H:%M} UTC; submissions pulled at {found.synced_at:%Y-%m-%d %H:%M} UTC."
    ), shown
    assert page.locator('#monitor-prolific [data-status="AWAITING REVIEW"]').count() == 1
    # and the people Prolific changed are not hidden behind "nothing needs your attention"
    assert page.locator("#monitor-warnings").inner_text().strip() == (
        "2 Prolific flags open for the reviewer (Completed in Parity, then returned on Prolific: 1; Completed in "
        "Parity, timed out on Prolific (owed the reward): 1): see Prolific flags."
    )
    page.screenshot(path=str(artifacts / "prolific-reconciled-monitor.png"), full_page=True)

    # the bonus that pays the timed-out completer: previewed, nothing paid, then confirmed
    page.goto(f"{live_server.url}/admin/prolific/prolificstudy/")
    _act(page, "pay_bonuses", found.pk)
    page.wait_for_selector(".bonus-preview")
    lines = page.locator(".preview-bonuses tbody tr")
    assert lines.count() == 1
    line = lines.first.inner_text()
    assert "A3" in line and "£4.50" in line and "completed here, timed out on Prolific" in line
    assert page.locator(".preview-bonuses tfoot .amount").inner_text() == "£4.50"
    assert standin.payments == []
    page.screenshot(path=str(artifacts / "prolific-reconciled-bonus-preview.png"), full_page=True)
    assert page.locator('input[name="confirm_cautions"]').count() == 0  # nobody to look at again
    page.click("#confirm-send")
    page.wait_for_selector(".messagelist .success")
    assert len(standin.payments) == 1
    [bulk] = standin.bulk_bonuses.values()
    assert bulk["rows"] == [(people["A3"].prolific_pid, Decimal("4.50"))]

    # nothing lost: every person's answers are kept and counted
    for name, person in people.items():
        person.refresh_from_db()
        assert Response.objects.filter(participant=person).count() == answers[name], name
        assert person.status == Participant.Status.COMPLETED and not person.excluded, name
    # every person's pay accounted for: approved on Prolific, paid by a bonus, or flagged for the reviewer
    records = {r.participant.pseudonym: r for r in ProlificSubmission.objects.select_related("participant")}
    approved = {name for name, r in records.items() if r.status == "APPROVED"}
    assert approved == {"A1", "A2", "A5", "A6"}
    assert {standin.submissions[submissions[name]]["status"] for name in approved} == {"APPROVED"}
    paid = set(
        BonusLine.objects.filter(reward_pence=450, batch__state="paid").values_list("participant__pseudonym", flat=True)
    )
    assert paid == {"A3"}
    flagged = set(
        ProlificFlag.objects.filter(resolved=False, kind=ProlificFlag.Kind.COMPLETED_RETURNED).values_list(
            "participant__pseudonym", flat=True
        )
    )
    assert flagged == {"A4"}
    assert approved | paid | flagged == set(people)
