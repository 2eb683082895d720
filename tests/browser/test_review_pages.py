"""A reviewer in a real browser: finds a flagged participant from the list, reads their answers and
the evidence on one page, and verifies ten written answers with the keyboard alone."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from studies.models import Participant, Response, VerificationMark
from studies.setup.studies import study_create
from tests import personas
from tests.annotation.helpers import import_instruction_induction
from tests.browser.helpers import assert_accessible, sign_in
from tests.factories import Bot, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
WRITTEN = "Write the word that means the opposite of the input."


def _behaviour(**given: int) -> dict[str, str]:
    figures = {"pastes": 0, "blurs": 0, "hidden": 0, "hidden_ms": 0, "keys": 60, "first_input_ms": 800, **given}
    return {f"behaviour-{name}": str(value) for name, value in figures.items()}


@pytest.fixture
def study():
    import_instruction_induction()
    reviewer = personas.researcher("reviewer")
    made = study_create(
        name="written review",
        benchmark="instruction_induction",
        owner=reviewer,
        design={"tasks_per_participant": 2, "annotators_per_task": 1},
    )
    for n in range(5):
        # each answer 20 s after its item was shown: time enough for 3 s away from the tab
        with freeze_time(T0 + timedelta(hours=n)) as clock:
            bot = Bot(made, pid(n + 1)).start_items()
            while bot.participant.step == Participant.Step.ITEMS:
                item_id, position = bot.current_form(bot.step().content.decode())
                clock.tick(timedelta(seconds=20))
                # the third participant leaves the tab during their first answer
                away = _behaviour(hidden=1, hidden_ms=3000, blurs=1) if n == 2 and position == 1 else _behaviour()
                bot.post("answer", {"item": item_id, "position": position, "answer": f"{WRITTEN} ({n})", **away})
    return made, reviewer


def _ready(page) -> None:
    page.wait_for_function("document.readyState === 'complete'")


def test_a_reviewer_reads_a_flagged_participant_and_verifies_ten_answers_by_keyboard(
    live_server, page, study, artifacts
):
    made, reviewer = study
    sign_in(page, live_server, reviewer)
    # the flagged people, from the participant list
    page.goto(f"{live_server.url}/admin/studies/participant/?study__id__exact={made.pk}&flag=any")
    links = page.locator("a.review-link")
    assert links.count() == 1
    links.first.click()
    page.wait_for_selector("#review-answers")
    flagged = Participant.objects.get(study=made, prolific_pid=pid(3))
    assert page.locator("#review-title").inner_text().endswith(flagged.pseudonym)
    # every answer on one page, with its evidence in words and the flag with its figures
    rows = page.locator("#review-answers tbody tr")
    assert rows.count() == 2
    assert "page hidden 1× for 3.0 s" in rows.nth(0).inner_text()
    assert "the page was hidden during 1 of 2 answers, 3.0 s in all" in page.locator("#review-flags").inner_text()
    page.set_viewport_size({"width": 1400, "height": 900})
    page.screenshot(path=str(artifacts / "review-participant.png"), full_page=True)
    assert_accessible(page, context="a participant's review page")
    # back to the same list, its filters kept
    assert re.search(rf"study__id__exact={made.pk}&flag=any$", page.locator("#back-to-list").get_attribute("href"))

    # ten written answers, verified with the keyboard: right, wrong, right, ...
    page.goto(f"{live_server.url}/studies/{made.pk}/verify/")
    seen = []
    for n in range(10):
        page.wait_for_selector("#queue-answer")
        _ready(page)
        shown = int(page.locator("#queue-answer").get_attribute("data-response"))
        assert shown not in seen
        seen.append(shown)
        assert page.locator("#references li").count() >= 1 and page.locator("table.demos tbody tr").count() == 5
        if n == 1:
            page.screenshot(path=str(artifacts / "verify-queue.png"), full_page=True)
            assert_accessible(page, context="the verification queue")
        with page.expect_navigation():
            page.keyboard.press("r" if n % 2 == 0 else "w")
    page.wait_for_selector("#queue-empty")
    marks = dict(Response.objects.filter(pk__in=seen).values_list("pk", "verified_correct"))
    assert [marks[pk] for pk in seen] == [n % 2 == 0 for n in range(10)]
    assert VerificationMark.objects.filter(response__in=seen, verifier=reviewer).count() == 10
    assert page.locator("#state-right .count").inner_text() == "5"
    assert page.locator("#state-wrong .count").inner_text() == "5"
