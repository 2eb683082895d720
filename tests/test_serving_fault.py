"""The production server is killed mid-load — SIGKILL to gunicorn's master and every worker at once,
requests in flight included — and started again. The participants (perf/load.py, the benchmark's
own client) retry what failed as people do, by reloading the page; every one of them resumes and
finishes, every answer the server acknowledged is stored exactly once, no (participant, position)
is stored twice and the units stay balanced.

Real gunicorn processes serve the test run's PostgreSQL database (the test is transaction=True, so
they see the study it commits); skipped without DATABASE_URL=postgres://...
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection

from perf.load import Answer, Load, pids, run_participants
from perf.server import Server, free_port, server_env
from perf.verify import verify
from studies.models import Participant, Response
from tests.factories import small_study

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PARTICIPANTS = 20
UNITS = 2
ITEMS = 5  # and one attention check: 6 answers each
#: acknowledged answers before the kill: a third of the load
KILL_AFTER = PARTICIPANTS * (ITEMS + 1) // 3


def _query(sql: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


async def _load_with_a_kill(server: Server, link: str, path: str, kills: list[int]) -> Load:
    """The participants walk the study; once KILL_AFTER answers are acknowledged the server is
    killed and started again on the same port while they keep going."""
    acknowledged = 0
    kill = asyncio.Event()

    def count(_answer: Answer) -> None:
        nonlocal acknowledged
        acknowledged += 1
        if acknowledged == KILL_AFTER:
            kill.set()

    async def killer() -> None:
        await kill.wait()
        kills.append(server.process.pid)
        await asyncio.to_thread(server.kill)
        await asyncio.to_thread(server.start)

    task = asyncio.create_task(killer())
    try:
        return await run_participants(
            base_url=server.url,
            link=link,
            pids=pids(PARTICIPANTS),
            path=path,
            concurrency=PARTICIPANTS,
            phased=False,
            on_answer=count,
            timeout=30,
            backoff=0.2,
            max_failures=200,
        )
    finally:
        if not task.done():
            task.cancel()


@pytest.mark.parametrize("path", ["htmx", "nojs"])
def test_participants_finish_and_no_acknowledged_answer_is_lost_or_doubled_when_the_server_is_killed_mid_load(
    path, shared_database_url, implicature, tmp_path: Path
):
    study = small_study(
        "serving fault", unit_size=ITEMS, units=UNITS, per_unit=PARTICIPANTS // UNITS, attention_checks=1, exclude_at=2
    )
    server = Server(
        server_env(database_url=shared_database_url, var_dir=tmp_path),
        port=free_port(),
        workers=2,
        log=tmp_path / "gunicorn.log",
    )
    kills: list[int] = []
    try:
        server.start()
        # a thread of its own: the browser tests' Playwright keeps an event loop running in this one
        with ThreadPoolExecutor(max_workers=1) as thread:
            load = thread.submit(asyncio.run, _load_with_a_kill(server, study.link, path, kills)).result()
        assert len(kills) == 1, f"the load ended before {KILL_AFTER} answers were acknowledged\n{server.tail()}"
        assert server.process.pid != kills[0]  # the answers after the kill came from the restarted server
    finally:
        server.stop()

    assert sum(outcome.failures for outcome in load.outcomes) > 0  # the kill cut requests off
    assert [outcome.error for outcome in load.outcomes if outcome.error] == [], server.tail()
    assert load.completed == PARTICIPANTS
    check = verify(_query, link=study.link, outcomes=load.outcomes, exact=True)
    assert check.problems == [], server.tail()
    # nothing beyond the acknowledged answers: each participant's sequence once, answered to the end
    assert Response.objects.filter(participant__study=study).count() == PARTICIPANTS * (ITEMS + 1)
    assert set(Participant.objects.filter(study=study).values_list("status", "step", "answered")) == {
        ("completed", "done", ITEMS + 1)
    }
    assert check.unit_completed == dict.fromkeys(check.unit_completed, PARTICIPANTS // UNITS)
    assert len(check.unit_completed) == UNITS
