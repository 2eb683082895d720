"""Django's PostgreSQL backend with a health check that costs no round trip when nothing is wrong.

With persistent connections (`CONN_MAX_AGE`) and `CONN_HEALTH_CHECKS`, Django checks a kept
connection before a request's first query by running `SELECT 1` on it: one more round trip on every
request, for the participant's answer one in five. Here the check first looks at the connection's
socket without a round trip: an idle connection the server has not written to since its last answer
has nothing to read, and a connection the server or a pooler dropped has (its error message, or the
hang-up itself). Only when there is something to read, or the connection is inside a transaction,
does it run Django's own check, which reads it and decides; a dropped connection is then closed and
replaced before the request uses it, as before.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status == pq.TransactionStatus.IDLE and not _readable(connection.fileno()):
            return True
        return super().is_usable()


def _readable(fd: int) -> bool:
    """Something to read on `fd`, or it is closed or in error (poll reports both whatever is asked)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))
