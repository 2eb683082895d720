"""A participant of each panel walked in a browser from the panel's entry link through consent, the
training (Connect's walk), the items and the panel's way out, to the right address with the right
code; and one who fails the attention checks, to the failed check's way out. The panels are outside
this machine: a local stand-in answers each one's address, as its documentation names it:

- CloudResearch Connect: the completion and partial-complete redirects the researcher copies from
  Connect (https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/5046202939796-Project-Completion);
- Amazon MTurk's sandbox: the ExternalQuestion's parameters, a preview with
  ASSIGNMENT_ID_NOT_AVAILABLE, and the assignment POSTed to https://workersandbox.mturk.com/mturk/externalSubmit
  (https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/mturk-hits-defining-questions-html-define.html);
- SONA: the credit URL with survey_code (https://www.sona-systems.com/researcher/external-study-credit-granting/);
- a lab's own link: the thank-you page.

Each step's screenshot lands in test-artifacts/panel-<panel>-<step>.png (docs/panels.md shows them)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from parity import panels
from studies.models import Participant
from tests.browser.helpers import (
    answer_check,
    assert_accessible,
    each_item,
    practise,
    through_consent_and_instructions,
)
from tests.participation.test_panels import CONNECT_SETTINGS, PARAMS, SETTINGS, SONA_SETTINGS
from tests.participation.test_training import CHECK, PRACTICE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STANDINS = {
    panels.CONNECT: "https://connect.cloudresearch.com/**",
    panels.MTURK: "https://workersandbox.mturk.com/**",
    panels.SONA: "https://uni.sona-systems.com/**",
}


def stand_in(context, panel: str) -> None:
    """The panel's address answered here: the page shows the URL it was sent to and what was POSTed."""

    def fulfil(route) -> None:
        body = route.request.post_data or ""
        route.fulfill(
            status=200,
            content_type="text/html",
            body=f"<html><body><h1 id='panel'>{panel} stand-in</h1><p id='method'>{route.request.method}</p>"
            f"<p id='url'>{route.request.url}</p><p id='posted'>{body}</p></body></html>",
        )

    context.route(STANDINS[panel], fulfil)


def study_for(panel: str, name: str, **fields):
    from annotation.services import benchmark_import
    from tests.conftest import dataset
    from tests.factories import small_study

    benchmark_import(name="implicature", source=dataset("implicature"))
    design = {"units": 1, "unit_size": 2, "per_unit": 3, "attention_checks": 2, "exclude_at": 2}
    return small_study(name, panel=panel, panel_settings=SETTINGS[panel], **design, **fields)


def entry(live_server, study, params: dict[str, str]) -> str:
    return f"{live_server.url}/s/{study.link}/" + (f"?{urlencode(params)}" if params else "")


def answer_all(page, study, pid: str, *, wrong_checks: bool = False) -> None:
    participant = Participant.objects.get(study=study, prolific_pid=pid)
    for _, item in each_item(page, participant):
        right = item.gold == "yes"
        if wrong_checks and item.is_attention_check:
            right = not right
        page.keyboard.press("y" if right else "n")
    page.wait_for_selector("#done")


def through_training(page) -> None:
    """From the start page through consent, the instructions, the practice questions and the
    comprehension check (right at once) to the first item, a click on each page's main button."""
    for selector in ("#start", "#consent", "#instructions"):
        page.wait_for_selector(selector)
        page.locator(f"{selector} button.primary").first.click()
    practise(page, ["no", "ready"])
    page.wait_for_selector("#comprehension")
    answer_check(page, "Say whether the answer means yes or no", "no")
    page.wait_for_selector("#item-area")


TRAINING = {"practice_questions": PRACTICE, "comprehension_questions": CHECK}


def shot(page, artifacts, panel: str, step: str) -> None:
    page.screenshot(path=str(artifacts / f"panel-{panel}-{step}.png"), full_page=True)


def test_a_connect_participant_is_trained_answers_and_is_sent_to_connects_completion_redirect(
    live_server, page, artifacts
):
    stand_in(page.context, panels.CONNECT)
    study = study_for(
        panels.CONNECT, "Connect in a browser", practice_questions=PRACTICE, comprehension_questions=CHECK
    )
    params = PARAMS[panels.CONNECT]
    page.goto(entry(live_server, study, params))
    page.wait_for_selector("#start")
    shot(page, artifacts, panels.CONNECT, "start")
    through_training(page)
    answer_all(page, study, params["participantId"])
    assert page.locator("#completion-code").inner_text() == study.completion_code
    assert_accessible(page, context="Connect's done page")
    shot(page, artifacts, panels.CONNECT, "done")
    page.wait_for_selector("#panel", timeout=15000)  # after 4 s, by itself
    assert page.inner_text("#url") == CONNECT_SETTINGS["complete_url"]


