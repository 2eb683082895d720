"""Entering a study: the link's GET reserves nothing, only the start page's CSRF-protected POST
does; a PID must look like Prolific's; a PID alone does not resume someone else's place."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from studies.models import Participant, Study
from tests.factories import Bot, entry_url, pid, small_study, start

pytestmark = pytest.mark.django_db


def test_opening_the_link_shows_a_start_form_and_reserves_nothing(implicature, client):
    study = small_study(units=1, per_unit=1)
    # a link prefetcher, an <img src> and a crawler all GET the link
    for n in range(5):
        page = client.get(entry_url(study, pid(n)), HTTP_SEC_PURPOSE="prefetch")
        assert page.status_code == 200
    html = page.content.decode()
    assert re.search(rf'<form method="post" action="/s/{study.link}/"', html)
    assert 'name="csrfmiddlewaretoken"' in html and f'name="PROLIFIC_PID" value="{pid(4)}"' in html
    assert not Participant.objects.exists()
    # the one person who presses Start gets the only place
    assert Bot(study, pid(9)).enter().status_code == 200
    assert list(Participant.objects.values_list("prolific_pid", flat=True)) == [pid(9)]


def test_entering_without_the_pages_csrf_token_is_refused(implicature):
    study = small_study()
    browser = Client(enforce_csrf_checks=True)
    fields = {"PROLIFIC_PID": pid(1), "STUDY_ID": "STUDY0001", "SESSION_ID": "SESSION0001"}
    refused = browser.post(f"/s/{study.link}/", fields)
    assert refused.status_code == 403 and "allow cookies" in refused.content.decode()
    assert not Participant.objects.exists()
    entered = start(browser, browser.get(entry_url(study, pid(1))))  # through the page: its token goes along
    assert entered.status_code == 200 and 'id="consent"' in entered.content.decode()
    assert Participant.objects.filter(prolific_pid=pid(1)).exists()


@pytest.mark.parametrize(
    "made_up", ["participant-1", "12345", "0" * 23, "0" * 25, "g" * 24, "5f0c1a2b3c4d5e6f7a8b9c0_"]
)
def test_a_pid_that_is_not_a_prolific_id_is_refused_with_a_clear_page(implicature, client, made_up):
    study = small_study()
    for response in (
        client.get(entry_url(study, made_up)),
        client.post(f"/s/{study.link}/", {"PROLIFIC_PID": made_up, "SESSION_ID": "SESSION0001"}),
    ):
        assert response.status_code == 400
        assert "PROLIFIC_PID must be a Prolific ID: 24 hexadecimal characters" in response.content.decode()
    assert not Participant.objects.exists()


def test_a_prolific_id_in_capitals_is_the_same_participant(implicature):
    study = small_study()
    Bot(study, "5F0C1A2B3C4D5E6F7A8B9C0D").enter()
    Bot(study, "5f0c1a2b3c4d5e6f7a8b9c0d").enter()
    assert list(Participant.objects.values_list("prolific_pid", flat=True)) == ["5f0c1a2b3c4d5e6f7a8b9c0d"]


def test_a_study_can_accept_other_ids(implicature):
    out = StringIO()
    call_command(
        "create_study",
        "--benchmark",
        "implicature",
        "--name",
        "pilot with lab ids",
        "--units",
        "1",
        "--unit-size",
        "4",
        "--pid-format",
        "token",
        stdout=out,
    )
    study = Study.objects.get(name="pilot with lab ids")
    assert study.pid_format == Study.PidFormat.TOKEN
    Bot(study, "lab-007").enter()
    assert Participant.objects.filter(study=study, prolific_pid="lab-007").exists()
    assert Bot(study, "lab 007").enter().status_code == 400


def test_a_pid_alone_from_another_browser_does_not_resume_and_the_attempt_is_recorded(implicature):
    study = small_study()
    owner = Bot(study, pid(1), session="SESSIONOWN")
    owner.start_items()
    owner.answer_current()
    intruder = Bot(study, pid(1), session="SESSIONOTHER")
    page = intruder.enter()
    # the page does not say that this PID is taking part (anyone can type a PID into a link)
    assert page.status_code == 403 and "This study cannot be started here" in page.content.decode()
    assert "another browser" not in page.content.decode()
    assert intruder.step().status_code == 400  # no place in this browser
    without_session = Bot(study, pid(1), session="")
    assert without_session.enter().status_code == 403
    participant = owner.participant
    assert participant.prolific_session_id == "SESSIONOWN"
    assert [(c["from"], c["to"], c["resumed"]) for c in participant.session_changes] == [
        ("SESSIONOWN", "SESSIONOTHER", False)
    ]
    # the owner's own place is untouched
    assert 'value="2"' in owner.step().content.decode()


def test_the_same_prolific_session_resumes_from_another_browser(implicature):
    study = small_study()
    first = Bot(study, pid(2), session="SESSIONTWO")
    first.start_items()
    first.answer_current()
    again = Bot(study, pid(2), session="SESSIONTWO")  # opened again from the same Prolific submission
    again.enter()
    assert 'value="2"' in again.step().content.decode()
    assert again.participant.session_changes == []


def test_the_same_browser_with_a_new_session_id_resumes_and_the_change_is_recorded(implicature):
    study = small_study()
    bot = Bot(study, pid(3), session="SESSIONA")
    bot.enter()
    bot.post("consent", {"agree": "yes"})
    bot.session = "SESSIONB"
    page = bot.enter()
    assert 'id="instructions"' in page.content.decode()
    participant = bot.participant
    assert participant.prolific_session_id == "SESSIONB"
    assert [(c["from"], c["to"], c["resumed"]) for c in participant.session_changes] == [("SESSIONA", "SESSIONB", True)]
    # the same browser and session opening the link again goes straight to its step, no new record
    assert bot.client.get(entry_url(study, pid(3), "SESSIONB")).status_code == 302
    assert len(bot.participant.session_changes) == 1
