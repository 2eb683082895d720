"""Refusals that concern a PID (it took part in a study of the group, or is taking part from another
browser) are said to the browser that entered as it; another browser, where anyone may have typed
the PID into the link, learns only that the study cannot be started there."""

from __future__ import annotations

import pytest

from studies.models import Participant
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

NEUTRAL = "This study cannot be started here"
#: what would tell a link holder that the PID took part, or is taking part
REVEALING = ("already taken part", "related study", "in another browser", "taking part elsewhere", "This Prolific ID")


def _neutral(page) -> None:
    html = page.content.decode()
    assert page.status_code == 403 and NEUTRAL in html
    assert not [phrase for phrase in REVEALING if phrase in html]


def test_a_new_browser_is_not_told_that_a_pid_took_part_in_the_group(implicature):
    first = small_study("first", group="implicature-2026")
    second = small_study("second", group="implicature-2026")
    participant = Bot(first, pid(1))
    participant.complete()
    _neutral(Bot(second, pid(1)).enter())
    # the browser that entered the first study is told why
    own = Bot(second, pid(1), client=participant.client).enter()
    assert own.status_code == 200 and "You have already taken part" in own.content.decode()
    assert not Participant.objects.filter(study=second).exists()


def test_a_new_browser_is_not_told_that_a_pid_is_taking_part(implicature):
    study = small_study()
    participant = Bot(study, pid(2), session="SESSIONOWN")
    participant.start_items()
    participant.answer_current()
    _neutral(Bot(study, pid(2), session="SESSIONOTHER").enter())
    # the browser that entered sees where it stands: its own item, under either session
    for session in ("SESSIONOWN", "SESSIONNEW"):
        participant.session = session
        participant.enter()
        assert 'value="2"' in participant.step().content.decode()


def test_both_refusals_read_the_same_to_a_new_browser(implicature):
    """Nothing on the page tells a taken PID's two cases apart, nor from a PID refused elsewhere."""
    group = small_study("first", group="g"), small_study("second", group="g")
    Bot(group[0], pid(3)).enter()
    working = Bot(group[0], pid(4), session="SESSIONOWN")
    working.enter()
    in_group = Bot(group[1], pid(3)).enter()
    elsewhere = Bot(group[0], pid(4), session="SESSIONOTHER").enter()
    _neutral(in_group)
    _neutral(elsewhere)
    assert _card(in_group) == _card(elsewhere)


def _card(page) -> str:
    html = page.content.decode()
    return html[html.index('<section class="card" id="problem">') :]


def test_a_browser_that_entered_as_another_pid_is_not_told_either(implicature):
    study = small_study()
    Bot(study, pid(5), session="SESSIONOWN").enter()
    someone = Bot(study, pid(6))
    someone.enter()
    _neutral(Bot(study, pid(5), session="SESSIONOTHER", client=someone.client).enter())
