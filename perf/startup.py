"""How long `manage.py check` takes, and which heavy libraries it loads.

Every management command sets Django up and runs the system checks, which import the URLconf and
build the template engine: what they import is paid by each command (a worker started, a migration,
a cron job). This times `manage.py check` `--runs` times in fresh interpreters (wall time and CPU
time; the CPU time holds still on a shared machine where the wall time does not), prints the best and
the median, and lists which of the libraries below one more run imports (`python -X importtime`),
with the modules that cost most.

    python -m perf.startup [--runs 7] [--top 15] [--json]

Runs in an older checkout too (copy it into that checkout's perf/): it only starts `manage.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
#: the libraries whose import a command should not pay unless it uses them
WATCHED = (
    "scipy",
    "matplotlib",
    "pandas",
    "sklearn",
    "torch",
    "transformers",
    "drf_spectacular",
    "numpy",
    "requests",
)


def _check(extra: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    environment = os.environ | {"DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run(
        [sys.executable, *extra, "manage.py", "check"],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_runs(runs: int) -> tuple[list[float], list[float]]:
    """The wall and CPU seconds (user and system) of `runs` runs of `manage.py check`."""
    wall, cpu = [], []
    for _ in range(runs):
        cpu_before, began = _children_cpu(), time.perf_counter()
        _check()
        wall.append(time.perf_counter() - began)
        cpu.append(_children_cpu() - cpu_before)
    return wall, cpu


def imports() -> list[tuple[str, int, int]]:
    """(module, its own microseconds, with what it imports) for each module `manage.py check` imports."""
    found = []
    for line in _check(["-X", "importtime"]).stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        own, total, name = line.removeprefix("import time:").split("|")
        found.append((name.strip(), int(own), int(total)))
    return found


def measure(args: argparse.Namespace) -> dict[str, Any]:
    _check()  # a first run writes the bytecode caches; it is not counted
    wall, cpu = timed_runs(args.runs)
    modules = imports()
    names = {name for name, _own, _total in modules}
    return {
        "runs": args.runs,
        "wall_best": min(wall),
        "wall_median": statistics.median(wall),
        "cpu_best": min(cpu),
        "cpu_median": statistics.median(cpu),
        "imported": {library: library in names for library in WATCHED},
        "slowest": sorted(modules, key=lambda row: row[2], reverse=True)[: args.top],
    }


def table(report: dict[str, Any]) -> str:
    lines = [
        f"manage.py check, {report['runs']} runs: "
        f"wall best {report['wall_best']:.3f} s, median {report['wall_median']:.3f} s; "
        f"CPU best {report['cpu_best']:.3f} s, median {report['cpu_median']:.3f} s",
        "",
        "imported by manage.py check:",
        *(f"  {library:<16} {'yes' if loaded else 'no'}" for library, loaded in report["imported"].items()),
        "",
        "slowest imports (with what they import; -X importtime, which slows them):",
        *(f"  {total / 1000:8.1f} ms  {name}" for name, _own, total in report["slowest"]),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs (after one untimed)")
    parser.add_argument("--top", type=int, default=15, help="slowest imports listed")
    parser.add_argument("--json", action="store_true", help="also print the report as JSON on the last line")
    args = parser.parse_args(argv)
    report = measure(args)
    print(table(report))
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
