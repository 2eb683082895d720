"""Who a browser is on the participant's path: a cookie signed with the site's key, not the session."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.http import HttpRequest

from participation import cookie
from studies.models import Participant, Response
from tests.factories import Bot, form_item, pid, small_study

pytestmark = pytest.mark.django_db


def _known(value: str) -> dict[int, int]:
    """Who a request carrying the cookie `value` is."""
    request = HttpRequest()
    request.COOKIES[cookie.COOKIE] = value
    return cookie.known(request)


class SessionStore(DatabaseSessionStore):
    """A session engine that fails the request that reads or writes it."""

    def load(self):
        raise AssertionError("a participant's page read the session")

    def save(self, must_create=False):
        raise AssertionError("a participant's page wrote the session")


def test_the_whole_participant_path_neither_reads_nor_writes_the_session(implicature, settings):
    settings.SESSION_ENGINE = __name__
    study = small_study(units=1, per_unit=2)
    bot = Bot(study, pid(0xC001)).start_items()
    item_id, position = bot.current_form(bot.step().content.decode())
    answered = bot.client.post(
        f"/s/{study.link}/answer/",
        {"item": form_item(bot.participant.pk, position, item_id), "position": position, "answer": "yes"},
        headers={"HX-Request": "true"},
    )
    assert answered.status_code == 200 and 'name="position" value="2"' in answered.content.decode()
    done = bot.complete()
    assert "done" in done.content.decode().lower() and bot.participant.step == Participant.Step.DONE
    assert cookie.COOKIE in bot.client.cookies and settings.SESSION_COOKIE_NAME not in bot.client.cookies


def test_the_cookie_is_signed_http_only_and_lax(implicature, settings):
    settings.SESSION_COOKIE_SECURE = True
    study = small_study()
    bot = Bot(study, pid(0xC002))
    bot.enter()
    morsel = bot.client.cookies[cookie.COOKIE]
    assert morsel["httponly"] and morsel["secure"] and morsel["samesite"] == "Lax"
    assert int(morsel["max-age"]) == settings.SESSION_COOKIE_AGE
    assert _known(morsel.value) == {study.pk: bot.participant.pk}


def test_a_forged_or_altered_cookie_is_nobody(implicature):
    study = small_study(units=1, per_unit=2)
    first, second = Bot(study, pid(0xC003)).start_items(), Bot(study, pid(0xC004)).start_items()
    item_id, position = first.current_form(first.step().content.decode())
    # the second browser names the first participant: unsigned, then with the signature of its own value
    own = second.client.cookies[cookie.COOKIE].value
    for value in (
        f"{study.pk}.{first.participant.pk}",
        own.replace(f".{second.participant.pk}:", f".{first.participant.pk}:", 1),
    ):
        assert value != own
        second.client.cookies[cookie.COOKIE] = value
        page = second.client.post(
            f"/s/{study.link}/answer/",
            {"item": form_item(first.participant.pk, position, item_id), "position": position, "answer": "yes"},
        )
        assert page.status_code == 400 and "could not find your place" in page.content.decode()
    assert not Response.objects.exists()


def test_two_studies_in_one_browser_are_both_remembered(implicature):
    first, second = small_study("first"), small_study("second")
    bot = Bot(first, pid(0xC005))
    bot.enter()
    other = Bot(second, pid(0xC005), client=bot.client)
    other.enter()
    assert _known(bot.client.cookies[cookie.COOKIE].value) == {
        first.pk: bot.participant.pk,
        second.pk: other.participant.pk,
    }
    for study in (first, second):
        assert "consent" in bot.client.get(f"/s/{study.link}/step/").content.decode().lower()


def test_a_browser_that_entered_before_the_cookie_resumes_from_its_session(implicature, settings):
    study = small_study()
    bot = Bot(study, pid(0xC006)).start_items()
    session = bot.client.session
    session[cookie.SESSION_KEY] = {str(study.pk): bot.participant.pk}
    session.save()
    bot.client.cookies.pop(cookie.COOKIE)
    assert bot.client.cookies[settings.SESSION_COOKIE_NAME].value == session.session_key
    item_id, position = bot.current_form(bot.step().content.decode())
    bot.post("answer", {"item": item_id, "position": position, "answer": "yes"})
    assert bot.participant.answered == 1


def test_the_selectors_only_read_the_cookie_the_entry_view_writes_it() -> None:
    """docs/architecture.md: selectors read; a response (where a cookie is written) is never theirs."""
    import inspect

    from django.http import HttpResponse

    import participation.selectors

    takes_a_response = [
        name
        for name, function in inspect.getmembers(participation.selectors, inspect.isfunction)
        if function.__module__ == participation.selectors.__name__
        and any(
            "HttpResponse" in str(p.annotation) or p.annotation is HttpResponse
            for p in inspect.signature(function).parameters.values()
        )
    ]
    assert takes_a_response == []
