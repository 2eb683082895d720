"""Serving participants: simulated Prolific participants against the production server.

    python perf/participants.py [--participants 500] [--concurrency 50 [500 ...]] [--path htmx|nojs|both]
                               [--database-url postgres://...] [--sqlite] [--workers N] [--json]
    python perf/participants.py --rates 100 200 400 [--seconds 20] [--arrivals fixed|poisson] [--path ...]

For each database (PostgreSQL, a database this script creates and drops; with --sqlite also the
embedded SQLite default, in a temporary directory) it migrates, imports the implicature items
(`manage.py import_benchmark`, from $DATASETS_DIR/implicature when set), starts gunicorn as
scripts/serve does (production settings, DEBUG off, WEB_CONCURRENCY sync workers, plain HTTP on a
free local port) and, for each concurrency C:
- creates a study (`manage.py create_study`) whose units hold exactly the N
  participants, and walks N participants through it, C at a time over at most C connections
  (perf/load.py): all reach their first item, then all answer every item (the timed phase), then
  all load the done page;
- measures the trivial view, `/livez` (no database, no session), within the answering phase: every
  --slice-every seconds (2) the participants' new requests wait, those in flight finish, and C
  clients GET /livez alone for --livez-slice seconds (1), then the participants go on. Its
  requests/s over all its slices is the ceiling of this server on this machine, measured in the same
  minutes as the answers (the machine's speed drifts by a third within a minute: /livez measured
  before and after a load differed that much). Answers/s and the answers' CPU leave the slices out;
- checks the database: every acknowledged answer stored exactly once, no (participant, position)
  twice, no unit past its capacity, the same number completed in every unit.
Answer POST times are from sending the request to reading the whole response (on the no-JS path the
302 only; the step page it redirects to is a request of its own). Answers/s is acknowledged answers
over the answering phase, whose requests are the answer POSTs (and, without JavaScript, the step
pages they redirect to). Participants answer as fast as the server lets them (no think time), and
the client runs on the same machine as the server. With --json the last line is one JSON object.

With --rates R [R ...] it runs open loop instead (perf/open_loop.py): for each rate a study of its
own whose participants are brought to their first item (--concurrency's first C at a time, not
timed), then their answers are offered at R answers/s for --seconds (evenly spaced, or --arrivals
poisson), each sent at its scheduled time whether or not the earlier ones have been answered. Each
row: offered and achieved answers/s, latency percentiles from each answer's scheduled time (so the
queue a slow server builds shows), failed requests, the answers cut at the end (--drain seconds
after the last scheduled one), the database check; at the end, the highest rate whose answers were
all stored once with a p95 under --p95-target ms (250).

A second table gives the CPU behind those figures (perf/cpu.py, Linux): milliseconds per answer of
the server's processes, PostgreSQL's and the client's during the answering phase, the same per
/livez request, and the server ratio, /livez's server CPU over an answer's server + database CPU.
The client shares the cores, and a /livez request costs it about two thirds of what it costs the
server: the throughput ratio counts that share, the server ratio does not.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from perf.cpu import GROUPS  # noqa: E402
from perf.load import PATHS, Hammered, Load, hammer, pids, run_participants  # noqa: E402
from perf.open_loop import ARRIVALS  # noqa: E402
from perf.rates import main_rates  # noqa: E402
from perf.serving import each_database, served, show_log_if, study_link  # noqa: E402
from perf.verify import verify  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/parity_perf"


@dataclass
class Row:
    database: str
    path: str
    concurrency: int
    participants: int
    completed: int
    failed: int
    server_errors: int
    answers: int
    stored: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    answers_per_s: float
    livez_per_s: float
    ratio: float
    seconds: dict[str, float]
    verified: bool
    problems: list[str]
    #: the machine's 1-minute load average when the row was done (other work shares the machine)
    load_average: float = 0.0
    #: CPU milliseconds per answer in the answering phase: server (gunicorn), database, client
    cpu_ms: dict[str, float] | None = None
    #: CPU milliseconds per /livez request: server, client
    livez_cpu_ms: dict[str, float] | None = None
    #: /livez's server CPU over an answer's server and database CPU: the ratio without the client's share
    server_ratio: float | None = None
    #: /livez requests/s of each slice between slices of the answering phase (livez_per_s is all of them)
    livez_slices: list[float] = field(default_factory=list)


# -- one database ---------------------------------------------------------------------------------


def measure(make_database: Callable[[Path], Any], args: argparse.Namespace, report: Callable[[Row], None]) -> list[Row]:
    """Every row of one database; `make_database(var_dir)` gives it, with the server's data directory."""
    rows: list[Row] = []
    with served(make_database, workers=args.workers) as serving:
        try:
            url, meter = serving.server.url, serving.meter
            for concurrency in args.concurrency:
                trivial = partial(
                    hammer, f"{url}/livez", concurrency=concurrency, seconds=args.livez_slice, meter=meter
                )
                for path in args.paths:
                    units = args.units if args.participants % args.units == 0 else 1
                    link = study_link(
                        serving.env,
                        name=f"perf {path} C{concurrency}",
                        participants=args.participants,
                        units=units,
                        items=args.items,
                        attention_checks=args.attention_checks,
                    )
                    load = asyncio.run(
                        run_participants(
                            base_url=url,
                            link=link,
                            pids=pids(args.participants, prefix=concurrency),
                            path=path,
                            concurrency=concurrency,
                            timeout=args.timeout,
                            meter=meter,
                            trivial=trivial,
                            every=args.slice_every,
                        )
                    )
                    row = _row(serving.database.label, load, serving.database.query, link)
                    report(row)
                    rows.append(row)
        finally:
            show_log_if(serving, any(not row.verified or row.server_errors for row in rows))
    return rows


