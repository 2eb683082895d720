"""How long a researcher's small model run waits in the database task queue behind the demo's runs.

    python perf/model_queue.py [--model smollm2] [--items 45] [--after-shards 1] [--drain] [--timeout 1800]
                         [--var-dir DIR] [--json]

Sets up the demo as `scripts/run` does (`manage.py migrate`, `manage.py setup_demo`, which queues the
bundled `smollm2` once on each demo study: `results.demo.demo_model_runs`; the published data from
$DATASETS_DIR when set) in a fresh SQLite database in a temporary PARITY_VAR_DIR, with the
production settings of perf/server.py, and starts ONE task worker as `scripts/run` does
(`manage.py run_worker --queue-name '*'`). Once the worker has scored --after-shards of the demo's
shards (1, the default: the model is loaded and the demo under way, as a newcomer who signs in after
`scripts/run` finds it; 0: queued before the worker starts), the demo's researcher creates a draft
implicature study of one unit of --items items (`studies.setup.studies.study_create`) and queues a run
of --model on it as the runs page does (`modelspec_get_or_create`, `modelrun_start_many`). Then,
from the records (the run's and its shards' times), it prints:

- the run's place when queued (`modelruns.selectors.queue_positions`: "Nth in queue");
- seconds from queueing it until the worker started it (the wait), from then until it was done
  (its own scoring), and in all;
- the demo: its runs and queued items, the items left when the small run was queued, and those
  scored before it was done;
- the demo's seconds per item, measured on this worker (each shard's time is its finish minus the
  worker's previous finish; the worker's first shard, which loads the model, is left out), and the
  wait a first-in-first-out queue would have given the run: the demo's items left × that rate, an
  estimate derived from the same run. With --drain the worker goes on until the demo's runs are done
  too, and the time from queueing the small run until the demo's last shard is printed beside it.

The worker is stopped at the end, on a time-out and on Ctrl-C (its process group: SIGTERM, then
SIGKILL). The machine's 1-minute load average is printed (other work may share the machine). If the
model cannot be loaded here (the bundled model's package not installed), it says so and exits 1.
With --json the last line is one JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Mapping, Sequence  # noqa: E402
from dataclasses import asdict, dataclass  # noqa: E402
from typing import Any  # noqa: E402

from perf.server import manage, server_env  # noqa: E402

#: the bundled model scripts/run's demo queues (`results.demo.DEMO_MODEL`)
DEFAULT_MODEL = "smollm2"
#: the researcher's study (the demo's researcher owns it)
STUDY_NAME = "Queue wait"
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class Finish:
    """A shard the worker finished: its run, when (seconds since the epoch) and its items."""

    run_id: int
    at: float
    size: int


@dataclass(frozen=True)
class DemoRun:
    """One of the demo's runs: its study, items, those left when the small run was queued, and its
    seconds per item over the shards measured."""

    study: str
    items: int
    left: int
    seconds_per_item: float
    shards_measured: int


@dataclass(frozen=True)
class Figures:
    """What one measurement found (seconds relative to the small run's queueing unless named)."""

    model: str
    items: int
    shards: int
    position: int
    runs_ahead: int
    status: str
    wait_s: float
    scoring_s: float
    total_s: float
    demo_runs: list[DemoRun]
    demo_items: int
    demo_items_left: int
    demo_items_before_done: int
    demo_shards_before_done: int
    demo_seconds_per_item: float
    demo_shards_measured: int
    fifo_wait_s: float
    demo_drained_s: float | None
    load_average: float


def shard_seconds(finishes: Sequence[Finish], *, began: float) -> list[tuple[Finish, float]]:
    """Each shard one worker finished with the seconds it took: its finish minus the worker's
    previous finish (`began`, the worker's start, for the first). One worker scores one shard at
    a time, so the gap between finishes is the shard's claim, scoring and write."""
    timed, previous = [], began
    for finish in sorted(finishes, key=lambda finish: finish.at):
        timed.append((finish, finish.at - previous))
        previous = finish.at
    return timed


def seconds_per_item(finishes: Sequence[Finish], *, began: float, runs: set[int]) -> tuple[float, int]:
    """The seconds per item of the shards of `runs`, and how many shards that is. The worker's first
    shard is left out: it loads (and on a fresh cache converts) the model."""
    measured = [(f, seconds) for f, seconds in shard_seconds(finishes, began=began)[1:] if f.run_id in runs]
    items = sum(finish.size for finish, _ in measured)
    return (sum(seconds for _, seconds in measured) / items if items else float("nan")), len(measured)


def fifo_wait(items_left: Mapping[int, int], per_item: Mapping[int, float], fallback: float) -> float:
    """What a first-in-first-out queue would make a run wait: the items queued before it and not yet
    scored, each run's × its seconds per item (`fallback` for a run none of whose shards was measured)."""
    rates = {run: rate for run, rate in per_item.items() if not math.isnan(rate)}
    return sum(left * rates.get(run, fallback) for run, left in items_left.items())


def figures(found: Mapping[str, Any], *, model: str, worker_began: float, load_average: float) -> Figures:
    """The figures of one measurement from what `follow` read from the records."""
    small, queued = found["run"], found["queued_at"]
    demo = {run["id"]: run for run in found["demo_runs"]}
    finishes = [Finish(**finish) for finish in found["finishes"]]
    done_at = small["finished_at"]
    before_done = [f for f in finishes if f.run_id in demo and done_at is not None and f.at <= done_at]
    runs = []
    for run_id, run in demo.items():
        done = sum(f.size for f in finishes if f.run_id == run_id and f.at <= queued)
        rate, measured = seconds_per_item(finishes, began=worker_began, runs={run_id})
        runs.append(DemoRun(run["study"], run["items"], run["items"] - done, round(rate, 4), measured))
    per_item, measured = seconds_per_item(finishes, began=worker_began, runs=set(demo))
    fifo = fifo_wait(
        {run_id: row.left for run_id, row in zip(demo, runs)},
        {run_id: row.seconds_per_item for run_id, row in zip(demo, runs)},
        per_item,
    )
    drained = None
    if demo and all(run["finished_at"] is not None for run in demo.values()):
        drained = round(max(run["finished_at"] for run in demo.values()) - queued, 1)
    nan = float("nan")
    return Figures(
        model=model,
        items=small["items"],
        shards=small["shards"],
        position=found["position"],
        runs_ahead=found["position"] - 1,
        status=small["status"],
        wait_s=round((small["started_at"] or nan) - queued, 1),
        scoring_s=round((done_at or nan) - (small["started_at"] or nan), 1),
        total_s=round((done_at or nan) - queued, 1),
        demo_runs=runs,
        demo_items=sum(row.items for row in runs),
        demo_items_left=sum(row.left for row in runs),
        demo_items_before_done=sum(f.size for f in before_done),
        demo_shards_before_done=len(before_done),
        demo_seconds_per_item=round(per_item, 4),
        demo_shards_measured=measured,
        fifo_wait_s=round(fifo, 1),
        demo_drained_s=drained,
        load_average=load_average,
    )


# -- inside Django (run by `manage.py shell -c` with the demo's settings) ---------------------------


def _epoch(moment: Any) -> float | None:
    return None if moment is None else moment.timestamp()


def _demo_items_done(demo_ids: list[int]) -> int:
    from django.db.models import Sum

    from modelruns.models import ModelShard

    done = ModelShard.objects.filter(run_id__in=demo_ids, status=ModelShard.Status.DONE)
    return done.aggregate(items=Sum("size"))["items"] or 0


def model_problem(model: str) -> None:
    """Prints why `model` cannot be loaded on this machine, or nothing (one JSON line)."""
    from modelruns.sources import model_source_problem
    from parity.engine.loading import ALIASES, packaged_path

    problem = model_source_problem(model)
    if problem is None and model in ALIASES and packaged_path(ALIASES[model]) is None:
        alias = ALIASES[model]
        problem = f"the bundled model {model!r} is not installed (Python package {alias.package}, file {alias.path})"
    print(json.dumps({"problem": problem}))


def queue_small(*, model: str, items: int, after_shards: int, timeout: float) -> None:
    """Waits until the worker has finished `after_shards` of the demo's shards, then creates the
    researcher's study of `items` items and queues `model`'s run on it as the runs page does;
    prints the run, when it was queued, its place and the demo's items done then (one JSON line)."""
    from django.contrib.auth import get_user_model

    from modelruns import selectors, services
    from modelruns.models import ModelRun, ModelShard
    from results.demo import DEMO_USERNAME
    from studies.models import Study
    from studies.setup.studies import study_create

    demo_ids = list(ModelRun.objects.values_list("pk", flat=True))
    deadline = time.monotonic() + timeout
    while ModelShard.objects.filter(run_id__in=demo_ids, status=ModelShard.Status.DONE).count() < after_shards:
        if time.monotonic() > deadline:
            raise SystemExit(f"the worker did not finish {after_shards} of the demo's shards in {timeout:.0f} s")
        time.sleep(POLL_SECONDS)
    researcher = get_user_model().objects.get(username=DEMO_USERNAME)
    design = {"units": 1, "unit_size": items, "per_unit": 5, "attention_checks": 0}
    study = study_create(
        name=STUDY_NAME, benchmark="implicature", design=design, status=Study.Status.DRAFT, owner=researcher
    )
    spec = services.modelspec_get_or_create(model=model, created_by=researcher)
    (started,) = services.modelrun_start_many(study=study, spec=spec, actor=researcher)
    queued_at = time.time()
    positions = selectors.queue_positions()
    print(
        json.dumps(
            {
                "run_id": started.run.pk,
                "queued_at": queued_at,
                "position": positions.get(started.run.pk, 0),
                "demo_items_done_when_queued": _demo_items_done(demo_ids),
            }
        )
    )


def follow(*, run_id: int, timeout: float, drain: bool) -> None:
    """Polls the records until the run is over (with `drain`, the demo's runs too) or `timeout`
    seconds pass; prints what the figures are computed from (one JSON line)."""
    from modelruns.models import ModelRun, ModelShard

    ended = (ModelRun.Status.DONE, ModelRun.Status.FAILED, ModelRun.Status.CANCELLED)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        watched = ModelRun.objects.all() if drain else ModelRun.objects.filter(pk=run_id)
        if not watched.exclude(status__in=ended).exists():
            break
        time.sleep(POLL_SECONDS)
    run = ModelRun.objects.get(pk=run_id)
    demo = ModelRun.objects.exclude(pk=run_id).select_related("study").order_by("created_at", "pk")
    finishes = ModelShard.objects.filter(status=ModelShard.Status.DONE).order_by("finished_at", "pk")
    print(
        json.dumps(
            {
                "run": {
                    "items": run.progress_total,
                    "shards": run.shards.count(),
                    "status": run.status,
                    "started_at": _epoch(run.started_at),
                    "finished_at": _epoch(run.finished_at) if run.status == ModelRun.Status.DONE else None,
                },
                "demo_runs": [
                    {
                        "id": other.pk,
                        "study": other.study.name,
                        "items": other.progress_total,
                        "status": other.status,
                        "finished_at": _epoch(other.finished_at),
                    }
                    for other in demo
                ],
                "finishes": [
                    {"run_id": shard.run_id, "at": _epoch(shard.finished_at), "size": shard.size} for shard in finishes
                ],
            }
        )
    )


# -- outside: processes and the table --------------------------------------------------------------


def _shell(env: Mapping[str, str], code: str, timeout: float) -> dict[str, Any]:
    output = manage(env, "shell", "-c", code, timeout=timeout)
    return json.loads(output.strip().splitlines()[-1])


class Worker:
    """`manage.py run_worker --queue-name '*'`, as scripts/run starts it, in a process group of its own."""

    def __init__(self, env: Mapping[str, str], log: Path) -> None:
        self.env, self.log = dict(env), log
        self.process: subprocess.Popen | None = None
        self.began = 0.0

    def start(self) -> Worker:
        self.began = time.time()
        with open(self.log, "a") as out:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "run_worker", "--queue-name", "*"],
                cwd=REPO,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def stop(self, grace: float = 15) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text()[-chars:] if self.log.exists() else ""


