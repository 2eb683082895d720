"""config.postgresql: the health check of a kept connection sends nothing while the connection is
quiet, and still finds and replaces a connection the server dropped (PostgreSQL only)."""

from __future__ import annotations

import select
import tempfile

import pytest
from django.db import connection, connections

# committed, as a web worker's queries are: NOTIFY is delivered on commit
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


class Traced:
    """Every protocol message `wrapper`'s connection sends or receives meanwhile (libpq's trace)."""

    def __init__(self, wrapper) -> None:
        self.wrapper, self.file = wrapper, tempfile.TemporaryFile()

    def __enter__(self) -> Traced:
        self.pgconn = self.wrapper.connection.pgconn
        self.pgconn.trace(self.file.fileno())
        return self

    def __exit__(self, *exc) -> None:
        self.pgconn.untrace()
        self.file.seek(0)
        self.messages = [line.split("\t")[3] for line in self.file.read().decode().splitlines() if "\t" in line]


def _backend_pid(wrapper) -> int:
    return wrapper.connection.info.backend_pid


def _wait_readable(wrapper) -> None:
    poller = select.poll()
    poller.register(wrapper.connection.fileno(), select.POLLIN)
    assert poller.poll(5000), "the server did not write to the connection"


def test_the_settings_use_it():
    assert connection.settings_dict["ENGINE"] == "config.postgresql"


def test_a_quiet_connection_is_usable_without_a_round_trip(kept):
    with Traced(kept) as traced:
        assert kept.is_usable()
    assert traced.messages == []


def test_a_connection_the_server_dropped_is_found_and_replaced(kept):
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


def test_something_to_read_on_a_live_connection_leads_to_djangos_own_check(kept):
    with kept.cursor() as cursor:
        cursor.execute("LISTEN parity_health")
    with connection.cursor() as cursor:
        cursor.execute("NOTIFY parity_health")
    _wait_readable(kept)
    with Traced(kept) as traced:
        assert kept.is_usable()
    assert "Query" in traced.messages


def test_inside_a_transaction_djangos_own_check_runs(kept):
    kept.set_autocommit(False)
    with kept.cursor() as cursor:
        cursor.execute("SELECT 1")
    with Traced(kept) as traced:
        assert kept.is_usable()
    kept.rollback()
    kept.set_autocommit(True)
    assert "Query" in traced.messages
