"""The training walked in a browser: the researcher writes practice questions and a comprehension check
on the new-study form; a participant answers a practice question wrong and sees the right answer and
the feedback, types the second, gets the check wrong once, reads the instructions again, passes, and
answers the items to the done page; another fails the check twice and is asked to return the study.
Each training page passes the accessibility rules the participant pages are held to."""

from __future__ import annotations

import pytest

from studies.models import Participant, Response, Study
from tests.browser.helpers import (
    answer_check,
    assert_accessible,
    each_item,
    fill_study_form,
    screened_out_by_the_check,
    sign_in,
    to_training,
)
from tests.browser.walks import answer
from tests.factories import pid
from tests.participation.test_training import CHECK, PRACTICE
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESIGN = {"units": "1", "unit_size": "3", "per_unit": "2", "attention_checks": "1", "exclude_at": "0"}
RIGHT = "Say whether the answer means yes or no"


def test_the_training_is_written_on_the_form_and_walked_by_participants(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    sign_in(page, live_server, researcher())
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    fill_study_form(page, "Trained in a browser", DESIGN)
    page.fill("#id_practice_questions", PRACTICE)
    page.fill("#id_comprehension_questions", CHECK)
    page.locator("#training-fields").screenshot(path=str(artifacts / "new-study-training.png"))
    page.focus("#id_name")
    page.keyboard.press("Enter")
    page.wait_for_selector('#study-status[data-status="draft"], #form-errors')
    assert page.locator("#study-form").count() == 0, page.inner_text("#form-errors")
    page.click("#move-live")
    page.wait_for_selector('#study-status[data-status="live"]')
    study = Study.objects.get(name="Trained in a browser")
    assert len(study.practice_questions) == 2 and study.comprehension_tries == 2
    page.context.clear_cookies()

    to_training(page, live_server, study, 1)
    page.wait_for_selector("#practice")
    assert "Having to work" not in page.inner_text("#practice")
    assert_accessible(page, context="a practice question")
    page.locator("#practice-form button.choice", has_text="yes").click()
    page.wait_for_selector("#practice-feedback")
    assert "Not quite: the answer is no." in page.inner_text("#practice-feedback")
    assert "Having to work means he cannot come." in page.inner_text("#practice-feedback")
    assert_accessible(page, context="a practice question's feedback")
    page.screenshot(path=str(artifacts / "participant-practice.png"))
    page.click("#practice button.primary")
    page.fill("#practice-answer", "ready")
    page.click("#practice-form button.primary")
    page.wait_for_selector("#practice-feedback >> text=Right.")
    page.click("#practice button.primary")

    page.wait_for_selector("#comprehension")
    assert_accessible(page, context="the comprehension check")
    answer_check(page, "Write a story", "no")
    page.wait_for_selector("#comprehension-wrong")
    assert "1 try left" in page.inner_text("#comprehension-wrong")
    page.screenshot(path=str(artifacts / "participant-comprehension-retry.png"))
    page.reload()  # a refresh shows the same page and spends no try
    page.wait_for_selector("#comprehension-wrong")
    answer_check(page, RIGHT, "no")
    page.wait_for_selector("#item-area")
    participant = Participant.objects.get(study=study, prolific_pid=pid(1))
    assert participant.comprehension_tries == 2 and participant.practice_answers[0] == {
        "answer": "yes",
        "correct": False,
    }
    for _, item in each_item(page, participant):
        answer(page, item, touch=False)
    page.wait_for_selector("#done")
    assert Response.objects.filter(participant=participant).count() == len(participant.sequence)

    page.context.clear_cookies()
    screened_out_by_the_check(page, live_server, study, 2)
    assert "return" in page.inner_text("#screened-out") and study.completion_code not in page.content()
    assert_accessible(page, context="asked to return")
    assert Participant.objects.get(study=study, prolific_pid=pid(2)).status == Participant.Status.SCREENED_OUT
