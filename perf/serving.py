"""What the serving benchmarks share: a database of their own (PostgreSQL, created and dropped, or
the embedded SQLite default), the production server on it, and the studies they walk."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perf.cpu import CpuMeter
from perf.load import hammer
from perf.server import Server, free_port, manage, server_env


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


@dataclass
class Served:
    """A migrated database with the implicature items, and gunicorn serving it."""

    database: Postgres | Sqlite
    env: dict[str, str]
    server: Server
    #: the CPU of the server's process group, the database's processes and this one (perf/cpu.py)
    meter: CpuMeter


@contextmanager
def served(make_database: Callable[[Path], Any], *, workers: int) -> Iterator[Served]:
    """`make_database(var_dir)` migrated, the implicature items imported (`$DATASETS_DIR`), and
    gunicorn on it as scripts/serve starts it, every worker up; stopped, and the database dropped,
    at the end."""
    with tempfile.TemporaryDirectory(prefix="parity-perf-") as tmp, make_database(Path(tmp)) as database:
        var_dir = Path(tmp)
        env = database.env(var_dir)
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "import_benchmark", "implicature")
        server = Server(env, port=free_port(), workers=workers, log=var_dir / "gunicorn.log").start()
        try:
            asyncio.run(hammer(f"{server.url}/livez", concurrency=2 * workers, seconds=1))  # every worker up
            yield Served(database, env, server, CpuMeter(server.process.pid if server.process else None))
        finally:
            server.stop()


def show_log_if(served: Served, problems: bool) -> None:
    """The server's log to stderr when a row found problems (a worker's traceback says why)."""
    if problems:
        print(served.server.tail(), file=sys.stderr)


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
