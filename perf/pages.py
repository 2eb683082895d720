"""Researcher pages as the demo's researcher sees them: the first view of each, and later views.

    python perf/pages.py [--pages list form-ambibench ...] [--repeat 5] [--var-dir DIR] [--json]
    python perf/pages.py --profile form-ambibench [--later] [--top 25]

Sets up the demo (`manage.py migrate`, `manage.py setup_demo`; the published data from
$DATASETS_DIR when set) into a fresh SQLite database in a temporary PARITY_VAR_DIR, with the
production settings of perf/server.py (DEBUG off). Then, for each page, in fresh processes
(`manage.py shell`), signed in as the demo's researcher with Django's test client:

- `first s`: the page's first request in a process that has served nothing: what a process does
  once (imports, the template engine's first compile, caches filled) is in it;
- `served s`: the same after the server's start-up (`config.wsgi`, which imports every view and what
  the pages compute with), as gunicorn's workers serve it: what is left of a first view once the
  imports belong to start-up;
- `later s`: the median of --repeat requests after the first;
- the CPU seconds of the same (time.process_time: on a shared machine the wall time follows the
  load, the CPU time much less), the queries of a later view, and the size of the answer.

The machine's 1-minute load average is printed with the table (other work may share the machine).
`--profile PAGE` runs cProfile around that page's first view (`--later`: a later one, `--served`:
the first after start-up) and prints the costliest calls by cumulative time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from perf.server import manage, server_env  # noqa: E402

#: what the demo names: its researcher, and the study of the published annotators (the one with answers)
RESEARCHER = "researcher"


def _page_urls() -> dict[str, str]:
    """Each page's URL in the demo's database (inside Django)."""
    from django.urls import reverse

    from results.demo import BASELINE_STUDY
    from studies.models import Study

    baseline = Study.objects.get(name=BASELINE_STUDY).pk
    new = reverse("studies:new")
    return {
        "list": reverse("results:list"),
        "form-ambibench": f"{new}?benchmark=ambibench",
        "form-implicature": f"{new}?benchmark=implicature",
        # the form's power analysis, which the form asks for once shown (`?power=1`)
        "power-ambibench": f"{new}?benchmark=ambibench&power=1",
        "power-implicature": f"{new}?benchmark=implicature&power=1",
        "monitor": reverse("results:monitor", args=[baseline]),
        "bundle": reverse("replication:bundle", args=[baseline]),
    }


PAGES = ("list", "form-ambibench", "power-ambibench", "form-implicature", "power-implicature", "monitor", "bundle")


@dataclass
class Row:
    page: str
    first_s: float
    first_cpu_s: float
    served_s: float
    served_cpu_s: float
    later_s: float
    later_cpu_s: float
    queries: int
    kb: float


# -- inside Django (run by `manage.py shell -c`) -----------------------------------------------------


def _client() -> Any:
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=RESEARCHER))
    return client


def _get(client: Any, url: str) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one request, and its body (the request must succeed)."""
    began, cpu = time.perf_counter(), time.process_time()
    answer = client.get(url)
    body = answer.getvalue() if answer.streaming else answer.content
    seconds, cpu_seconds = time.perf_counter() - began, time.process_time() - cpu
    if answer.status_code != 200:
        raise SystemExit(f"GET {url}: {answer.status_code}")
    return seconds, cpu_seconds, body


def _start_up(served: bool) -> None:
    if served:
        # what gunicorn's master does once (--preload) before any worker serves a request
        import config.wsgi  # noqa: F401


