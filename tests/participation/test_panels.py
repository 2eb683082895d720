"""A participant of each panel (`parity.panels`) enters through the panel's own link parameters and
leaves through the panel's own way out, with the right code, as the panel's documentation says:

- CloudResearch Connect: the completion redirect for those who finish, Partial Completes for failed
  checks and screen-outs (https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/5046202939796-Project-Completion);
- Amazon MTurk: workerId, assignmentId, hitId and turkSubmitTo appended to the ExternalQuestion URL
  (https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/mturk-hits-defining-questions-html-rendered.html),
  assignmentId ASSIGNMENT_ID_NOT_AVAILABLE in preview
  (https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMturkAPI/ApiReference_ExternalQuestionArticle.html),
  the form POSTed to /mturk/externalSubmit with the assignmentId
  (https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/mturk-hits-defining-questions-html-define.html);
- SONA: ?id=%SURVEY_CODE%, a number of 2 to 7 digits (https://www.sona-systems.com/researcher/using-the-survey-code-feature/),
  and the credit URL with survey_code (https://www.sona-systems.com/researcher/external-study-credit-granting/);
- a lab's own link: an id given, or a pseudonym generated, and a thank-you page.
"""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from parity import panels
from studies.models import Participant, Study
from tests.factories import start

pytestmark = pytest.mark.django_db

CONNECT_SETTINGS = {
    "complete_url": "https://connect.cloudresearch.com/participant/project/PRJ1/complete",
    "partial_url": "https://connect.cloudresearch.com/participant/project/PRJ1/partial",
}
SONA_SETTINGS = {
    "credit_url": "https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=123&credit_token=abc&survey_code=XXXX"
}
#: each panel's participant's link parameters, of the panel's shapes
PARAMS = {
    panels.CONNECT: {"participantId": "CR7x2Lq9Z", "projectId": "PRJ1", "assignmentId": "ASG42xyz"},
    panels.MTURK: {
        "workerId": "AZ3456EXAMPLE",
        "assignmentId": "3ABCDEFGHIJKLMNOPQRSTUVWXYZ012",
        "hitId": "3HITABCDEFGHIJKLMNOPQRSTUVWXY",
        "turkSubmitTo": "https://workersandbox.mturk.com",
    },
    panels.SONA: {"id": "48213"},
    panels.LAB: {"participant": "lab-p07"},
}
SETTINGS = {
    panels.CONNECT: CONNECT_SETTINGS,
    panels.MTURK: {"sandbox": True},
    panels.SONA: SONA_SETTINGS,
    panels.LAB: {},
}
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def panel_study(panel: str, name: str, **fields) -> Study:
    from tests.factories import small_study

    design = {"units": 1, "unit_size": 3, "per_unit": 3, "attention_checks": 2, "exclude_at": 2, **fields}
    return small_study(name, panel=panel, panel_settings=SETTINGS[panel], **design)


def enter(client: Client, study: Study, params: dict[str, str]):
    page = client.get(f"/s/{study.link}/", params, follow=True)
    return start(client, page)


def walk(study: Study, params: dict[str, str], *, wrong_checks: bool = False) -> tuple[Client, str]:
    """Enter, consent, answer every item (the checks wrong when `wrong_checks`): the done page's HTML."""
    client = Client()
    enter(client, study, params)
    client.post(f"/s/{study.link}/consent/", {"agree": "yes"})
    client.post(f"/s/{study.link}/begin/", {})
    participant = Participant.objects.get(study=study)
    from annotation.models import Item
    from tests.factories import form_item

    while participant.step == Participant.Step.ITEMS:
        position = participant.answered + 1
        item = Item.objects.get(pk=participant.sequence[position - 1])
        client.get(f"/s/{study.link}/step/")
        answer = ("no" if item.gold == "yes" else "yes") if wrong_checks and item.is_attention_check else item.gold
        client.post(
            f"/s/{study.link}/answer/",
            {"item": form_item(participant.pk, position, item.pk), "position": position, "answer": answer},
        )
        participant.refresh_from_db()
    return client, client.get(f"/s/{study.link}/step/").content.decode()


def _return_link(html: str) -> str:
    found = re.search(r'id="return-to-panel" href="([^"]+)"', html)
    assert found, html
    return unescape(found.group(1))


@pytest.mark.parametrize("panel", [panels.CONNECT, panels.MTURK, panels.SONA, panels.LAB])
def test_a_participant_of_each_panel_enters_with_its_ids_stored_as_the_link_gave_them(implicature, panel):
    study = panel_study(panel, f"entry {panel}")
    enter(Client(), study, PARAMS[panel])
    participant = Participant.objects.get(study=study)
    given = PARAMS[panel]
    found = study.recruiting_panel
    assert participant.prolific_pid == given[found.id_param]
    assert participant.prolific_study_id == given.get(found.study_param, "")
    assert participant.prolific_session_id == given.get(found.session_param, "")
    assert participant.step == Participant.Step.CONSENT


