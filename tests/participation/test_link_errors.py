"""What a participant reads when the study link is not valid: the problem in words, in one pair of
brackets (never a bracket inside a bracket)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from studies.models import Participant
from tests.factories import entry_url, small_study

pytestmark = pytest.mark.django_db


def _message(response) -> str:
    html = response.content.decode()
    return unescape(re.search(r'<section class="card" id="problem">.*?<p>(.*?)</p>', html, re.S).group(1))


def _nested(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth > 1:
            return True
    return False


@pytest.mark.parametrize(
    ("pid", "problem"),
    [
        ("participant-1", "PROLIFIC_PID must be a Prolific ID: 24 hexadecimal characters"),
        ("a" * 70, "PROLIFIC_PID is longer than 64 characters"),
    ],
)
def test_a_link_that_is_not_valid_says_why_without_nested_brackets(implicature, client, pid, problem):
    study = small_study()
    response = client.get(entry_url(study, pid))
    assert response.status_code == 400
    message = _message(response)
    assert message == f"Please open the study from Prolific again ({problem})."
    assert not _nested(message)
    assert not Participant.objects.exists()


def test_an_overlong_session_id_is_refused_once_in_words(implicature, client):
    study = small_study()
    response = client.get(entry_url(study, "5f0c1a2b3c4d5e6f7a8b9c0d", session="S" * 65))
    message = _message(response)
    assert message == "Please open the study from Prolific again (SESSION_ID must be 1–64 letters, digits, '-' or '_')."
