"""CPU time spent by the web server, the database and the load client, from Linux's /proc.

Throughput on a small shared machine drifts from run to run, and the load client runs on the same
cores as the server, so answers/s alone mixes the server's cost with the client's. The CPU each
group of processes spent during a phase, divided by the requests of that phase, is the cost of one
request, and it holds still where throughput does not.

The groups: `server`, every process in the web server's process group (gunicorn's master and
workers); `database`, every process named `postgres` on this machine (the server's backends and
its background processes: run nothing else against it while measuring); `client`, this process.
Each process counts with its exited children, so a process that ends during a phase is not lost.
Elsewhere than Linux every figure is None.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

_PROC = Path("/proc")
GROUPS = ("server", "database", "client")


def _processes() -> list[tuple[str, int, float]]:
    """(command name, process group, CPU seconds) of every process that can be read."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = []
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:  # gone in between
            continue
        name, fields = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()
        # after the name: state, ppid, pgrp, ... utime (14th field of the file), stime, and the same
        # of its children that have exited: a process that ends (a database connection closed, a
        # worker replaced) hands its time to its parent (the postmaster, gunicorn's master), so the
        # group's total goes on counting it
        found.append((name, int(fields[2]), sum(int(value) for value in fields[11:15]) / ticks))
    return found


@dataclass(frozen=True)
class Snapshot:
    server: float
    database: float
    client: float

    @staticmethod
    def zero() -> Snapshot:
        return Snapshot(0.0, 0.0, 0.0)

    @staticmethod
    def add(total: Snapshot | None, first: Snapshot | None, last: Snapshot | None) -> Snapshot | None:
        """`total` plus what each group spent from `first` to `last` (None where any is None)."""
        if total is None or first is None or last is None:
            return None
        return Snapshot(*(getattr(total, group) + getattr(last, group) - getattr(first, group) for group in GROUPS))

    @staticmethod
    def less(snapshot: Snapshot | None, spent: Snapshot | None) -> Snapshot | None:
        """`snapshot` as if what `spent` counts had not been spent (None where either is None)."""
        if snapshot is None or spent is None:
            return None
        return Snapshot(*(getattr(snapshot, group) - getattr(spent, group) for group in GROUPS))


class CpuMeter:
    """Snapshots of the CPU seconds of the server (process group `server_group`), the database and
    this process; `per_request(before, after, count)` is each group's milliseconds per request."""

    def __init__(self, server_group: int | None) -> None:
        self.server_group = server_group
        self.available = _PROC.is_dir() and server_group is not None

    def snapshot(self) -> Snapshot | None:
        if not self.available:
            return None
        server = database = 0.0
        for name, group, seconds in _processes():
            if group == self.server_group:
                server += seconds
            elif name == "postgres":
                database += seconds
        times = os.times()
        return Snapshot(server, database, times.user + times.system)

    @staticmethod
    def per_request(before: Snapshot | None, after: Snapshot | None, count: int) -> dict[str, float] | None:
        if before is None or after is None or not count:
            return None
        return {group: round((getattr(after, group) - getattr(before, group)) * 1000 / count, 3) for group in GROUPS}