def test_connect_sends_who_finishes_to_the_completion_redirect_and_failed_checks_to_partial_completes(implicature):
    study = panel_study(panels.CONNECT, "connect exits")
    _, done = walk(study, PARAMS[panels.CONNECT])
    assert _return_link(done) == CONNECT_SETTINGS["complete_url"]
    assert study.completion_code in done and "CloudResearch Connect" in done
    other = panel_study(panels.CONNECT, "connect failed")
    _, failed = walk(other, PARAMS[panels.CONNECT], wrong_checks=True)
    assert _return_link(failed) == CONNECT_SETTINGS["partial_url"]
    assert other.failed_attention_code in failed and other.completion_code not in failed


def test_mturk_submits_the_assignment_to_the_sandbox_with_its_id_and_the_code(implicature):
    study = panel_study(panels.MTURK, "mturk exits")
    _, done = walk(study, PARAMS[panels.MTURK])
    form = re.search(r'<form method="post" action="([^"]+)" id="panel-submit">(.*?)</form>', done, re.S)
    assert form and form.group(1) == "https://workersandbox.mturk.com/mturk/externalSubmit"
    fields = dict(_HIDDEN.findall(form.group(2)))
    assert fields == {"assignmentId": PARAMS[panels.MTURK]["assignmentId"], "completion_code": study.completion_code}
    failed_study = panel_study(panels.MTURK, "mturk failed")
    _, failed = walk(failed_study, PARAMS[panels.MTURK], wrong_checks=True)
    assert f'name="completion_code" value="{failed_study.failed_attention_code}"' in failed


def test_mturk_on_the_marketplace_submits_to_www_mturk_com(implicature):
    study = panel_study(panels.MTURK, "mturk live")
    Study.objects.filter(pk=study.pk).update(panel_settings={"sandbox": False})
    study.refresh_from_db()
    _, done = walk(study, {**PARAMS[panels.MTURK], "turkSubmitTo": "https://www.mturk.com"})
    assert 'action="https://www.mturk.com/mturk/externalSubmit"' in done


def test_an_mturk_preview_shows_the_instructions_and_no_item_and_enters_no_one(implicature):
    study = panel_study(panels.MTURK, "mturk preview")
    params = {**PARAMS[panels.MTURK], "assignmentId": panels.MTURK_PREVIEW_ASSIGNMENT}
    page = Client().get(f"/s/{study.link}/", params)
    html = page.content.decode()
    assert page.status_code == 200 and 'id="mturk-preview"' in html and "Accept the HIT" in html
    assert 'name="item"' not in html and 'id="start"' not in html
    assert not Participant.objects.filter(study=study).exists()
    # a worker who posts the preview's assignment anyway is not let in either
    Client().post(f"/s/{study.link}/", params)
    assert not Participant.objects.filter(study=study).exists()


def test_mturk_refuses_a_turk_submit_to_that_is_not_the_studys_host(implicature):
    study = panel_study(panels.MTURK, "mturk host")
    page = Client().get(f"/s/{study.link}/", {**PARAMS[panels.MTURK], "turkSubmitTo": "https://evil.example"})
    assert "is not the MTurk this study was published on" in page.content.decode()
    assert not Participant.objects.filter(study=study).exists()


def test_sona_grants_the_credit_with_the_participants_survey_code(implicature):
    study = panel_study(panels.SONA, "sona exits")
    _, done = walk(study, PARAMS[panels.SONA])
    link = urlsplit(_return_link(done))
    assert (link.scheme, link.netloc, link.path) == ("https", "uni.sona-systems.com", "/webstudy_credit.aspx")
    assert parse_qs(link.query) == {"experiment_id": ["123"], "credit_token": ["abc"], "survey_code": ["48213"]}


@pytest.mark.parametrize("survey_code", ["1", "01234", "12345678", "12a45"])
def test_sona_refuses_a_survey_code_not_of_sonas_shape(implicature, survey_code):
    study = panel_study(panels.SONA, f"sona shape {survey_code}")
    html = Client().get(f"/s/{study.link}/", {"id": survey_code}).content.decode()
    assert "must be a SONA survey code" in html
    assert not Participant.objects.filter(study=study).exists()


