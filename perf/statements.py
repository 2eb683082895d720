"""The answer's statements on PostgreSQL: bound on the client and planned on every run (Django's
default) against prepared (bound on the server, planned once per connection), in the same run.

    python perf/statements.py [--runs 3000] [--database-url postgres://.../parity_statements]

Creates a database (dropped at the end), migrates, imports the implicature items
($DATASETS_DIR/implicature when set) and admits one participant to a small study. Then, for each of
the answer's locked read (in its transaction: BEGIN, the read, COMMIT) and the item page's read, runs
it `--runs` times each way on one connection and prints the CPU per run of this process (the
client) and of the connection's PostgreSQL backend (from /proc, so Linux only), and the ratios.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/parity_statements"


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _participant():
    from django.core.management import call_command

    from studies.models import Study
    from studies.services import item_mark_shown, participant_begin, participant_consent, participant_enter

    call_command("migrate", "--noinput", verbosity=0)
    call_command("import_benchmark", "implicature", verbosity=0)
    call_command("create_study", "--benchmark", "implicature", "--name", "statements", "--units", "1",
                 "--per-unit", "1", "--unit-size", "3", "--attention-checks", "1", verbosity=0, stdout=io.StringIO())
    study = Study.objects.get(name="statements")
    participant = participant_enter(study=study, pid="5f0c8a1e2b3d4c5e6f7a8b9c").participant
    participant = participant_begin(participant=participant_consent(participant=participant, agree=True))
    return item_mark_shown(participant=participant)


def measure(runs: int) -> list[tuple[str, float, float, float, float]]:
    """(statement, client µs bound on the client, backend µs, client µs prepared, backend µs)."""
    from django.db import connection, transaction

    from studies.participation import prepared

    participant = _participant()
    ids, link, item = [participant.pk], participant.study.link, participant.sequence[0]

    def answer_read() -> None:
        with transaction.atomic():
            prepared.participant_lock_for_answer(participant_ids=ids, link=link, item_id=item, next_index=1)

    def page_read() -> None:
        prepared.participant_at_link(ids, link)

    connection.ensure_connection()
    backend = connection.connection.info.backend_pid
    client_bound = connection.cursor  # Django's own cursor: client-side binding, never prepared

    def timed(run: Callable[[], None]) -> tuple[float, float]:
        run()
        client, server = time.process_time(), _cpu_seconds(backend)
        for _ in range(runs):
            run()
        return ((time.process_time() - client) / runs * 1e6, (_cpu_seconds(backend) - server) / runs * 1e6)

    rows = []
    for label, run in (("answer's locked read (BEGIN, read, COMMIT)", answer_read), ("item page's read", page_read)):
        with mock.patch.object(prepared, "_cursor", lambda _connection: client_bound()):
            bound = timed(run)
        rows.append((label, *bound, *timed(run)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--database-url", default=os.environ.get("PERF_STATEMENTS_DATABASE_URL", DEFAULT_DATABASE_URL),
                        help="PostgreSQL URL naming a database that does not exist yet: created and dropped")
    args = parser.parse_args(argv)

    from perf.participants import Postgres
    from perf.server import server_env

    with Postgres(args.database_url) as database, tempfile.TemporaryDirectory(prefix="parity-perf-") as var_dir:
        os.environ.update(server_env(database_url=database.url, var_dir=Path(var_dir)))
        import django

        django.setup()
        try:
            rows = measure(args.runs)
        finally:
            from django.db import connections

            connections.close_all()
    print(f"{args.runs} runs each, CPU per run in µs (client: this process; backend: its PostgreSQL process)")
    print(f"{'statement':<44} {'bound client':>12} {'backend':>8} {'prepared client':>15} {'backend':>8} "
          f"{'client ratio':>12} {'backend ratio':>13}")
    for label, client, server, prepared_client, prepared_server in rows:
        print(f"{label:<44} {client:>12.1f} {server:>8.1f} {prepared_client:>15.1f} {prepared_server:>8.1f} "
              f"{prepared_client / client:>12.2f} {prepared_server / server:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