def test_a_connect_participant_who_fails_the_checks_goes_to_partial_completes(live_server, page, artifacts):
    stand_in(page.context, panels.CONNECT)
    study = study_for(panels.CONNECT, "Connect failed in a browser")
    params = {**PARAMS[panels.CONNECT], "participantId": "CRfailed01"}
    page.goto(entry(live_server, study, params))
    through_consent_and_instructions(page)
    answer_all(page, study, "CRfailed01", wrong_checks=True)
    assert page.locator("#completion-code").inner_text() == study.failed_attention_code
    page.click("#return-to-panel")
    page.wait_for_selector("#panel")
    assert page.inner_text("#url") == CONNECT_SETTINGS["partial_url"]


def test_an_mturk_worker_previews_accepts_answers_and_submits_the_assignment_to_the_sandbox(
    live_server, page, artifacts
):
    stand_in(page.context, panels.MTURK)
    study = study_for(panels.MTURK, "MTurk in a browser", **TRAINING)
    params = PARAMS[panels.MTURK]
    page.goto(entry(live_server, study, {**params, "assignmentId": panels.MTURK_PREVIEW_ASSIGNMENT}))
    page.wait_for_selector("#mturk-preview")
    assert page.locator("#item-area, #start").count() == 0
    assert_accessible(page, context="MTurk's preview")
    shot(page, artifacts, panels.MTURK, "preview")
    assert not Participant.objects.filter(study=study).exists()

    page.goto(entry(live_server, study, params))  # the worker accepted the HIT
    through_training(page)
    answer_all(page, study, params["workerId"])
    assert_accessible(page, context="MTurk's done page")
    shot(page, artifacts, panels.MTURK, "done")
    page.click("#submit-to-panel")
    page.wait_for_selector("#panel")
    assert page.inner_text("#method") == "POST"
    assert page.inner_text("#url") == "https://workersandbox.mturk.com/mturk/externalSubmit"
    posted = parse_qs(page.inner_text("#posted"))
    assert posted == {"assignmentId": [params["assignmentId"]], "completion_code": [study.completion_code]}


def test_an_mturk_worker_who_fails_the_checks_submits_the_failed_check_code(live_server, page):
    stand_in(page.context, panels.MTURK)
    study = study_for(panels.MTURK, "MTurk failed in a browser")
    params = {**PARAMS[panels.MTURK], "workerId": "AFAILED0001", "assignmentId": "3FAILEDASSIGNMENT0001"}
    page.goto(entry(live_server, study, params))
    through_consent_and_instructions(page)
    answer_all(page, study, "AFAILED0001", wrong_checks=True)
    page.click("#submit-to-panel")
    page.wait_for_selector("#panel")
    posted = parse_qs(page.inner_text("#posted"))
    assert posted["completion_code"] == [study.failed_attention_code]


def test_a_sona_participant_is_sent_to_the_credit_url_with_their_survey_code(live_server, page, artifacts):
    stand_in(page.context, panels.SONA)
    study = study_for(panels.SONA, "SONA in a browser", **TRAINING)
    page.goto(entry(live_server, study, PARAMS[panels.SONA]))
    page.wait_for_selector("#start")
    shot(page, artifacts, panels.SONA, "start")
    through_training(page)
    answer_all(page, study, "48213")
    assert_accessible(page, context="SONA's done page")
    shot(page, artifacts, panels.SONA, "done")
    page.wait_for_selector("#panel", timeout=15000)
    sent = urlsplit(page.inner_text("#url"))
    credit = urlsplit(SONA_SETTINGS["credit_url"])
    assert (sent.netloc, sent.path) == (credit.netloc, credit.path)
    assert parse_qs(sent.query) == {"experiment_id": ["123"], "credit_token": ["abc"], "survey_code": ["48213"]}


def test_a_sona_participant_who_fails_the_checks_is_credited_the_same_way(live_server, page):
    stand_in(page.context, panels.SONA)
    study = study_for(panels.SONA, "SONA failed in a browser")
    page.goto(entry(live_server, study, {"id": "5150"}))
    through_consent_and_instructions(page)
    answer_all(page, study, "5150", wrong_checks=True)
    assert page.locator("#completion-code").inner_text() == study.failed_attention_code
    page.click("#return-to-panel")
    page.wait_for_selector("#panel")
    assert parse_qs(urlsplit(page.inner_text("#url")).query)["survey_code"] == ["5150"]


