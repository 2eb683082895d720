"""`/healthz` answers 200 when the database and the configured task queue answer, 503 naming what
does not; `/livez` answers "ok" without the database or the session; and gunicorn, the server
scripts/run and scripts/serve start, serves both."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.paths import REPO

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

pytestmark = pytest.mark.django_db


def test_the_database_queue_and_the_database_answer(client, settings):
    settings.TASK_QUEUE = "database"
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "queue": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_a_redis_queue_that_answers(client, settings):
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.exceptions.ConnectionError as exc:
        pytest.skip(f"needs Redis at {REDIS_URL}: {exc}")
    settings.TASK_QUEUE, settings.REDIS_URL = "redis", REDIS_URL
    assert client.get("/healthz").json() == {"status": "ok", "database": "ok", "queue": "ok"}


def test_an_unreachable_redis_queue_is_a_503_that_names_the_queue(client, settings):
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    settings.TASK_QUEUE, settings.REDIS_URL = "redis", f"redis://127.0.0.1:{port}/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "ok", "queue": "error: ConnectionError"}


def test_it_is_answered_over_plain_http_when_https_redirects_everything_else(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/studies/").status_code == 301


def test_only_get_is_answered(client):
    assert client.post("/healthz").status_code == 405


def test_livez_answers_without_touching_the_database_or_the_session(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/livez")
    assert (response.status_code, response.content, response["Content-Type"]) == (200, b"ok", "text/plain")
    assert "no-cache" in response["Cache-Control"]
    assert not response.cookies  # no session and no CSRF cookie: nothing was stored for this request
    assert client.post("/livez").status_code == 405


def test_livez_is_answered_over_plain_http_when_https_redirects_everything_else(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/livez").status_code == 200
    assert client.get("/livez/").status_code == 301  # only the exact path is exempt


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:  # the first answer waits for the worker's boot
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_gunicorn_serves_it_and_it_turns_healthy_once_the_database_is_migrated(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}},
        "PARITY_VAR_DIR": str(tmp_path),
        "TASK_QUEUE": "database",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--preload", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        url, deadline = f"http://127.0.0.1:{port}/healthz", time.monotonic() + 60
        while True:
            try:
                status, body = _get(url)
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.3)
        assert (status, body["queue"].startswith("error")) == (503, True), body  # no task table yet
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/livez", timeout=60) as live:  # alive all the same
            assert (live.status, live.read()) == (200, b"ok")
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True, timeout=300
        )
        assert _get(url) == (200, {"status": "ok", "database": "ok", "queue": "ok"})
    finally:
        server.terminate()
        server.wait(timeout=30)
