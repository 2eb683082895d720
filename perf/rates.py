"""The open-loop mode of `perf/participants.py` (`--rates`): a row per path and rate, answers offered
on a schedule (perf/open_loop.py) to the production server on a database of its own, and the
highest rate whose p95 stays under a target."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from perf.load import PATHS, pids
from perf.open_loop import OpenLoad, run_open_loop
from perf.serving import each_database, served, show_log_if, study_link
from perf.verify import verify


@dataclass
class RateRow:
    """One rate of the open-loop mode (--rates); latencies from each answer's scheduled time."""

    database: str
    path: str
    arrivals: str
    rate: float
    offered_per_s: float
    achieved_per_s: float
    scheduled: int
    acknowledged: int
    stored: int
    failed_requests: int
    server_errors: int
    cut: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    #: the client's own lateness in sending (counted in the latencies): p95 and max
    send_lag_p95_ms: float
    send_lag_max_ms: float
    seconds: float
    entering_s: float
    #: the machine's 1-minute load average before this rate's study was made (other work shares it)
    load_before: float
    verified: bool
    problems: list[str]
    cpu_ms: dict[str, float] | None = None


def measure_rates(
    make_database: Callable[[Path], Any], args: argparse.Namespace, report: Callable[[RateRow], None]
) -> list[RateRow]:
    """For each path and rate a study of its own, its participants brought to their first item, then
    their answers offered at the rate for --seconds (perf/open_loop.py)."""
    rows: list[RateRow] = []
    answers_each = args.items + args.attention_checks
    with served(make_database, workers=args.workers) as serving:
        try:
            for path in args.paths:
                for number, rate in enumerate(args.rates):
                    load_before = os.getloadavg()[0]
                    # enough participants for rate × seconds answers, as many in every unit
                    people = -(-math.ceil(rate * args.seconds) // answers_each)
                    people = -(-people // args.units) * args.units
                    link = study_link(
                        serving.env,
                        name=f"perf open {path} {rate:g}/s",
                        participants=people,
                        units=args.units,
                        items=args.items,
                        attention_checks=args.attention_checks,
                    )
                    load = asyncio.run(
                        run_open_loop(
                            base_url=serving.server.url,
                            link=link,
                            pids=pids(people, prefix=0x10000 * (1 + PATHS.index(path)) + number),
                            path=path,
                            rate=rate,
                            answers_each=answers_each,
                            arrivals=args.arrivals,
                            seed=args.seed + number,
                            enter_concurrency=args.concurrency[0],
                            connections=args.connections,
                            timeout=args.timeout,
                            drain=args.drain,
                            meter=serving.meter,
                        )
                    )
                    row = _rate_row(serving.database.label, load, serving.database.query, link, load_before)
                    report(row)
                    rows.append(row)
        finally:
            show_log_if(serving, any(not row.verified or row.server_errors for row in rows))
    return rows


def _rate_row(
    label: str, load: OpenLoad, query: Callable[[str], list[tuple]], link: str, load_before: float
) -> RateRow:
    check = verify(query, link=link, outcomes=load.outcomes, exact=False)
    p50, p95, p99, most = load.latency_percentiles(50, 95, 99, 100)
    lag95, lag_max = load.send_lag_percentiles(95, 100)
    acknowledged = len(load.acknowledged)
    errors = [outcome.error for outcome in load.outcomes if outcome.error]
    problems = check.problems + ([f"{len(errors)} participants stopped, e.g. {errors[0]}"] if errors else [])
    if acknowledged != check.acknowledged:
        problems.append(f"{acknowledged} answers acknowledged on the schedule, {check.acknowledged} by participants")
    return RateRow(
        label,
        load.path,
        load.arrivals,
        load.rate,
        round(load.offered_per_second, 1),
        round(load.achieved_per_second, 1),
        len(load.slots),
        acknowledged,
        check.stored,
        load.failed_requests,
        load.server_errors,
        load.cut,
        round(p50, 1),
        round(p95, 1),
        round(p99, 1),
        round(most, 1),
        round(lag95, 1),
        round(lag_max, 1),
        round(load.seconds, 2),
        round(load.entering_s, 2),
        round(load_before, 2),
        not problems,
        problems,
        load.cpu_ms,
    )


def highest_rate(rows: Sequence[RateRow], p95_ms: float) -> dict[str, float | None]:
    """Per path, the highest rate whose every answer was acknowledged and stored once with a p95
    under `p95_ms` (None where no rate was)."""
    best: dict[str, float | None] = {}
    for row in rows:
        fine = row.verified and row.acknowledged == row.scheduled and row.p95_ms < p95_ms
        best.setdefault(row.path, None)
        if fine and (best[row.path] is None or row.rate > best[row.path]):
            best[row.path] = row.rate
    return best


RATE_HEADER = (
    f"{'database':<10} {'path':<5} {'offered/s':>9} {'achieved/s':>10} {'answers':>7} {'acked':>6} {'stored':>6} "
    f"{'errors':>6} {'5xx':>4} {'cut':>4} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'max ms':>7} "
    f"{'lag p95':>7} {'load':>5} {'srv ms':>6} {'db ms':>6} {'cli ms':>6}  check"
)


def rate_line(row: RateRow) -> str:
    check = "ok" if row.verified else "FAILED: " + "; ".join(row.problems)
    cpu = row.cpu_ms or {"server": math.nan, "database": math.nan, "client": math.nan}
    return (
        f"{row.database:<10} {row.path:<5} {row.offered_per_s:>9.1f} {row.achieved_per_s:>10.1f} "
        f"{row.scheduled:>7} {row.acknowledged:>6} {row.stored:>6} {row.failed_requests:>6} {row.server_errors:>4} "
        f"{row.cut:>4} {row.p50_ms:>7.1f} {row.p95_ms:>7.1f} {row.p99_ms:>7.1f} {row.max_ms:>7.1f} "
        f"{row.send_lag_p95_ms:>7.1f} {row.load_before:>5.2f} {cpu['server']:>6.2f} {cpu['database']:>6.2f} "
        f"{cpu['client']:>6.2f}  {check}"
    )


def main_rates(args: argparse.Namespace) -> int:
    """The open-loop mode (--rates): a row per path and rate, then the highest rate under the p95 target."""
    began = time.monotonic()
    print(
        f"open loop, {args.arrivals} arrivals, {args.seconds:g} s per rate, {args.items + args.attention_checks} "
        f"answers per participant, {args.workers} gunicorn workers, {os.cpu_count()} cores (load average "
        f"{os.getloadavg()[0]:.2f} before); latencies from each answer's scheduled time"
    )
    print(RATE_HEADER, flush=True)
    rows: list[RateRow] = each_database(args, measure_rates, rate_line)
    print(
        "errors: failed requests (retried); cut: answers out when the drain ran out; lag p95: the client's own "
        "lateness in sending (in the latencies); load: the 1-minute load average before the rate; srv/db/cli ms: "
        "CPU milliseconds per answer of gunicorn, PostgreSQL and this client"
    )
    best = highest_rate(rows, args.p95_target)
    for path, rate in best.items():
        found = f"{rate:g} answers/s" if rate is not None else "none of the rates"
        print(f"highest rate with every answer stored once and p95 < {args.p95_target:g} ms, {path}: {found}")
    print(f"{time.monotonic() - began:.0f} s in all")
    if args.json:
        print(
            json.dumps(
                {
                    "settings": {key: value for key, value in vars(args).items() if key != "json"},
                    "cores": os.cpu_count(),
                    "rows": [asdict(row) for row in rows],
                    "highest_rate": best,
                }
            )
        )
    return 0 if all(row.verified and not row.server_errors for row in rows) else 1
