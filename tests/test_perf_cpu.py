"""perf/cpu.py: the CPU of the server's process group, the database's processes and the client."""

from __future__ import annotations

import asyncio
import select
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from perf.cpu import CpuMeter, Snapshot

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"


def test_a_process_groups_cpu_is_the_servers_and_this_processs_is_the_clients() -> None:
    # a "server" leading a process group of its own, as gunicorn does under perf/server.py
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], process_group=0)
    try:
        meter = CpuMeter(server.pid)
        before = meter.snapshot()
        # a child that joins that group burns 0.3 s; this process burns about 0.2 s of its own
        child = subprocess.Popen(
            [sys.executable, "-c", f"import os; os.setpgid(0, {server.pid})\n{BURN}import time; time.sleep(5)"]
        )
        end = time.process_time() + 0.2
        while time.process_time() < end:
            pass
        time.sleep(0.6)  # the child has burnt its 0.3 s and sleeps, still in the group
        after = meter.snapshot()
        child.kill()
        child.wait()
    finally:
        server.kill()
        server.wait()
    assert before is not None and after is not None
    assert 0.25 <= after.server - before.server <= 0.6
    assert 0.15 <= after.client - before.client <= 0.5


def test_per_request_divides_each_groups_seconds_into_milliseconds() -> None:
    before, after = Snapshot(1.0, 2.0, 3.0), Snapshot(1.5, 2.25, 3.1)
    assert CpuMeter.per_request(before, after, 250) == {"server": 2.0, "database": 1.0, "client": 0.4}
    assert CpuMeter.per_request(before, after, 0) is None
    assert CpuMeter.per_request(None, after, 10) is None


def test_without_a_server_group_nothing_is_measured() -> None:
    assert CpuMeter(None).snapshot() is None


def test_the_trivial_views_slices_make_one_figure_over_all_their_requests_and_time() -> None:
    from perf.load import Hammered
    from perf.participants import _combined, _server_ratio

    livez = _combined(
        [
            Hammered(1000, 0, 1000.0, {"server": 0.8, "database": 0.0, "client": 0.4}, 1.0),
            Hammered(3000, 1, 2000.0, {"server": 0.6, "database": 0.0, "client": 0.3}, 1.5),
        ]
    )
    assert (livez.ok, livez.failed, livez.per_second, livez.seconds) == (4000, 1, 1600.0, 2.5)
    assert livez.cpu_ms == {"server": 0.65, "database": 0.0, "client": 0.325}
    assert _server_ratio({"server": 3.0, "database": 0.25, "client": 1.0}, livez.cpu_ms) == 0.2
    assert _server_ratio(None, livez.cpu_ms) is None
    assert _combined([]).per_second == 0.0


def test_cpu_spent_in_the_slices_is_set_aside() -> None:
    from perf.cpu import Snapshot

    aside = Snapshot.add(Snapshot.zero(), Snapshot(1.0, 2.0, 3.0), Snapshot(1.5, 2.25, 3.5))
    aside = Snapshot.add(aside, Snapshot(4.0, 4.0, 4.0), Snapshot(4.5, 4.0, 4.25))
    assert aside == Snapshot(1.0, 0.25, 0.75)
    assert Snapshot.less(Snapshot(10.0, 10.0, 10.0), aside) == Snapshot(9.0, 9.75, 9.25)
    assert Snapshot.add(aside, None, Snapshot(1.0, 1.0, 1.0)) is None and Snapshot.less(None, aside) is None


def test_a_pause_lets_requests_in_flight_finish_and_holds_new_ones_until_released() -> None:
    from perf.load import Pause

    async def scenario() -> list[str]:
        pause, seen = Pause(), []

        async def request(name: str, took: float) -> None:
            await pause.enter()
            seen.append(f"{name} sent")
            await asyncio.sleep(took)
            seen.append(f"{name} done")
            pause.leave()

        first = asyncio.ensure_future(request("first", 0.2))
        await asyncio.sleep(0.05)
        holding = asyncio.ensure_future(pause.hold())
        await asyncio.sleep(0)
        second = asyncio.ensure_future(request("second", 0.0))
        await holding
        seen.append("held")
        await asyncio.sleep(0.1)
        pause.release()
        await asyncio.gather(first, second)
        return seen

    # a thread of its own: other tests (the browser's) may leave an event loop running in this one
    with ThreadPoolExecutor(1) as thread:
        seen = thread.submit(lambda: asyncio.run(scenario())).result()
    assert seen == ["first sent", "first done", "held", "second sent", "second done"]


def test_a_process_that_ends_during_the_phase_still_counts_through_its_parent() -> None:
    # the "server" starts a worker that burns 0.3 s and exits (as a database backend whose connection
    # closes): its time moves to the parent once reaped, and the group's total never goes back
    script = (
        f"import subprocess, sys, time\nsubprocess.run([sys.executable, '-c', {BURN!r}])\n"
        "print('reaped', flush=True)\ntime.sleep(30)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", script], process_group=0, stdout=subprocess.PIPE, text=True)
    try:
        meter = CpuMeter(server.pid)
        before = meter.snapshot()
        # until the worker has burnt its CPU time and been reaped, however busy the machine is
        ready, _, _ = select.select([server.stdout], [], [], 120)
        assert ready and server.stdout.readline().strip() == "reaped"
        after = meter.snapshot()
    finally:
        server.kill()
        server.wait()
    assert before is not None and after is not None
    assert 0.2 <= after.server - before.server <= 0.6


def test_only_the_part_of_a_slice_inside_the_answering_phase_is_taken_off_its_time() -> None:
    from perf.load import answering_seconds

    # answering from 10 s to 14 s; a slice inside it (11–12), one that began as the last answers
    # came in (13.9–15), one after the phase (14.2–15.2): 4 − 1 − 0.1 s
    assert answering_seconds(10.0, 14.0, [(11.0, 12.0), (13.9, 15.0), (14.2, 15.2)]) == pytest.approx(2.9)
    assert answering_seconds(10.0, 14.0, []) == 4.0


def test_a_phase_over_before_its_first_slice_still_gets_one_slice_of_the_trivial_view() -> None:
    from perf.load import Hammered, run_participants

    calls = []

    async def trivial() -> Hammered:
        calls.append(time.perf_counter())
        return Hammered(100, 0, 1000.0, None, 0.1)

    async def scenario():
        # no participants: the answering phase is over at once, long before a slice is due
        return await run_participants(
            base_url="http://127.0.0.1:9", link="x", pids=[], path="htmx", concurrency=5, trivial=trivial, every=30.0
        )

    with ThreadPoolExecutor(1) as thread:
        load = thread.submit(lambda: asyncio.run(scenario())).result()
    assert len(calls) == 1 and [s.per_second for s in load.trivial] == [1000.0]