def view_timings(*, page: str, repeat: int, served: bool) -> None:
    """One page's first view and `repeat` later ones in this process; prints one JSON line."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = _page_urls()[page]
    client = _client()
    _start_up(served)
    first, first_cpu, _ = _get(client, url)
    later, later_cpu = [], []
    for _ in range(repeat):
        seconds, cpu, body = _get(client, url)
        later.append(seconds)
        later_cpu.append(cpu)
    with CaptureQueriesContext(connection) as captured:
        _get(client, url)
    result = {
        "first_s": first,
        "first_cpu_s": first_cpu,
        "later_s": statistics.median(later),
        "later_cpu_s": statistics.median(later_cpu),
        "queries": len(captured),
        "kb": len(body) / 1024,
    }
    print(json.dumps(result))


def profile(*, page: str, later: bool, served: bool, top: int) -> None:
    """cProfile around one view of `page` (the first, or a later one); prints the costliest calls."""
    import cProfile
    import pstats

    url = _page_urls()[page]
    client = _client()
    _start_up(served)
    if later:
        _get(client, url)
    profiler = cProfile.Profile()
    profiler.enable()
    seconds, cpu, _ = _get(client, url)
    profiler.disable()
    print(f"GET {url}: {seconds:.3f} s ({cpu:.3f} s CPU, under the profiler)")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(top)


# -- outside: processes and the table --------------------------------------------------------------


def _shell(env: Mapping[str, str], code: str) -> dict[str, Any]:
    output = manage(env, "shell", "-c", code)
    return json.loads(output.strip().splitlines()[-1])


def demo_env(var_dir: Path) -> dict[str, str]:
    """The production settings on the embedded SQLite under `var_dir`, the demo set up in it unless
    an earlier run did (`--var-dir`)."""
    env = server_env(database_url=None, var_dir=var_dir)
    if not (var_dir / "demo-login.txt").exists():
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "setup_demo")
    return env


def measure(env: Mapping[str, str], page: str, repeat: int) -> Row:
    found = {}
    for served in (False, True):
        code = f"from perf.pages import view_timings; view_timings(page={page!r}, repeat={repeat}, served={served})"
        found[served] = _shell(env, code)
    cold, warm = found[False], found[True]
    return Row(
        page=page,
        first_s=round(cold["first_s"], 3),
        first_cpu_s=round(cold["first_cpu_s"], 3),
        served_s=round(warm["first_s"], 3),
        served_cpu_s=round(warm["first_cpu_s"], 3),
        # the later views of both processes
        later_s=round(statistics.median([cold["later_s"], warm["later_s"]]), 3),
        later_cpu_s=round(statistics.median([cold["later_cpu_s"], warm["later_cpu_s"]]), 3),
        queries=warm["queries"],
        kb=round(warm["kb"], 1),
    )


HEADER = (
    f"{'page':<17} {'first s':>8} {'served s':>8} {'later s':>8} {'first CPU':>9} {'served CPU':>10} "
    f"{'later CPU':>9} {'queries':>7} {'KB':>8}"
)


def line(row: Row) -> str:
    return (
        f"{row.page:<17} {row.first_s:>8.2f} {row.served_s:>8.2f} {row.later_s:>8.2f} {row.first_cpu_s:>9.2f} "
        f"{row.served_cpu_s:>10.2f} {row.later_cpu_s:>9.2f} {row.queries:>7} {row.kb:>8.1f}"
    )


def _commit() -> str:
    import subprocess

    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", nargs="+", choices=PAGES, default=list(PAGES))
    parser.add_argument("--repeat", type=int, default=5, help="later views per process (the median)")
    parser.add_argument("--profile", choices=PAGES, help="profile this page's view instead of the table")
    parser.add_argument("--later", action="store_true", help="with --profile: a later view, not the first")
    parser.add_argument("--served", action="store_true", help="with --profile: the views imported first")
    parser.add_argument("--top", type=int, default=30, help="with --profile: the calls printed")
    parser.add_argument("--json", action="store_true", help="then one JSON object on the last line")
    parser.add_argument(
        "--var-dir",
        type=Path,
        help="set the demo up in this folder and keep it (a later run reuses it as it is); default: a temporary one",
    )
    args = parser.parse_args(argv)
    say: Callable[[str], None] = lambda text: print(text, flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="parity-perf-pages-") as tmp:
        began = time.perf_counter()
        var_dir = args.var_dir or Path(tmp)
        var_dir.mkdir(parents=True, exist_ok=True)
        env = demo_env(var_dir)
        say(f"demo set up in {time.perf_counter() - began:.1f} s (commit {_commit()})")
        if args.profile:
            code = (
                f"from perf.pages import profile; "
                f"profile(page={args.profile!r}, later={args.later}, served={args.served}, top={args.top})"
            )
            say(manage(env, "shell", "-c", code))
            return 0
        say(HEADER)
        rows, loads = [], []
        for page in args.pages:
            row = measure(env, page, args.repeat)
            loads.append(os.getloadavg()[0])
            rows.append(row)
            say(line(row))
    load = round(max(loads), 2)
    say(f"load average (1 min, highest after a page): {load}")
    if args.json:
        print(json.dumps({"commit": _commit(), "load_average": load, "rows": [asdict(row) for row in rows]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
