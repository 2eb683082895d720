"""A single-shard run whose only worker is killed (SIGKILL) while it holds the shard: a fresh
`manage.py run_worker` finishes it without anyone restarting the run.

Nothing else of the run is queued, and the killed worker's queue row still says `running`; only the
sweep that runs beside the fresh worker can notice. Both workers are real processes on a real
database: a SQLite file (the embedded mode) and, with DATABASE_URL=postgres://..., PostgreSQL. The
first worker's scoring never returns (patched in that process only, by the script below), so the
kill always lands mid-shard.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import datasets_dir
from tests.paths import REPO

STUDY = "stuck run"
ITEMS = 8
LEASE = 5

SETUP = """
import sys
from pathlib import Path
import django
django.setup()
from django.core.management import call_command
from django.db import connection
from annotation.services import benchmark_import
from tests.factories import small_study

if connection.vendor == "sqlite":
    call_command("migrate", verbosity=0)
benchmark_import(name="implicature", source=Path(sys.argv[1]))
small_study(sys.argv[2], unit_size=int(sys.argv[3]), units=1, per_unit=1, attention_checks=0)
call_command("run_model", "--study", sys.argv[2], "--model", sys.argv[4], "--device", "cpu", "--shard-size", "100",
             "--lease", sys.argv[5])
"""

STUCK_WORKER = """
import sys, time
import django
django.setup()
from django.core.management import call_command
from modelruns import shard_answers

def never_returns(*args, **kwargs):
    time.sleep(3600)  # stands in for a long shard: the worker holds it when it is killed

