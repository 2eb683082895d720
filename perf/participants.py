"""Serving participants: simulated Prolific participants against the production server.

    python perf/participants.py [--participants 500] [--concurrency 50 [500 ...]] [--path htmx|nojs|both]
                               [--database-url postgres://...] [--sqlite] [--workers N] [--json]

For each database (PostgreSQL, a database this script creates and drops; with --sqlite also the
embedded SQLite default, in a temporary directory) it migrates, imports the implicature items
(`manage.py import_benchmark`, from $DATASETS_DIR/implicature when set), starts gunicorn as
scripts/serve does (production settings, DEBUG off, WEB_CONCURRENCY sync workers, plain HTTP on a
free local port) and, for each concurrency C:
- creates a study (`manage.py create_study`) whose units hold exactly the N
  participants, and walks N participants through it, C at a time over at most C connections
  (perf/load.py): all reach their first item, then all answer every item (the timed phase), then
  all load the done page;
- measures the trivial view, `/livez` (no database, no session), within the answering phase: every
  --slice-every seconds (2) the participants' new requests wait, those in flight finish, and C
  clients GET /livez alone for --livez-slice seconds (1), then the participants go on. Its
  requests/s over all its slices is the ceiling of this server on this machine, measured in the same
  minutes as the answers (the machine's speed drifts by a third within a minute: /livez measured
  before and after a load differed that much). Answers/s and the answers' CPU leave the slices out;
- checks the database: every acknowledged answer stored exactly once, no (participant, position)
  twice, no unit past its capacity, the same number completed in every unit.
Answer POST times are from sending the request to reading the whole response (on the no-JS path the
302 only; the step page it redirects to is a request of its own). Answers/s is acknowledged answers
over the answering phase, whose requests are the answer POSTs (and, without JavaScript, the step
pages they redirect to). Participants answer as fast as the server lets them (no think time), and
the client runs on the same machine as the server. With --json the last line is one JSON object.

A second table gives the CPU behind those figures (perf/cpu.py, Linux): milliseconds per answer of
the server's processes, PostgreSQL's and the client's during the answering phase, the same per
/livez request, and the server ratio, /livez's server CPU over an answer's server + database CPU.
The client shares the cores, and a /livez request costs it about two thirds of what it costs the
server: the throughput ratio counts that share, the server ratio does not.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from perf.cpu import GROUPS, CpuMeter  # noqa: E402
from perf.load import PATHS, Hammered, Load, hammer, pids, run_participants  # noqa: E402
from perf.server import Server, free_port, manage, server_env  # noqa: E402
from perf.verify import verify  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/parity_perf"


@dataclass
class Row:
    database: str
    path: str
    concurrency: int
    participants: int
    completed: int
    failed: int
    server_errors: int
    answers: int
    stored: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    answers_per_s: float
    livez_per_s: float
    ratio: float
    seconds: dict[str, float]
    verified: bool
    problems: list[str]
    #: the machine's 1-minute load average when the row was done (other work shares the machine)
    load_average: float = 0.0
    #: CPU milliseconds per answer in the answering phase: server (gunicorn), database, client
    cpu_ms: dict[str, float] | None = None
    #: CPU milliseconds per /livez request: server, client
    livez_cpu_ms: dict[str, float] | None = None
    #: /livez's server CPU over an answer's server and database CPU: the ratio without the client's share
    server_ratio: float | None = None
    #: /livez requests/s of each slice between slices of the answering phase (livez_per_s is all of them)
    livez_slices: list[float] = field(default_factory=list)


# -- databases ------------------------------------------------------------------------------------


class Postgres:
    """A database of its own on the server `url` names: created here, dropped at the end."""

    label = "postgresql"

    def __init__(self, url: str) -> None:
        import psycopg

        self.psycopg, self.url = psycopg, url
        base, _, self.name = url.rpartition("/")
        self.maintenance = f"{base}/postgres"
        if not self.name.replace("_", "").isalnum():
            raise SystemExit(f"--database-url: {self.name!r} is not a plain database name")

    def __enter__(self) -> Postgres:
        with self.psycopg.connect(self.maintenance, autocommit=True) as db:
            if db.execute("SELECT 1 FROM pg_database WHERE datname = %s", (self.name,)).fetchone():
                raise SystemExit(f"database {self.name} already exists: drop it, or name another with --database-url")
            db.execute(f'CREATE DATABASE "{self.name}"')
        return self

    def __exit__(self, *exc: object) -> None:
        with self.psycopg.connect(self.maintenance, autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def env(self, var_dir: Path) -> dict[str, str]:
        return server_env(database_url=self.url, var_dir=var_dir)

    def query(self, sql: str) -> list[tuple]:
        with self.psycopg.connect(self.url) as db:
            return db.execute(sql).fetchall()


class Sqlite:
    """The embedded default: var/parity.sqlite3, here under a temporary directory."""

    label = "sqlite"

    def __init__(self, var_dir: Path) -> None:
        self.path = var_dir / "parity.sqlite3"

    def __enter__(self) -> Sqlite:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def env(self, var_dir: Path) -> dict[str, str]:
        return server_env(database_url=None, var_dir=var_dir)

    def query(self, sql: str) -> list[tuple]:
        with sqlite3.connect(self.path, timeout=30) as db:
            return db.execute(sql).fetchall()


# -- one database ---------------------------------------------------------------------------------


def study_link(
    env: dict[str, str], *, name: str, participants: int, units: int, items: int, attention_checks: int
) -> str:
    """A live implicature study with room for exactly `participants` (`units` × per unit)."""
    per_unit = -(-participants // units)
    output = manage(
        env,
        "create_study",
        "--benchmark",
        "implicature",
        "--name",
        name,
        "--units",
        str(units),
        "--per-unit",
        str(per_unit),
        "--unit-size",
        str(items),
        "--attention-checks",
        str(attention_checks),
        "--exclude-at",
        str(attention_checks + 1),
        # the simulated participants answer as fast as the server lets them, with no time to read
        "--min-answer-ms",
        "0",
    )
    return output.strip().splitlines()[-1].split("?")[0].rstrip("/").rsplit("/", 1)[-1]


def measure(make_database: Callable[[Path], Any], args: argparse.Namespace, report: Callable[[Row], None]) -> list[Row]:
    """Every row of one database; `make_database(var_dir)` gives it, with the server's data directory."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="parity-perf-") as tmp, make_database(Path(tmp)) as database:
        var_dir = Path(tmp)
        env = database.env(var_dir)
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "import_benchmark", "implicature")
        server = Server(env, port=free_port(), workers=args.workers, log=var_dir / "gunicorn.log").start()
        try:
            asyncio.run(hammer(f"{server.url}/livez", concurrency=2 * args.workers, seconds=1))  # every worker up
            meter = CpuMeter(server.process.pid if server.process else None)  # its own process group
            for concurrency in args.concurrency:
                trivial = partial(
                    hammer, f"{server.url}/livez", concurrency=concurrency, seconds=args.livez_slice, meter=meter
                )
                for path in args.paths:
                    units = args.units if args.participants % args.units == 0 else 1
                    link = study_link(
                        env,
                        name=f"perf {path} C{concurrency}",
                        participants=args.participants,
                        units=units,
                        items=args.items,
                        attention_checks=args.attention_checks,
                    )
                    load = asyncio.run(
                        run_participants(
                            base_url=server.url,
                            link=link,
                            pids=pids(args.participants, prefix=concurrency),
                            path=path,
                            concurrency=concurrency,
                            timeout=args.timeout,
                            meter=meter,
                            trivial=trivial,
                            every=args.slice_every,
                        )
                    )
                    row = _row(database.label, load, database.query, link)
                    report(row)
                    rows.append(row)
        finally:
            server.stop()
            if any(not row.verified or row.server_errors for row in rows):
                print(server.tail(), file=sys.stderr)
    return rows