def _row(label: str, load: Load, query: Callable[[str], list[tuple]], link: str) -> Row:
    livez = _combined(load.trivial)
    check = verify(query, link=link, outcomes=load.outcomes, exact=True)
    p50, p95, p99 = load.answer_percentiles(50, 95, 99)
    errors = [outcome.error for outcome in load.outcomes if outcome.error]
    problems = check.problems + ([f"{len(errors)} participants stopped, e.g. {errors[0]}"] if errors else [])
    return Row(
        label,
        load.path,
        load.concurrency,
        len(load.outcomes),
        load.completed,
        len(load.outcomes) - load.completed,
        load.server_errors,
        check.acknowledged,
        check.stored,
        round(p50, 1),
        round(p95, 1),
        round(p99, 1),
        round(load.answers_per_second, 1),
        round(livez.per_second, 1),
        round(load.answers_per_second / livez.per_second, 3) if livez.per_second else 0.0,
        {phase: round(seconds, 2) for phase, seconds in load.phases.items()},
        not problems,
        problems,
        round(os.getloadavg()[0], 2),
        load.cpu_ms,
        livez.cpu_ms,
        _server_ratio(load.cpu_ms, livez.cpu_ms),
        [round(each.per_second, 1) for each in load.trivial],
    )


def _combined(slices: Sequence[Hammered]) -> Hammered:
    """The trivial view's slices as one measurement: every request over all their time, and the CPU
    per request over all their requests."""
    ok, seconds = sum(each.ok for each in slices), sum(each.seconds for each in slices)
    cpu = None
    if ok and all(each.cpu_ms for each in slices):
        cpu = {group: round(sum(each.cpu_ms[group] * each.ok for each in slices) / ok, 3) for group in GROUPS}
    return Hammered(ok, sum(each.failed for each in slices), ok / seconds if seconds else 0.0, cpu, seconds)


def _server_ratio(answer: dict[str, float] | None, livez: dict[str, float] | None) -> float | None:
    if not answer or not livez or not answer["server"] + answer["database"]:
        return None
    return round(livez["server"] / (answer["server"] + answer["database"]), 3)


# -- output -------------------------------------------------------------------------------------------

HEADER = (
    f"{'database':<10} {'path':<5} {'C':>4} {'done':>5} {'failed':>6} {'5xx':>4} {'answers':>7} "
    f"{'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'answers/s':>9} {'livez/s':>8} {'ratio':>6} {'load':>5}  check"
)


def line(row: Row) -> str:
    check = "ok" if row.verified else "FAILED: " + "; ".join(row.problems)
    return (
        f"{row.database:<10} {row.path:<5} {row.concurrency:>4} {row.completed:>5} {row.failed:>6} "
        f"{row.server_errors:>4} {row.answers:>7} {row.p50_ms:>7.1f} {row.p95_ms:>7.1f} {row.p99_ms:>7.1f} "
        f"{row.answers_per_s:>9.1f} {row.livez_per_s:>8.1f} {row.ratio:>6.3f} {row.load_average:>5.1f}  {check}"
    )