def test_a_lab_participant_without_an_id_gets_a_generated_one_and_a_thank_you_page(implicature):
    study = panel_study(panels.LAB, "lab pseudonym")
    client = Client()
    page = enter(client, study, {})
    assert page.status_code == 200
    participant = Participant.objects.get(study=study)
    assert re.fullmatch(r"lab-[0-9a-f]{12}", participant.prolific_pid)
    # the same browser opening the plain link again is the same participant
    enter(client, study, {})
    assert Participant.objects.filter(study=study).count() == 1
    _, done = walk(panel_study(panels.LAB, "lab thanks"), PARAMS[panels.LAB])
    assert 'id="thank-you"' in done and "return-to-panel" not in done and "panel-submit" not in done


@pytest.mark.parametrize("panel", [panels.CONNECT, panels.MTURK, panels.SONA, panels.LAB])
def test_one_participation_per_id_and_study_on_every_panel(implicature, panel):
    """The same id again from another browser (with another assignment where the panel has them: the
    same assignment resumes, as Prolific's SESSION_ID does) is refused on the neutral page."""
    study = panel_study(panel, f"once {panel}")
    walk(study, PARAMS[panel])
    session = study.recruiting_panel.session_param
    other = {**PARAMS[panel], **({session: "ANOTHER1"} if session else {})}
    again = enter(Client(), study, other).content.decode()
    assert Participant.objects.filter(study=study).count() == 1
    assert "This study cannot be started here" in again
    assert "Prolific" not in again


@pytest.mark.parametrize("panel", [panels.CONNECT, panels.MTURK, panels.SONA])
def test_a_full_study_asks_to_return_it_on_the_panel(implicature, panel):
    study = panel_study(panel, f"full {panel}", per_unit=1)
    walk(study, PARAMS[panel])
    other = {**PARAMS[panel]}
    found = study.recruiting_panel
    other[found.id_param] = {panels.CONNECT: "Other1", panels.MTURK: "AOTHER1", panels.SONA: "777"}[panel]
    html = enter(Client(), study, other).content.decode()
    assert "This study is full" in html and f"return the study on {found.name}" in html


def test_declining_consent_on_connect_asks_to_return_the_project_there(implicature):
    study = panel_study(panels.CONNECT, "connect declined")
    client = Client()
    enter(client, study, PARAMS[panels.CONNECT])
    html = client.post(f"/s/{study.link}/consent/", {"agree": "no"}, follow=True).content.decode()
    assert 'id="declined"' in html and "CloudResearch Connect" in html and "Prolific" not in html


def test_a_screened_out_connect_participant_goes_to_partial_completes(implicature):
    check = "Can you change an answer once it is sent?\n- yes\n- no\n= no\n"
    study = panel_study(panels.CONNECT, "connect screened", comprehension_questions=check, comprehension_tries=1)
    client = Client()
    enter(client, study, PARAMS[panels.CONNECT])
    client.post(f"/s/{study.link}/consent/", {"agree": "yes"})
    client.post(f"/s/{study.link}/begin/", {})
    html = client.post(f"/s/{study.link}/comprehension/", {"attempt": 0, "q0": "yes"}, follow=True).content.decode()
    assert Participant.objects.get(study=study).step == Participant.Step.SCREENED_OUT
    assert _return_link(html) == CONNECT_SETTINGS["partial_url"]


def test_mturk_may_frame_the_study_link_and_in_its_frame_the_study_opens_in_a_window_of_its_own(implicature):
    """MTurk shows the ExternalQuestion in a frame of its own pages; there this site's cookies are a
    third party's, which browsers refuse, so the start page offers a window of its own instead of a
    form that could not post. Outside a frame, or on another panel, nothing changes."""
    study = panel_study(panels.MTURK, "mturk framed")
    framed = Client().get(f"/s/{study.link}/", PARAMS[panels.MTURK], headers={"Sec-Fetch-Dest": "iframe"})
    assert "X-Frame-Options" not in framed
    assert framed["Content-Security-Policy"] == "frame-ancestors https://workersandbox.mturk.com https://www.mturk.com"
    html = framed.content.decode()
    assert 'id="open-in-window"' in html and 'target="_blank"' in html and "workerId=AZ3456EXAMPLE" in html
    assert '<form method="post"' not in html
    top = Client().get(f"/s/{study.link}/", PARAMS[panels.MTURK], headers={"Sec-Fetch-Dest": "document"})
    assert '<form method="post"' in top.content.decode() and 'id="open-in-window"' not in top.content.decode()
    connect = panel_study(panels.CONNECT, "connect not framed")
    assert Client().get(f"/s/{connect.link}/", PARAMS[panels.CONNECT])["X-Frame-Options"] == "DENY"
