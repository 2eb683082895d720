"""Each panel's rules, checked against hand-written values from the panel's documentation (the
address beside each)."""

from __future__ import annotations

import pytest

from parity import panels
from parity.panels import Codes, Outcome, panel_exit

CODES = Codes(completion="DONE1", failed="FAIL1", screened_out="OUT1")
CONNECT = {"complete_url": "https://connect.example/complete", "partial_url": "https://connect.example/partial"}
SONA = {"credit_url": "https://u.sona-systems.com/webstudy_credit.aspx?experiment_id=1&credit_token=t&survey_code=XXXX"}


def test_prolifics_ways_out_are_its_completion_url_with_each_code():
    # https://docs.prolific.com/api-reference/studies/get-study: a code per way out
    url = "https://app.prolific.com/submissions/complete"
    found = panel_exit("prolific", {}, Outcome.FAILED_CHECK, CODES, prolific_complete_url=url)
    assert (found.kind, found.url, found.code) == ("redirect", f"{url}?cc=FAIL1", "FAIL1")
    assert panel_exit("prolific", {}, Outcome.FULL, CODES, prolific_complete_url=url).kind == "page"


def test_connect_takes_screen_outs_and_failed_checks_through_partial_completes():
    # https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/5046202939796-Project-Completion
    assert panel_exit("connect", CONNECT, Outcome.COMPLETED, CODES).url == CONNECT["complete_url"]
    for outcome in (Outcome.FAILED_CHECK, Outcome.SCREENED_OUT):
        assert panel_exit("connect", CONNECT, outcome, CODES).url == CONNECT["partial_url"]
    assert panel_exit("connect", CONNECT, Outcome.DECLINED, CODES).kind == "page"


def test_mturk_posts_the_assignment_to_the_documented_hosts():
    # https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/mturk-hits-defining-questions-html-define.html
    found = panel_exit("mturk", {"sandbox": True}, Outcome.COMPLETED, CODES, session_id="ASG1")
    assert found.kind == "post" and found.url == "https://workersandbox.mturk.com/mturk/externalSubmit"
    assert dict(found.fields) == {"assignmentId": "ASG1", "completion_code": "DONE1"}
    assert panel_exit("mturk", {}, Outcome.COMPLETED, CODES, session_id="A").url == (
        "https://www.mturk.com/mturk/externalSubmit"
    )
    assert panels.mturk_host_matches("https://workersandbox.mturk.com/", True)
    assert not panels.mturk_host_matches("https://www.mturk.com", True)
    assert panels.MTURK_PREVIEW_ASSIGNMENT == "ASSIGNMENT_ID_NOT_AVAILABLE"


def test_sona_puts_the_survey_code_in_the_credit_url():
    # https://www.sona-systems.com/researcher/external-study-credit-granting/
    found = panel_exit("sona", SONA, Outcome.COMPLETED, CODES, participant_id="48213")
    assert found.url.endswith("experiment_id=1&credit_token=t&survey_code=48213")
    # https://www.sona-systems.com/researcher/using-the-survey-code-feature/: 2-7 digits, no leading zero
    shape = panels.get("sona").id_shape
    assert [code for code in ("12", "1234567", "1", "012", "12345678") if shape.fullmatch(code)] == ["12", "1234567"]


@pytest.mark.parametrize(
    ("panel", "given", "wrong"),
    [
        ("connect", {}, {"complete_url", "partial_url"}),
        ("connect", {**CONNECT, "partial_url": "http://plain.example/"}, {"partial_url"}),
        ("sona", {"credit_url": "https://u.sona-systems.com/webstudy_credit.aspx?experiment_id=1"}, {"credit_url"}),
        ("sona", SONA, set()),
        ("mturk", {}, set()),
        ("lab", {}, set()),
        ("nowhere", {}, {"panel"}),
    ],
)
def test_a_panels_settings_are_checked(panel, given, wrong):
    assert set(panels.settings_errors(panel, given)) == wrong


def test_the_minimum_pay_is_each_panels_own():
    # https://researcher-help.prolific.com/hc/en-gb/articles/4407695146002-Prolific-s-payment-principles: £6/h;
    # https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/5046181555732-Project-Cost: $7.50/h
    assert panels.get("prolific").minimum_pay.words == "£6.00/h"
    assert panels.get("connect").minimum_pay.words == "$7.50/h"
    assert panels.get("mturk").minimum_pay is None and panels.get("sona").minimum_pay is None


def test_the_participant_link_carries_each_panels_placeholders():
    base = "https://parity.example/s/abc/"
    assert panels.participant_url("connect", base) == (
        f"{base}?participantId={{{{participantId}}}}&projectId={{{{projectId}}}}&assignmentId={{{{assignmentId}}}}"
    )
    assert panels.participant_url("sona", base) == f"{base}?id=%SURVEY_CODE%"
    assert panels.participant_url("mturk", base) == base
    assert "<ExternalURL>https://parity.example/s/abc/</ExternalURL>" in panels.external_question(base)
