"""Prolific's errors and time-outs: one exception with a clear message, and nothing half-done in Parity."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.management import CommandError, call_command

from prolific.client import ProlificClient, ProlificError
from prolific.models import ProlificStudy
from prolific.services import (
    ProlificStudyError,
    prolific_places_raise,
    prolific_study_create,
    prolific_study_transition,
    prolific_sync,
)
from tests.prolific.helpers import prolific_study


def test_an_http_error_names_the_call_and_the_status(standin):
    standin.fail("GET", "/studies/abc/", times=10)  # a lasting 500: every try fails
    with pytest.raises(ProlificError, match=r"Prolific refused GET studies/abc/: HTTP 500.*after 5 tries") as caught:
        ProlificClient().study_get("abc")
    assert caught.value.status == 500 and caught.value.sent


def test_a_time_out_says_how_long_it_waited(standin):
    standin.fail("GET", "/studies/abc/", "timeout")
    with pytest.raises(ProlificError, match=r"did not answer GET studies/abc/ within 2 s") as caught:
        ProlificClient().study_get("abc")
    assert caught.value.sent


def test_a_wrong_token_is_refused_and_a_missing_one_is_never_sent(standin, settings):
    with pytest.raises(ProlificError, match="HTTP 401"):
        ProlificClient(token="wrong").study_get("abc")
    settings.PROLIFIC_API_TOKEN = ""
    calls = len(standin.calls)
    with pytest.raises(ProlificError, match="PROLIFIC_API_TOKEN is not set"):
        ProlificClient().study_get("abc")
    assert len(standin.calls) == calls


def test_an_unreachable_prolific_is_reported_as_such():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ProlificError, match="could not be reached") as caught:
        ProlificClient(base_url=f"http://127.0.0.1:{port}/api/v1/", token="t", timeout=1).study_get("abc")
    assert not caught.value.sent


@pytest.mark.parametrize("kind", ["500", "timeout"])
def test_a_failed_creation_stores_nothing_and_can_be_tried_again(implicature, standin, kind):
    study = prolific_study()
    standin.fail("POST", "/studies/", kind)
    with pytest.raises(
        ProlificError, match=f"Look on Prolific for a draft named 'on prolific' .internal name parity:{study.link}."
    ):
        prolific_study_create(study=study)
    assert not ProlificStudy.objects.exists()
    found = prolific_study_create(study=study)
    assert list(standin.studies) == [found.prolific_id]
    with pytest.raises(ProlificStudyError, match="already has a Prolific study"):
        prolific_study_create(study=study)
    assert len(standin.studies) == 1


def test_a_failed_transition_leaves_the_status_as_it_was(implicature, standin):
    found = prolific_study_create(study=prolific_study())
    standin.fail("POST", "/transition/", "timeout")
    with pytest.raises(ProlificError, match="within 2 s"):
        prolific_study_transition(prolific_study=found, action="publish")
    found.refresh_from_db()
    assert found.status == ProlificStudy.Status.UNPUBLISHED
    # Prolific refuses what its state machine does not allow, and says so
    with pytest.raises(ProlificError, match="cannot PAUSE a study that is UNPUBLISHED"):
        prolific_study_transition(prolific_study=found, action="pause")


def test_places_are_only_ever_raised(implicature, standin):
    found = prolific_study_create(study=prolific_study())
    with pytest.raises(ProlificStudyError, match="can only be raised"):
        prolific_places_raise(prolific_study=found, places=3)
    with pytest.raises(ProlificError, match="cannot be decreased"):  # the stand-in holds Prolific's rule too
        ProlificClient().study_update(found.prolific_id, {"total_available_places": 3})
    prolific_places_raise(prolific_study=found, places=6)
    assert standin.studies[found.prolific_id]["total_available_places"] == 6 and found.places == 6


def test_a_study_closed_in_parity_is_not_published(implicature, standin):
    found = prolific_study_create(study=prolific_study(status="closed"))
    with pytest.raises(ProlificStudyError, match="not open in Parity"):
        prolific_study_transition(prolific_study=found, action="publish")
    assert standin.studies[found.prolific_id]["status"] == "UNPUBLISHED"


def test_a_failed_pull_changes_nothing(implicature, standin):
    found = prolific_study_create(study=prolific_study())
    standin.fail("GET", "/submissions/", "500", times=10)  # past the tries again
    with pytest.raises(ProlificError):
        prolific_sync(prolific_study=found)
    found.refresh_from_db()
    assert found.synced_at is None


def test_the_command_reports_prolific_s_error_plainly(implicature, standin):
    study = prolific_study()
    standin.fail("POST", "/studies/", "timeout")
    with pytest.raises(CommandError, match="Prolific did not answer POST studies/ within 2 s"):
        call_command("prolific", "create", study.name)
    call_command("prolific", "create", study.name, "--places", "5")
    call_command("prolific", "publish", study.name)
    assert [(row["status"], row["total_available_places"]) for row in standin.studies.values()] == [("ACTIVE", 5)]
    with pytest.raises(CommandError, match="has no Prolific study"):
        call_command("prolific", "publish", prolific_study("another").name)


@pytest.fixture
def redirecting(standin):
    """A server in front of the stand-in that answers every call with a redirect to it (status set
    per test): following one would carry the API token to wherever the answer points."""
    codes = []

    class Redirect(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(codes[-1])
            self.send_header("Location", standin.url.removesuffix("/api/v1/") + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_PATCH = do_GET  # noqa: N815

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield codes, f"http://127.0.0.1:{server.server_port}/api/v1/"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_redirect_is_refused_and_the_token_goes_nowhere_else(standin, redirecting, code, method):
    codes, url = redirecting
    codes.append(code)
    client = ProlificClient(base_url=url)
    call = (lambda: client.study_get("abc")) if method == "GET" else (lambda: client.hook_secret_create("w1"))
    with pytest.raises(
        ProlificError, match=rf"HTTP {code} \(a redirect to http://127.0.0.1:\d+/api/v1/.*\), which is not followed"
    ):
        call()
    assert standin.calls == []  # the stand-in, which the redirect named, saw no request (and no token)