def _row(label: str, load: Load, query: Callable[[str], list[tuple]], link: str) -> Row:
    livez = _combined(load.trivial)
    check = verify(query, link=link, outcomes=load.outcomes, exact=True)
    p50, p95, p99 = load.answer_percentiles(50, 95, 99)
    errors = [outcome.error for outcome in load.outcomes if outcome.error]
    problems = check.problems + ([f"{len(errors)} participants stopped, e.g. {errors[0]}"] if errors else [])
    return Row(
        label,
        load.path,
        load.concurrency,
        len(load.outcomes),
        load.completed,
        len(load.outcomes) - load.completed,
        load.server_errors,
        check.acknowledged,
        check.stored,
        round(p50, 1),
        round(p95, 1),
        round(p99, 1),
        round(load.answers_per_second, 1),
        round(livez.per_second, 1),
        round(load.answers_per_second / livez.per_second, 3) if livez.per_second else 0.0,
        {phase: round(seconds, 2) for phase, seconds in load.phases.items()},
        not problems,
        problems,
        round(os.getloadavg()[0], 2),
        load.cpu_ms,
        livez.cpu_ms,
        _server_ratio(load.cpu_ms, livez.cpu_ms),
        [round(each.per_second, 1) for each in load.trivial],
    )


def _combined(slices: Sequence[Hammered]) -> Hammered:
    """The trivial view's slices as one measurement: every request over all their time, and the CPU
    per request over all their requests."""
    ok, seconds = sum(each.ok for each in slices), sum(each.seconds for each in slices)
    cpu = None
    if ok and all(each.cpu_ms for each in slices):
        cpu = {group: round(sum(each.cpu_ms[group] * each.ok for each in slices) / ok, 3) for group in GROUPS}
    return Hammered(ok, sum(each.failed for each in slices), ok / seconds if seconds else 0.0, cpu, seconds)


def _server_ratio(answer: dict[str, float] | None, livez: dict[str, float] | None) -> float | None:
    if not answer or not livez or not answer["server"] + answer["database"]:
        return None
    return round(livez["server"] / (answer["server"] + answer["database"]), 3)


# -- output -------------------------------------------------------------------------------------------