def measure(env: Mapping[str, str], var_dir: Path, args: argparse.Namespace, say: Callable[[str], None]) -> Figures:
    worker = Worker(env, var_dir / "worker.log")
    deadline = time.monotonic() + args.timeout

    def left() -> float:
        return max(1.0, deadline - time.monotonic())

    try:
        if args.after_shards > 0:
            worker.start()
        code = (
            f"from perf.model_queue import queue_small; "
            f"queue_small(model={args.model!r}, items={args.items}, after_shards={args.after_shards}, timeout={left()})"
        )
        queued = _shell(env, code, timeout=left() + 60)
        if args.after_shards == 0:
            worker.start()
        after = time.time() - worker.began
        say(f"queued run {queued['run_id']}: {queued['position']} in queue, {after:.1f} s after the worker's start")
        call = f"follow(run_id={queued['run_id']}, timeout={left()}, drain={args.drain})"
        code = f"from perf.model_queue import follow; {call}"
        found = _shell(env, code, timeout=left() + 60) | queued
    finally:
        worker.stop()
    result = figures(found, model=args.model, worker_began=worker.began, load_average=round(os.getloadavg()[0], 2))
    if result.status != "done":
        say(f"the run is {result.status}, not done, after {args.timeout:.0f} s; the worker's log ends:")
        say(worker.tail())
    return result


