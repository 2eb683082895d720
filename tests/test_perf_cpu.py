"""perf/cpu.py: the CPU of the server's process group, the database's processes and the client."""

from __future__ import annotations

import subprocess
import sys
import time
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
        child = subprocess.Popen([sys.executable, "-c", f"import os; os.setpgid(0, {server.pid})\n{BURN}"
                                  "import time; time.sleep(5)"])
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


def test_the_trivial_views_figure_is_the_mean_of_the_runs_before_and_after_the_load() -> None:
    from perf.load import Hammered
    from perf.participants import _mean, _server_ratio

    livez = _mean(Hammered(1000, 0, 1300.0, {"server": 0.8, "database": 0.0, "client": 0.4}),
                  Hammered(1500, 1, 2000.0, {"server": 0.6, "database": 0.0, "client": 0.3}))
    assert (livez.ok, livez.failed, livez.per_second) == (2500, 1, 1650.0)
    assert livez.cpu_ms == {"server": 0.7, "database": 0.0, "client": 0.35}
    assert _server_ratio({"server": 3.0, "database": 0.5, "client": 1.0}, livez.cpu_ms) == 0.2
    assert _server_ratio(None, livez.cpu_ms) is None


def test_a_process_that_ends_during_the_phase_still_counts_through_its_parent() -> None:
    # the "server" starts a worker that burns 0.3 s and exits (as a database backend whose connection
    # closes): its time moves to the parent once reaped, and the group's total never goes back
    script = ("import subprocess, sys, time\n"
              f"subprocess.run([sys.executable, '-c', {BURN!r}])\n"
              "time.sleep(30)\n")
    server = subprocess.Popen([sys.executable, "-c", script], process_group=0)
    try:
        meter = CpuMeter(server.pid)
        before = meter.snapshot()
        time.sleep(1.5)  # the worker has burnt its time and ended
        after = meter.snapshot()
    finally:
        server.kill()
        server.wait()
    assert before is not None and after is not None
    assert 0.2 <= after.server - before.server <= 0.6