HEADER = (
    f"{'database':<10} {'path':<5} {'C':>4} {'done':>5} {'failed':>6} {'5xx':>4} {'answers':>7} "
    f"{'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'answers/s':>9} {'livez/s':>8} {'ratio':>6} {'load':>5}  check"
)


def line(row: Row) -> str:
    check = "ok" if row.verified else "FAILED: " + "; ".join(row.problems)
    return (
        f"{row.database:<10} {row.path:<5} {row.concurrency:>4} {row.completed:>5} {row.failed:>6} "
        f"{row.server_errors:>4} {row.answers:>7} {row.p50_ms:>7.1f} {row.p95_ms:>7.1f} {row.p99_ms:>7.1f} "
        f"{row.answers_per_s:>9.1f} {row.livez_per_s:>8.1f} {row.ratio:>6.3f} {row.load_average:>5.1f}  {check}"
    )


CPU_HEADER = (
    f"{'database':<10} {'path':<5} {'C':>4} {'server':>7} {'database':>8} {'client':>7} "
    f"{'livez server':>12} {'livez client':>12} {'server ratio':>12}  /livez req/s of its slices, lowest–highest"
)


def cpu_line(row: Row) -> str:
    if row.cpu_ms is None or row.livez_cpu_ms is None:
        return f"{row.database:<10} {row.path:<5} {row.concurrency:>4}  (no /proc: not measured)"
    return (
        f"{row.database:<10} {row.path:<5} {row.concurrency:>4} {row.cpu_ms['server']:>7.3f} "
        f"{row.cpu_ms['database']:>8.3f} {row.cpu_ms['client']:>7.3f} {row.livez_cpu_ms['server']:>12.3f} "
        f"{row.livez_cpu_ms['client']:>12.3f} {row.server_ratio:>12.3f}  "
        f"{_spread(row.livez_slices)}"
    )


def _spread(rates: Sequence[float]) -> str:
    return f"{min(rates):.0f}–{max(rates):.0f} over {len(rates)}" if rates else "none"


def each_database(args: argparse.Namespace, measure: Callable[..., list[Any]], line: Callable[[Any], str]) -> list[Any]:
    """`measure` against PostgreSQL (unless --no-postgres), then the embedded SQLite (with --sqlite),
    each row printed as it comes."""
    databases: list[Callable[[Path], Any]] = [] if args.no_postgres else [lambda _var: Postgres(args.database_url)]
    if args.sqlite:
        databases.append(Sqlite)
    rows: list[Any] = []
    for make_database in databases:
        rows += measure(make_database, args, lambda row: print(line(row), flush=True))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--participants", "-n", type=int, default=500)
    parser.add_argument("--concurrency", "-c", type=int, nargs="+", default=[50])
    parser.add_argument("--path", choices=[*PATHS, "both"], default="both")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("PERF_DATABASE_URL", DEFAULT_DATABASE_URL),
        help="PostgreSQL URL naming a database that does not exist yet: it is created and dropped "
        "(default $PERF_DATABASE_URL or %(default)s)",
    )
    parser.add_argument("--sqlite", action="store_true", help="then the same against the embedded SQLite default")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only (with --sqlite)")
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("WEB_CONCURRENCY") or 2 * (os.cpu_count() or 1)),
        help="gunicorn workers (default $WEB_CONCURRENCY, else 2 per core as scripts/serve)",
    )
    parser.add_argument("--items", type=int, default=3, help="items per participant, besides attention checks")
    parser.add_argument("--attention-checks", type=int, default=1)
    parser.add_argument("--units", type=int, default=10, help="units of the study (participants / units each)")
    parser.add_argument(
        "--livez-slice",
        type=float,
        default=1.0,
        help="seconds of each /livez slice between slices of the answering phase",
    )
    parser.add_argument(
        "--slice-every", type=float, default=2.0, help="seconds of the answering phase between two /livez slices"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds a request may take before the participant reloads (requests queue at high C)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.paths = list(PATHS) if args.path == "both" else [args.path]

    began = time.monotonic()
    load_before = os.getloadavg()[0]
    print(
        f"{args.participants} participants × {args.items + args.attention_checks} answers, "
        f"{args.workers} gunicorn workers, {os.cpu_count()} cores (load average {load_before:.2f} before)"
    )
    print(HEADER, flush=True)
    rows: list[Row] = each_database(args, measure, line)
    print(
        "\nCPU milliseconds per answer (answering phase) and per /livez request; server ratio: /livez's "
        "server CPU over an answer's server + database CPU"
    )
    print(CPU_HEADER)
    for row in rows:
        print(cpu_line(row))
    print(f"{time.monotonic() - began:.0f} s in all")
    if args.json:
        print(
            json.dumps(
                {
                    "settings": {key: value for key, value in vars(args).items() if key != "json"},
                    "cores": os.cpu_count(),
                    "load_average_before": load_before,
                    "rows": [asdict(row) for row in rows],
                }
            )
        )
    return 0 if all(row.verified and not row.server_errors for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