def table(result: Figures) -> list[str]:
    def seconds(value: float | None) -> str:
        return "-" if value is None or value != value else f"{value:.1f} s"

    rows = [
        ("run", f"{result.model} on {result.items} items ({result.shards} shard{'s' * (result.shards != 1)})"),
        ("place when queued", f"{result.position} in queue ({result.runs_ahead} run(s) queued before it)"),
        ("queued → started", seconds(result.wait_s)),
        ("started → done", seconds(result.scoring_s)),
        ("queued → done", seconds(result.total_s)),
        ("demo", f"{len(result.demo_runs)} runs, {result.demo_items} items queued"),
        ("demo items left when queued", f"{result.demo_items_left}"),
        (
            "demo scored before it was done",
            f"{result.demo_items_before_done} items in {result.demo_shards_before_done} shards",
        ),
        (
            "demo seconds per item",
            f"{result.demo_seconds_per_item:.4f} s ({result.demo_shards_measured} shards after the worker's first)",
        ),
        ("first-in-first-out wait (estimate)", f"{seconds(result.fifo_wait_s)} (items left × seconds per item)"),
        ("queued → demo's last shard", seconds(result.demo_drained_s)),
        *(
            (
                f"  {row.study[:32]}",
                f"{row.items} items, {row.left} left when queued, {row.seconds_per_item:.4f} s per item "
                f"({row.shards_measured} shards)",
            )
            for row in result.demo_runs
        ),
        ("load average (1 min)", f"{result.load_average}"),
    ]
    return [f"{name:<34} {value}" for name, value in rows]


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def parser() -> argparse.ArgumentParser:
    parsing = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parsing.add_argument(
        "--model", default=DEFAULT_MODEL, help="the researcher's model (default %(default)s, the demo's bundled model)"
    )
    parsing.add_argument("--items", type=int, default=45, help="items of the researcher's study (default %(default)s)")
    parsing.add_argument(
        "--after-shards",
        type=int,
        default=1,
        help="queue the run once the worker has finished this many of the demo's shards "
        "(default %(default)s; 0: before the worker starts)",
    )
    parsing.add_argument("--drain", action="store_true", help="go on until the demo's runs are done too")
    parsing.add_argument(
        "--timeout", type=float, default=1800, help="seconds for the whole measurement (default %(default)s)"
    )
    parsing.add_argument("--json", action="store_true", help="then one JSON object on the last line")
    parsing.add_argument(
        "--var-dir", type=Path, help="set the demo up in this new folder and keep it; default: a temporary one"
    )
    return parsing


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.items < 1 or args.after_shards < 0 or args.timeout <= 0:
        parser().error("--items must be 1 or more, --after-shards 0 or more, --timeout more than 0")
    say: Callable[[str], None] = lambda text: print(text, flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="parity-perf-queue-") as tmp:
        var_dir = args.var_dir or Path(tmp)
        if (var_dir / "parity.sqlite3").exists():
            parser().error(f"--var-dir {var_dir} holds a database already: give a new folder")
        var_dir.mkdir(parents=True, exist_ok=True)
        env = server_env(database_url=None, var_dir=var_dir)
        check = f"from perf.model_queue import model_problem; model_problem({args.model!r})"
        problem = _shell(env, check, 120)["problem"]
        if problem:
            print(f"cannot measure: {problem}", file=sys.stderr)
            return 1
        began = time.perf_counter()
        manage(env, "migrate", "--noinput", "-v", "0")
        for text in manage(env, "setup_demo").splitlines():
            if text.startswith("Model run"):
                say(text)
        say(f"demo set up in {time.perf_counter() - began:.1f} s (commit {_commit()})")
        try:
            result = measure(env, var_dir, args, say)
        except KeyboardInterrupt:
            say("interrupted: the worker is stopped")
            return 130
        except subprocess.TimeoutExpired:
            say(f"no result in --timeout {args.timeout:.0f} s: the worker is stopped")
            return 1
        for text in table(result):
            say(text)
    if args.json:
        print(json.dumps({"commit": _commit(), **asdict(result)}))
    return 0 if result.status == "done" else 1


if __name__ == "__main__":
    raise SystemExit(main())