shard_answers.shard_answers = never_returns
call_command("run_worker", *sys.argv[1:])
"""

WORKER_ARGS = ["--queue-name", "models", "--interval", "0.2", "--no-startup-delay", "--no-reload"]


class Database:
    """The database both workers use, and plain SQL to watch it from here."""

    def __init__(self, url: str, sqlite_path: Path | None = None) -> None:
        self.url, self.sqlite_path = url, sqlite_path

    def rows(self, sql: str) -> list[tuple]:
        if self.sqlite_path is not None:
            with sqlite3.connect(self.sqlite_path, timeout=20) as db:
                return db.execute(sql).fetchall()
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()

    def row(self, sql: str) -> tuple:
        rows = self.rows(sql)
        assert len(rows) == 1, (sql, rows)
        return rows[0]


@pytest.fixture
def sqlite_database(tmp_path: Path) -> Database:
    path = tmp_path / "parity.sqlite3"
    return Database(f"sqlite:///{path}", path)


@pytest.fixture
def postgres_database(shared_database_url: str) -> Database:
    """The test database of this run (committed data: the test is marked transaction=True)."""
    return Database(shared_database_url)


def _env(database: Database, tmp_path: Path, model_cache: Path, model_dir: Path) -> dict[str, str]:
    env = dict(os.environ, PARITY_MODEL_SOURCES=str(model_dir))
    env.update(
        DATABASE_URL=database.url,
        TASK_QUEUE="database",
        HF_HUB_OFFLINE="1",
        PARITY_MODEL_CACHE=str(model_cache),
        PARITY_VAR_DIR=str(tmp_path / "var"),
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(REPO),
        TOKENIZERS_PARALLELISM="false",
        OMP_NUM_THREADS="1",
        DEBUG="false",
        LOG_LEVEL="INFO",
    )
    return env


def _spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "w") as out:
        return subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def _tail(path: Path) -> str:
    return path.read_text()[-3000:] if path.exists() else ""


@pytest.mark.parametrize(
    "backend",
    ["sqlite", pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.django_db(transaction=True)])],
)
def test_a_fresh_worker_finishes_a_run_whose_only_worker_was_killed_holding_its_last_shard(
    backend, request, tmp_path, tiny_model_dir, session_model_cache
):
    database: Database = request.getfixturevalue(f"{backend}_database")
    env = _env(database, tmp_path, session_model_cache, tiny_model_dir)
    setup = subprocess.run(
        [
            sys.executable,
            "-c",
            SETUP,
            str(datasets_dir() / "implicature"),
            STUDY,
            str(ITEMS),
            str(tiny_model_dir),
            str(LEASE),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert setup.returncode == 0, setup.stderr[-3000:]
    (run_id,) = database.row("SELECT id FROM modelruns_modelrun")
    (shard_id,) = database.row(f"SELECT id FROM modelruns_modelshard WHERE run_id = {run_id}")
    assert database.rows("SELECT status FROM django_tasks_database_dbtaskresult") == [("READY",)]

    script = tmp_path / "stuck_worker.py"
    script.write_text(STUCK_WORKER)
    stuck_log, fresh_log = tmp_path / "stuck-worker.log", tmp_path / "fresh-worker.log"
    stuck = _spawn([sys.executable, str(script), *WORKER_ARGS], env, stuck_log)
    fresh = None
    try:
        deadline = time.monotonic() + 120
        holder = f"{socket.gethostname()}:{stuck.pid}:"
        while not database.rows(
            f"SELECT id FROM modelruns_modelshard WHERE id = {shard_id} AND status = 'running' "
            f"AND worker LIKE '{holder}%'"
        ):
            assert stuck.poll() is None and time.monotonic() < deadline, _tail(stuck_log)
            time.sleep(0.1)
        os.killpg(stuck.pid, signal.SIGKILL)
        stuck.wait(timeout=30)
        assert database.row("SELECT status FROM modelruns_modelrun") == ("running",)
        assert database.rows("SELECT status FROM django_tasks_database_dbtaskresult") == [("RUNNING",)]  # left behind

        fresh = _spawn([sys.executable, "manage.py", "run_worker", *WORKER_ARGS, "--sweep-every", "1"], env, fresh_log)
        deadline = time.monotonic() + 120
        # the run is written done inside the task; the worker records the task's end just after it (the
        # run done queues the flags' refresh on the "default" queue, which this worker does not take)
        while database.row("SELECT status FROM modelruns_modelrun") in (("queued",), ("running",)) or database.row(
            "SELECT COUNT(*) FROM django_tasks_database_dbtaskresult WHERE status IN ('READY', 'RUNNING')"
            " AND task_path = 'modelruns.tasks.run_shard'"
        ) != (0,):
            assert fresh.poll() is None, _tail(fresh_log)
            assert time.monotonic() < deadline, f"the run is still not finished\n{_tail(fresh_log)}"
            time.sleep(0.2)
    finally:
        for process in (stuck, fresh):
            if process is not None:
                _kill(process)

    status, done, total = database.row("SELECT status, progress_done, progress_total FROM modelruns_modelrun")
    assert (status, done, total) == ("done", ITEMS, ITEMS), _tail(fresh_log)
    assert database.row(
        f"SELECT COUNT(*), COUNT(DISTINCT item_id) FROM modelruns_modelresponse WHERE run_id = {run_id}"
    ) == (ITEMS, ITEMS)
    status, worker, attempts, reclaims, reclaimed_at = database.row(
        f"SELECT status, worker, attempts, reclaims, reclaimed_at FROM modelruns_modelshard WHERE id = {shard_id}"
    )
    assert (status, attempts, reclaims) == ("done", 2, 1) and reclaimed_at is not None
    assert worker.startswith(f"{socket.gethostname()}:{fresh.pid}:")
    # the killed worker's row is marked failed, the task the sweep queued ran; nothing is left running
    assert sorted(
        database.rows(
            "SELECT status, exception_class_path FROM django_tasks_database_dbtaskresult"
            " WHERE task_path = 'modelruns.tasks.run_shard'"
        )
    ) == [
        ("FAILED", "modelruns.workers.WorkerLost"),
        ("SUCCESSFUL", ""),
    ]
    # and the run done asked for the model-likeness flags' refresh, on the queue of the results' tasks
    assert database.rows(
        "SELECT task_path, queue_name FROM django_tasks_database_dbtaskresult WHERE status = 'READY'"
    ) == [("results.pipeline.review_signals_task", "default")]
