"""A run split over two real RQ workers on Redis and PostgreSQL; one is killed (SIGKILL) mid-run.

The other must finish it: every item scored exactly once, the run done. Each worker is a real
`manage.py rqworker` process; its scoring is slowed down (in the worker only, by the script
below) so that the kill lands while it holds a shard.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from modelruns.models import ModelResponse, ModelRun, ModelShard
from tests.paths import REPO

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKER = """
import sys, time
import django
django.setup()
from django.core.management import call_command
from modelruns import shard_answers

scored = shard_answers.shard_answers

def slowly(*args, **kwargs):
    time.sleep(0.5)  # stands in for a big model: a shard takes long enough to be caught mid-way
    return scored(*args, **kwargs)

shard_answers.shard_answers = slowly
call_command("rqworker", "models", "--job-class", "django_tasks_rq.Job", "--worker-class", "rq.worker.SimpleWorker")
"""


def _database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def shared_database() -> None:
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL shared by several processes (DATABASE_URL=postgres://...; scripts/test does this)"
        )


@pytest.fixture
def redis_queue(shared_database):
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as exc:
        pytest.skip(f"needs Redis at {REDIS_URL}: {exc}")
    client.flushdb()
    yield client
    client.flushdb()


def _env(tmp_path: Path, model_cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=_database_url(),
        TASK_QUEUE="redis",
        REDIS_URL=REDIS_URL,
        HF_HUB_OFFLINE="1",
        PARITY_MODEL_CACHE=str(model_cache),
        PARITY_VAR_DIR=str(tmp_path / "var"),
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(REPO),
        TOKENIZERS_PARALLELISM="false",
        OMP_NUM_THREADS="1",
        PARITY_MODEL_SOURCES=",".join(settings.PARITY_MODEL_SOURCES),
    )
    return env


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def test_a_run_survives_a_worker_killed_mid_run(
    shared_database, redis_queue, implicature, tiny_model_dir, session_model_cache, tmp_path
):
    from tests.factories import small_study

    study = small_study("two workers", unit_size=8, units=4, per_unit=1, attention_checks=0)
    env = _env(tmp_path, session_model_cache)
    queued = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "run_model",
            "--study",
            study.name,
            "--model",
            str(tiny_model_dir),
            "--device",
            "cpu",
            "--setting",
            "k=5",
            "--shard-size",
            "2",
            "--lease",
            "3",
        ],
        cwd=REPO,
        env=env,
        check=False,
        capture_output=True,
        timeout=120,
    )
    assert queued.returncode == 0, queued.stderr.decode()[-2000:]
    run = ModelRun.objects.get()
    assert run.shards.count() == 16 and redis_queue.llen("rq:queue:models") == 16

    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    logs = [open(tmp_path / f"worker-{n}.log", "w") for n in (1, 2)]
    workers = [
        subprocess.Popen(
            [sys.executable, str(script)],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        for log in logs
    ]
    victim, survivor = workers
    victim_prefix = f"{socket.gethostname()}:{victim.pid}:"
    try:
        deadline = time.monotonic() + 90
        held = None
        while held is None and time.monotonic() < deadline:
            held = ModelShard.objects.filter(
                run=run, status=ModelShard.Status.RUNNING, worker__startswith=victim_prefix
            ).first()
            if held is None:
                assert victim.poll() is None, (tmp_path / "worker-1.log").read_text()
                time.sleep(0.02)
        assert held is not None, "the first worker never claimed a shard"
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait(timeout=30)
        held.refresh_from_db()
        orphaned = held.status == ModelShard.Status.RUNNING and held.worker.startswith(victim_prefix)

        while time.monotonic() < deadline:
            run.refresh_from_db()
            if run.status != ModelRun.Status.QUEUED and run.status != ModelRun.Status.RUNNING:
                break
            assert survivor.poll() is None, (tmp_path / "worker-2.log").read_text()
            time.sleep(0.2)
    finally:
        for process in workers:
            _stop(process)
        for log in logs:
            log.close()

    assert run.status == ModelRun.Status.DONE, (run.status, run.error, (tmp_path / "worker-2.log").read_text()[-3000:])
    responses = ModelResponse.objects.filter(run=run)
    assert responses.count() == 32 == run.progress_done == responses.values("item").distinct().count()
    assert not ModelShard.objects.filter(run=run).exclude(status=ModelShard.Status.DONE).exists()
    if orphaned:  # the usual case: the kill caught the shard in flight, and the survivor took it over
        held.refresh_from_db()
        assert held.attempts >= 2 and not held.worker.startswith(victim_prefix)
    survivor_prefix = f"{socket.gethostname()}:{survivor.pid}:"
    assert ModelShard.objects.filter(run=run, worker__startswith=survivor_prefix).exists()