def test_a_lab_participant_with_a_given_id_and_one_without_end_on_the_thank_you_page(live_server, page, artifacts):
    study = study_for(panels.LAB, "Lab in a browser", **TRAINING)
    page.goto(entry(live_server, study, PARAMS[panels.LAB]))
    through_training(page)
    answer_all(page, study, "lab-p07")
    page.wait_for_selector("#thank-you")
    assert page.locator("#completion-code").inner_text() == study.completion_code
    assert page.locator("#return-to-panel, #panel-submit").count() == 0
    assert_accessible(page, context="the lab's thank-you page")
    shot(page, artifacts, panels.LAB, "done")

    page.context.clear_cookies()
    page.goto(entry(live_server, study, {}))  # the plain link: a pseudonym is given
    through_training(page)
    generated = Participant.objects.filter(study=study).exclude(prolific_pid="lab-p07").get()
    answer_all(page, study, generated.prolific_pid, wrong_checks=True)
    page.wait_for_selector("#thank-you")
    assert page.locator("#completion-code").inner_text() == study.failed_attention_code


@pytest.mark.parametrize("panel", [panels.CONNECT, panels.MTURK, panels.SONA, panels.LAB])
def test_the_study_page_shows_the_panels_link_and_how_to_paste_it(live_server, page, artifacts, panel):
    from tests.browser.helpers import sign_in
    from tests.personas import personas_for

    study = study_for(panel, f"{panel} study page")
    sign_in(page, live_server, personas_for(study).owner)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    section = page.locator("#panel-settings")
    assert study.participant_url() in section.inner_text() or panel == panels.MTURK
    assert page.locator("#prolific-settings").count() == 0
    assert_accessible(page, context=f"the study page of a {panel} study")
    section.screenshot(path=str(artifacts / f"panel-{panel}-study-page.png"))


def test_a_connect_participant_screened_out_at_the_comprehension_check_goes_to_partial_completes(
    live_server, page, artifacts
):
    stand_in(page.context, panels.CONNECT)
    study = study_for(panels.CONNECT, "Connect screened out in a browser", **TRAINING)
    page.goto(entry(live_server, study, {**PARAMS[panels.CONNECT], "participantId": "CRscreened1"}))
    for selector in ("#start", "#consent", "#instructions"):
        page.wait_for_selector(selector)
        page.locator(f"{selector} button.primary").first.click()
    practise(page, ["no", "ready"])
    answer_check(page, "Write a story", "no")
    page.wait_for_selector("#comprehension-wrong")
    answer_check(page, "Write a story", "yes")
    page.wait_for_selector("#screened-out")
    assert_accessible(page, context="Connect's screened-out page")
    shot(page, artifacts, panels.CONNECT, "screened-out")
    page.wait_for_selector("#panel", timeout=15000)  # after 4 s, by itself
    assert page.inner_text("#url") == CONNECT_SETTINGS["partial_url"]


def test_a_researcher_chooses_connect_on_the_new_study_form_and_its_pay_is_judged_in_dollars(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import
    from studies.models import Study
    from tests.browser.helpers import fill_study_form, sign_in
    from tests.personas import researcher

    benchmark_import(name="implicature", source=implicature_source)
    sign_in(page, live_server, researcher())
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    page.select_option("#id_panel", "connect")
    page.fill("#id_connect_complete_url", CONNECT_SETTINGS["complete_url"])
    page.fill("#id_connect_partial_url", CONNECT_SETTINGS["partial_url"])
    design = {"units": "1", "unit_size": "3", "per_unit": "2", "attention_checks": "2", "exclude_at": "2"}
    # $0.10 for 10 minutes is under Connect's $7.50/h; $2.00 is $12/h, over its recommended $10
    fill_study_form(page, "Connect on the form", design)
    assert page.inner_text("#hourly-pay-value") == "$12.00/h"
    assert "CloudResearch Connect's minimum $7.50/h" in page.inner_text("#hourly-pay-floor")
    page.locator("#panel-fields").screenshot(path=str(artifacts / "panel-new-study-form.png"))
    page.focus("#id_name")
    page.keyboard.press("Enter")
    page.wait_for_selector('#study-status[data-status="draft"], #form-errors')
    assert page.locator("#study-form").count() == 0, page.inner_text("#form-errors")
    study = Study.objects.get(name="Connect on the form")
    assert (study.panel, study.panel_settings) == ("connect", CONNECT_SETTINGS)
    assert "participantId={{participantId}}" in page.inner_text("#panel-settings")
