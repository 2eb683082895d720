"""The open-loop load (perf/open_loop.py): its schedule, and a short run against real gunicorn
processes on the test run's PostgreSQL in which the server is stopped (SIGSTOP) for a second. The
answers scheduled in that second are still sent on time, their latency counts from the schedule
(so it holds the stop), a participant's next answer waits for the previous one, and every
scheduled answer is acknowledged and stored exactly once.

Skipped without DATABASE_URL=postgres://... (the server's processes read what the test commits).
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection

from perf.load import Answer, pids
from perf.open_loop import OpenLoad, local_only, run_open_loop, schedule
from perf.server import Server, free_port, server_env
from perf.verify import verify
from studies.models import Response
from tests.factories import small_study


def test_a_fixed_schedule_spaces_the_answers_evenly_at_the_rate():
    assert schedule(4, 6) == [0.0, 0.25, 0.5, 0.75, 1.0, 1.25]
    assert schedule(4, 0) == []


def test_poisson_arrivals_are_seeded_in_order_and_average_the_rate():
    times = schedule(200, 20_000, "poisson", seed=3)
    assert times == schedule(200, 20_000, "poisson", seed=3) != schedule(200, 20_000, "poisson", seed=4)
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    assert times[0] == 0.0 and min(gaps) >= 0
    # exponential gaps: mean and standard deviation both 1 / rate (5 ms); 20,000 of them within 3%
    assert statistics.mean(gaps) == pytest.approx(0.005, rel=0.03)
    assert statistics.stdev(gaps) == pytest.approx(0.005, rel=0.03)


def test_a_schedule_refuses_a_rate_or_arrivals_it_cannot_keep():
    with pytest.raises(ValueError, match="positive"):
        schedule(0, 3)
    with pytest.raises(ValueError, match="arrivals"):
        schedule(10, 3, "bursty")


def test_the_load_goes_to_127_0_0_1_only():
    local_only("http://127.0.0.1:8123")
    for elsewhere in ("http://example.org", "http://localhost:8123", "http://10.0.0.1"):
        with pytest.raises(ValueError, match="127.0.0.1 only"):
            local_only(elsewhere)


PEOPLE, ANSWERS_EACH, RATE = 20, 2, 20.0
STOPPED_S = 1.0


def _query(sql: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


async def _load_with_a_stop(server: Server, link: str, stop: list[float]) -> OpenLoad:
    """The open loop at RATE; at its first acknowledged answer the server's processes are stopped
    for STOPPED_S seconds (`stop` gets when, as `time.perf_counter()`: stopped, continued)."""
    first = asyncio.Event()

    def answered(_answer: Answer) -> None:
        first.set()

    async def stopper() -> None:
        await first.wait()
        os.killpg(server.process.pid, signal.SIGSTOP)
        stop.append(time.perf_counter())
        await asyncio.sleep(STOPPED_S)
        stop.append(time.perf_counter())
        os.killpg(server.process.pid, signal.SIGCONT)

    task = asyncio.create_task(stopper())
    try:
        return await run_open_loop(
            base_url=server.url,
            link=link,
            pids=pids(PEOPLE),
            path="htmx",
            rate=RATE,
            answers_each=ANSWERS_EACH,
            timeout=30,
            drain=30,
            on_answer=answered,
        )
    finally:
        await task


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_answers_leave_on_schedule_while_the_server_is_stopped_and_their_latency_counts_the_wait(
    shared_database_url, implicature, tmp_path: Path
):
    study = small_study(
        "open loop", unit_size=ANSWERS_EACH, units=2, per_unit=PEOPLE // 2, attention_checks=0, exclude_at=0
    )
    server = Server(
        server_env(database_url=shared_database_url, var_dir=tmp_path),
        port=free_port(),
        workers=2,
        log=tmp_path / "gunicorn.log",
    )
    stop: list[float] = []
    try:
        server.start()
        # a thread of its own: the browser tests' Playwright keeps an event loop running in this one
        with ThreadPoolExecutor(max_workers=1) as thread:
            load = thread.submit(asyncio.run, _load_with_a_stop(server, study.link, stop)).result()
    finally:
        os.killpg(server.process.pid, signal.SIGCONT)
        server.stop()

    # every scheduled answer sent once, acknowledged once and stored once: nothing lost or doubled
    slots = load.slots
    assert [slot.scheduled for slot in slots] == schedule(RATE, PEOPLE * ANSWERS_EACH)
    assert (len(load.acknowledged), load.cut, load.failed_requests) == (PEOPLE * ANSWERS_EACH, 0, 0), server.tail()
    check = verify(_query, link=study.link, outcomes=load.outcomes, exact=True)
    assert check.problems == [] and check.stored == PEOPLE * ANSWERS_EACH
    assert Response.objects.filter(participant__study=study).count() == PEOPLE * ANSWERS_EACH
    assert Counter(slot.pid for slot in slots) == dict.fromkeys(pids(PEOPLE), ANSWERS_EACH)
    assert Counter(answer.pid for outcome in load.outcomes for answer in outcome.acknowledged) == Counter(
        slot.pid for slot in slots
    )

    # nothing leaves early; each latency runs from the schedule, and a participant's next answer
    # leaves only once the previous one is answered
    assert all(slot.scheduled <= slot.sent <= slot.done for slot in slots)
    assert all(slot.latency_ms == pytest.approx((slot.done - slot.scheduled) * 1000) for slot in slots)
    for person in pids(PEOPLE):
        first, second = (slot for slot in slots if slot.pid == person)
        assert first.done <= second.sent

    # the stop: the answers scheduled in it left in it (the schedule, not the server, sets the
    # pace), none was answered before it ended, and each latency holds the rest of the stop
    stopped, resumed = (moment - load.started for moment in stop)
    scheduled_in_stop = [slot for slot in slots if stopped <= slot.scheduled < resumed - 0.2]
    sent_in_stop = [slot for slot in scheduled_in_stop if slot.sent < resumed]
    assert len(scheduled_in_stop) >= 10
    assert len(sent_in_stop) >= len(scheduled_in_stop) // 2, [(s.scheduled, s.sent) for s in scheduled_in_stop]
    assert all(slot.done >= resumed for slot in sent_in_stop)
    assert all(slot.latency_ms >= (resumed - slot.scheduled) * 1000 for slot in sent_in_stop)
    # the time a request took from its send is never more than its latency from the schedule
    request_ms = {(a.pid, a.position): ms for o in load.outcomes for a, ms in zip(o.acknowledged, o.answer_ms)}
    assert len(request_ms) == len(slots)
    assert load.latency_percentiles(100)[0] >= max(request_ms.values())