CPU_HEADER = (
    f"{'database':<10} {'path':<5} {'C':>4} {'server':>7} {'database':>8} {'client':>7} "
    f"{'livez server':>12} {'livez client':>12} {'server ratio':>12}  /livez req/s of its slices, lowest–highest"
)


def cpu_line(row: Row) -> str:
    if row.cpu_ms is None or row.livez_cpu_ms is None:
        return f"{row.database:<10} {row.path:<5} {row.concurrency:>4}  (no /proc: not measured)"
    return (
        f"{row.database:<10} {row.path:<5} {row.concurrency:>4} {row.cpu_ms['server']:>7.3f} "
        f"{row.cpu_ms['database']:>8.3f} {row.cpu_ms['client']:>7.3f} {row.livez_cpu_ms['server']:>12.3f} "
        f"{row.livez_cpu_ms['client']:>12.3f} {row.server_ratio:>12.3f}  "
        f"{_spread(row.livez_slices)}"
    )


def _spread(rates: Sequence[float]) -> str:
    return f"{min(rates):.0f}–{max(rates):.0f} over {len(rates)}" if rates else "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--participants", "-n", type=int, default=500)
    parser.add_argument("--concurrency", "-c", type=int, nargs="+", default=[50])
    parser.add_argument("--path", choices=[*PATHS, "both"], default="both")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("PERF_DATABASE_URL", DEFAULT_DATABASE_URL),
        help="PostgreSQL URL naming a database that does not exist yet: it is created and dropped "
        "(default $PERF_DATABASE_URL or %(default)s)",
    )
    parser.add_argument("--sqlite", action="store_true", help="then the same against the embedded SQLite default")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only (with --sqlite)")
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("WEB_CONCURRENCY") or 2 * (os.cpu_count() or 1)),
        help="gunicorn workers (default $WEB_CONCURRENCY, else 2 per core as scripts/serve)",
    )
    parser.add_argument("--items", type=int, default=3, help="items per participant, besides attention checks")
    parser.add_argument("--attention-checks", type=int, default=1)
    parser.add_argument("--units", type=int, default=10, help="units of the study (participants / units each)")
    parser.add_argument(
        "--livez-slice",
        type=float,
        default=1.0,
        help="seconds of each /livez slice between slices of the answering phase",
    )
    parser.add_argument(
        "--slice-every", type=float, default=2.0, help="seconds of the answering phase between two /livez slices"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds a request may take before the participant reloads (requests queue at high C)",
    )
    parser.add_argument(
        "--rates",
        type=float,
        nargs="+",
        help="open loop: answers offered at each of these rates (answers/s) for --seconds each, instead of "
        "participants answering as fast as they are answered (--concurrency then only brings them to their "
        "first item)",
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="open loop: seconds of answers at each rate")
    parser.add_argument(
        "--arrivals", choices=ARRIVALS, default="fixed", help="open loop: evenly spaced, or a Poisson process"
    )
    parser.add_argument("--seed", type=int, default=0, help="open loop: the Poisson arrivals' seed")
    parser.add_argument(
        "--drain",
        type=float,
        default=30.0,
        help="open loop: seconds the answers still out get after the last scheduled one; then they are cut",
    )
    parser.add_argument(
        "--connections", type=int, default=1000, help="open loop: connections at once at most (default %(default)s)"
    )
    parser.add_argument(
        "--p95-target", type=float, default=250.0, help="open loop: the p95 (ms) the highest rate reported keeps under"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.paths = list(PATHS) if args.path == "both" else [args.path]
    if args.rates:
        return main_rates(args)

    began = time.monotonic()
    load_before = os.getloadavg()[0]
    print(
        f"{args.participants} participants × {args.items + args.attention_checks} answers, "
        f"{args.workers} gunicorn workers, {os.cpu_count()} cores (load average {load_before:.2f} before)"
    )
    print(HEADER, flush=True)
    rows: list[Row] = each_database(args, measure, line)
    print(
        "\nCPU milliseconds per answer (answering phase) and per /livez request; server ratio: /livez's "
        "server CPU over an answer's server + database CPU"
    )
    print(CPU_HEADER)
    for row in rows:
        print(cpu_line(row))
    print(f"{time.monotonic() - began:.0f} s in all")
    if args.json:
        print(
            json.dumps(
                {
                    "settings": {key: value for key, value in vars(args).items() if key != "json"},
                    "cores": os.cpu_count(),
                    "load_average_before": load_before,
                    "rows": [asdict(row) for row in rows],
                }
            )
        )
    return 0 if all(row.verified and not row.server_errors for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
