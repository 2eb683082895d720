"""Django's PostgreSQL backend as the production profile sets it up (kept connections with health
checks): a kept connection the server dropped is found and replaced before a request uses it
(PostgreSQL only)."""

from __future__ import annotations

import select

import pytest
from django.db import connection, connections

# committed, as a web worker's queries are
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend"),
]


@pytest.fixture
def kept():
    """A second connection to the test database, as a web worker keeps one between requests."""
    wrapper = connections.create_connection("default")
    wrapper.ensure_connection()
    wrapper.health_check_enabled = True  # as CONN_HEALTH_CHECKS (connecting sets it from the settings)
    yield wrapper
    wrapper.close()


def _backend_pid(wrapper) -> int:
    return wrapper.connection.info.backend_pid


def _wait_readable(wrapper) -> None:
    poller = select.poll()
    poller.register(wrapper.connection.fileno(), select.POLLIN)
    assert poller.poll(5000), "the server did not write to the connection"


def test_a_connection_the_server_dropped_is_found_and_replaced(kept):
    assert kept.is_usable()  # a live one is kept
    dropped = _backend_pid(kept)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [dropped])
    _wait_readable(kept)
    assert not kept.is_usable()
    kept.health_check_done = False
    kept.close_if_health_check_failed()
    with kept.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != dropped
