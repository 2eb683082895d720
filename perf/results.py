"""Results of a large study: `study_results --json` cold, and the results page warm.

    python perf/results.py [--answers 10000 100000 1000000] [--database-url postgres://...]
                           [--sqlite] [--no-postgres] [--repeat 3] [--page-repeat 5] [--timeout 900] [--json]
                           [--units 4] [--unit-size 150] [--runs 3] [--profile DIR] [--no-compile]

The study of the issue "600 items × 170 people + 10 runs" is
`--answers 102000 --units 1 --unit-size 600 --runs 10`.

For each database (PostgreSQL, a database this script creates and drops; with --sqlite also the
embedded SQLite default, in a temporary directory) it migrates and imports the implicature items
(`manage.py import_benchmark`, from $DATASETS_DIR/implicature when set), then for each size N:

- builds a closed implicature study of the published design (4 units of 150 test items) with
  round(N / 600) people per unit, every one complete, answering every item of their unit (yes or no,
  right with a chance drawn per item and per person, seeded), one of them excluded per unit, and 3
  finished model runs answering all 600 items: 100,000 answers are 167 people per unit (the
  reporter's 105,000 are `--answers 105000`, 175 per unit). The rows are written in bulk (the
  answer path is perf/participants.py's business);
- times, in one process, reading the study, computing all its results from what was read, and of
  those the joint IRT placement, paired tests and human band (`results.computing.comparison`);
- times `manage.py study_results NAME --json` in a fresh process, --repeat times (the median; peak
  memory is the process's maximum resident set), beside the same process doing nothing but start
  (`study_results --help`: Django, the command and its imports), the baseline of the run;
- times the results page and the results API as a signed-in researcher (Django's test client in a
  fresh process, the production settings of perf/server.py): the first request (cold: the results
  are computed, or queued by the study's last write and the page says so), the time until the page
  shows the results (the queued task run by a worker step in that process), then --page-repeat
  requests of each (warm: the median).

Growth is each row's command seconds over the smallest size's in the same run and database (answers
grow by the ratio beside it). The machine's 1-minute load average is printed with every row (other
work shares the machine). With --json the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from perf.server import manage  # noqa: E402
from perf.serving import each_database  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/parity_perf_results"
UNITS, UNIT_SIZE, RUNS = 4, 150, 3
#: what a page shows while its results are computed in the task queue
COMPUTING_MARK = 'id="results-computing"'


@dataclass
class Row:
    database: str
    answers: int
    people: int
    startup_s: float
    command_s: float
    command_runs: list[float]
    #: CPU seconds (user and system) of the same processes, medians: on a shared machine the wall
    #: time follows the load, the CPU time much less
    startup_cpu_s: float
    command_cpu_s: float
    peak_mb: float
    page_cold_s: float
    page_ready_s: float
    page_warm_ms: float
    api_warm_ms: float
    queued: bool
    load_average: float
    #: in one process: reading the study, computing all its results, and of those the IRT placement,
    #: the paired tests and the human band (`results.computing.comparison`)
    read_s: float = math.nan
    compute_s: float = math.nan
    among_s: float = math.nan
    growth: float = 1.0
    answers_growth: float = 1.0
    problem: str = ""
    #: building the study (its rows written in bulk), in a process of its own
    build_s: float = math.nan


# -- inside Django (run by `manage.py shell -c` with the database's settings) ----------------------


def build(
    *, name: str, per_unit: int, seed: int = 0, units: int = UNITS, unit_size: int = UNIT_SIZE, runs: int = RUNS
) -> None:
    """The study of `per_unit` people in each of `units` units of `unit_size` items, and `runs` model
    runs; prints its answers and people as one JSON line."""
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from annotation.models import Item
    from modelruns.models import ModelResponse, ModelRun, ModelSpec
    from modelruns.services import setting_key
    from studies.models import Participant, Study, UnitItem
    from studies.setup.studies import study_create

    rng = np.random.default_rng(seed)
    owner, _ = get_user_model().objects.get_or_create(username="perf", defaults={"is_staff": True})
    design = {"units": units, "unit_size": unit_size, "per_unit": per_unit, "attention_checks": 0, "exclude_at": 0}
    study = study_create(name=name, benchmark="implicature", design=design, status=Study.Status.CLOSED, owner=owner)
    now = timezone.now()
    flip = {"yes": "no", "no": "yes"}
    people = answers = 0
    for unit in study.units.order_by("position"):
        links = list(UnitItem.objects.filter(unit=unit).order_by("order").select_related("item"))
        items = [link.item for link in links]
        easy = rng.uniform(0.55, 0.98, size=len(items))
        with transaction.atomic():
            participants = Participant.objects.bulk_create(
                Participant(
                    study=study,
                    unit=unit,
                    prolific_pid=f"perf{unit.position}x{number:05d}",
                    pseudonym=f"A{people + number + 1}",
                    status=Participant.Status.COMPLETED,
                    step=Participant.Step.DONE,
                    sequence=[item.pk for item in items],
                    answered=len(items),
                    excluded=number == 0,
                    exclusion_reason="perf: one excluded per unit" if number == 0 else "",
                    completed_at=now,
                )
                for number in range(per_unit)
            )
            people += per_unit
            rows = []
            for participant in participants:
                right = rng.random(len(items)) < np.clip(easy + rng.normal(0, 0.05), 0, 1)
                durations = rng.integers(2_000, 20_000, size=len(items)).tolist()  # the draws one at a time drew
                rows.extend(
                    (participant.pk, item.pk, position, item.gold if ok else flip[item.gold], bool(ok), ms)
                    for position, (item, ok, ms) in enumerate(zip(items, right, durations), start=1)
                )
            write_answers(rows, at=now)
            answers += len(rows)
    spec, _ = ModelSpec.objects.get_or_create(name="perf-lm", defaults={"model": "local/perf-lm"})
    every = list(Item.objects.filter(unititem__unit__study=study).distinct())
    for number in range(runs):
        # six prompt templates, then the same with one shot, ...: a distinct setting per run
        setting = {"variant": "ranking", "k": number // 6, "seed": 0, "template": 1 + number % 6}
        run = ModelRun.objects.create(
            study=study,
            spec=spec,
            setting=setting,
            setting_key=setting_key(setting),
            status=ModelRun.Status.DONE,
            progress_done=len(every),
            progress_total=len(every),
            finished_at=now,
        )
        right = rng.random(len(every)) < 0.75
        ModelResponse.objects.bulk_create(
            ModelResponse(
                run=run,
                item=item,
                raw_answer=f" {item.gold if ok else flip[item.gold]}",
                answer=item.gold if ok else flip[item.gold],
                valid=True,
                correct=bool(ok),
                scores={},
            )
            for item, ok in zip(every, right)
        )
    print(json.dumps({"answers": answers, "people": people, "study_id": study.pk}))


def write_answers(rows: Sequence[tuple[int, int, int, str, bool, int]], *, at: datetime) -> None:
    """Answers given as (participant id, item id, position, answer, correct, duration ms), each valid,
    shown and answered `at`, every other field its default. On PostgreSQL through COPY (psycopg's
    `Cursor.copy`): a million answers through `bulk_create` spend most of their time building model
    instances and preparing each of their values (about 0.7 ms of CPU per answer against 0.1 ms),
    and `COPY` is PostgreSQL's bulk load. Elsewhere `bulk_create`."""
    from django.db import connection, models
    from psycopg import sql

    from studies.models import Response

    if connection.vendor != "postgresql":
        Response.objects.bulk_create(
            (
                Response(
                    participant_id=participant,
                    item_id=item,
                    position=position,
                    raw_answer=answer,
                    answer=answer,
                    valid=True,
                    correct=correct,
                    shown_at=at,
                    answered_at=at,
                    duration_ms=ms,
                )
                for participant, item, position, answer, correct, ms in rows
            ),
            batch_size=5_000,
        )
        return
    fields = {
        field.name: field
        for field in Response._meta.get_fields()
        if isinstance(field, models.Field) and field.concrete and not field.many_to_many and not field.primary_key
    }
    given = ("participant", "item", "position", "raw_answer", "answer", "correct", "duration_ms")
    same = {"valid": True, "shown_at": at, "answered_at": at}
    rest = [field for name, field in fields.items() if name not in given]

    def once(field: models.Field) -> Any:
        """The column's value in every row, prepared once as the field prepares it for the database;
        a JSON value as its text, which COPY parses (psycopg would encode the same JSON per row)."""
        value = same.get(field.name, field.get_default())
        if isinstance(field, models.JSONField):
            return None if value is None else json.dumps(value, cls=field.encoder)
        return field.get_db_prep_save(value, connection)

    fixed = tuple(once(field) for field in rest)
    columns = [fields[name].get_attname_column()[1] for name in given] + [f.get_attname_column()[1] for f in rest]
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(Response._meta.db_table), sql.SQL(", ").join(map(sql.Identifier, columns))
    )
    with connection.cursor() as cursor, cursor.copy(statement) as copy:
        for participant, item, position, answer, correct, ms in rows:
            copy.write_row((participant, item, position, answer, answer, correct, ms, *fixed))


def compute_timings(*, name: str, repeat: int) -> None:
    """Reading the study, `study_results` on what was read, and its models-among-people sections
    alone, in this process (medians of `repeat`); prints one JSON line of seconds."""
    from results.computing.assemble import study_results_tree
    from results.computing.comparison import comparison_sections
    from results.computing.rows import human_ratings, human_rows, run_rows, selected_runs
    from results.loading.filters import ResultFilters
    from results.loading.selectors import load_study_data
    from studies.models import Study

    study = Study.objects.get(name=name)
    read, compute, among = [], [], []
    for _ in range(repeat):
        began = time.perf_counter()
        data = load_study_data(study)
        read.append(time.perf_counter() - began)
        began = time.perf_counter()
        study_results_tree(data).to_json()
        compute.append(time.perf_counter() - began)
        filters = ResultFilters()
        ratings = human_ratings(data, human_rows(data, filters))
        runs = selected_runs(data, filters)
        rows_by_run = {run.id: run_rows(data, run, filters) for run in runs}
        began = time.perf_counter()
        comparison_sections(data, ratings, runs, rows_by_run, seed=0)
        among.append(time.perf_counter() - began)
    medians = [statistics.median(values) for values in (read, compute, among)]
    print(json.dumps(dict(zip(("read_s", "compute_s", "among_s"), medians))))


def page_timings(*, name: str, repeat: int) -> None:
    """The results page and API as a signed-in researcher; prints one JSON line of timings."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from studies.models import Study

    study = Study.objects.get(name=name)
    user, _ = get_user_model().objects.get_or_create(username="perf-admin", defaults={"is_staff": True})
    if not user.is_superuser:
        user.is_superuser = True
        user.save(update_fields=["is_superuser"])
    client = Client()
    client.force_login(user)
    page = reverse("results:study", args=[study.pk])
    api = reverse("api:study_results", args=[study.pk])

    def get(url: str) -> tuple[float, str]:
        began = time.perf_counter()
        answer = client.get(url)
        seconds = time.perf_counter() - began
        if answer.status_code not in (200, 202):
            raise SystemExit(f"GET {url}: {answer.status_code}")
        return seconds, answer.content.decode()

    # the rows were written in bulk, past the services: queue what their last write would have (a
    # large study's results; a small one's are computed by the first request)
    from results.pipeline import study_results_refresh

    study_results_refresh(study.pk)
    began = time.perf_counter()
    cold, body = get(page)
    queued = COMPUTING_MARK in body
    while COMPUTING_MARK in body:
        call_command("db_worker", "--queue-name", "default", "--batch", "--no-startup-delay", verbosity=0)
        _, body = get(page)
    ready = time.perf_counter() - began
    warm = [get(page)[0] for _ in range(repeat)]
    get(api)
    api_warm = [get(api)[0] for _ in range(repeat)]
    print(
        json.dumps(
            {
                "cold_s": cold,
                "ready_s": ready,
                "warm_ms": 1000 * statistics.median(warm),
                "api_warm_ms": 1000 * statistics.median(api_warm),
                "queued": queued,
            }
        )
    )


# -- outside: processes and the table --------------------------------------------------------------


def timed(env: Mapping[str, str], args: Sequence[str], timeout: float) -> tuple[float, float, str, float]:
    """Seconds, peak resident memory (MB), output and CPU seconds (user and system) of `manage.py
    ARGS` in a fresh process."""
    began = time.monotonic()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", *args], cwd=REPO, env=dict(env), stdout=out, stderr=subprocess.STDOUT
        )
        deadline = began + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                os.wait4(process.pid, 0)
                raise TimeoutError(f"manage.py {' '.join(args)} ran past {timeout:.0f} s")
            time.sleep(0.01)
        seconds = time.monotonic() - began
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode()
    if process.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{output[-3000:]}")
    return seconds, usage.ru_maxrss / 1024, output, usage.ru_utime + usage.ru_stime


def profile(env: Mapping[str, str], name: str, directory: Path, timeout: float) -> None:
    """One more cold `study_results NAME --json` under cProfile (DIR/study_results-N.prof, read with
    pstats) and one under `-X importtime` (DIR/importtime-N.txt), N the study's name's last word."""
    directory.mkdir(parents=True, exist_ok=True)
    size = name.rsplit(" ", 1)[-1]
    runs = (
        (["-m", "cProfile", "-o", str(directory / f"study_results-{size}.prof")], None),
        (["-X", "importtime"], directory / f"importtime-{size}.txt"),
    )
    for python, imports in runs:
        done = subprocess.run(
            [sys.executable, *python, "manage.py", "study_results", name, "--json"],
            cwd=REPO,
            env=dict(env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"study_results under {' '.join(python)} failed:\n{done.stderr[-3000:]}")
        if imports is not None:
            imports.write_text(done.stderr)


def shell(env: Mapping[str, str], code: str, timeout: float) -> dict[str, Any]:
    """Run `code` in `manage.py shell` and read the JSON object on its last line."""
    output = manage(env, "shell", "-c", code, timeout=timeout)
    return json.loads(output.strip().splitlines()[-1])


def measure_size(env: Mapping[str, str], label: str, answers: int, args: argparse.Namespace) -> Row:
    per_unit = max(2, round(answers / (args.units * args.unit_size)))
    name = f"perf results {answers}"
    build_call = (
        f"build(name={name!r}, per_unit={per_unit}, units={args.units}, unit_size={args.unit_size}, runs={args.runs})"
    )
    began = time.monotonic()
    built = shell(env, f"from perf.results import build; {build_call}", args.timeout)
    build_s = time.monotonic() - began
    started = [timed(env, ["study_results", "--help"], args.timeout) for _ in range(args.repeat)]
    startup = statistics.median(run[0] for run in started)
    startup_cpu = statistics.median(run[3] for run in started)
    runs: list[float] = []
    cpu: list[float] = []
    peak = 0.0
    problem = ""
    for _ in range(args.repeat):
        try:
            seconds, mb, output, cpu_s = timed(env, ["study_results", name, "--json"], args.timeout)
        except TimeoutError as exc:
            problem = str(exc)
            break
        results = json.loads(output)
        if results["human"]["n_answers"] == 0:
            problem = "no answers in the results"
        runs.append(seconds)
        cpu.append(cpu_s)
        peak = max(peak, mb)
    page: dict[str, Any] = {"cold_s": math.nan, "ready_s": math.nan, "warm_ms": math.nan, "api_warm_ms": math.nan}
    compute: dict[str, Any] = {"read_s": math.nan, "compute_s": math.nan, "among_s": math.nan}
    if not problem:
        code = f"from perf.results import compute_timings; compute_timings(name={name!r}, repeat={args.repeat})"
        compute = shell(env, code, args.timeout * (args.repeat + 1))
        code = f"from perf.results import page_timings; page_timings(name={name!r}, repeat={args.page_repeat})"
        page = shell(env, code, args.timeout * (args.page_repeat + 2))
        if args.profile:
            profile(env, name, args.profile, args.timeout)
    return Row(
        database=label,
        answers=built["answers"],
        people=built["people"],
        startup_s=round(startup, 2),
        command_s=round(statistics.median(runs), 2) if runs else math.inf,
        command_runs=[round(seconds, 2) for seconds in runs],
        startup_cpu_s=round(startup_cpu, 2),
        command_cpu_s=round(statistics.median(cpu), 2) if cpu else math.inf,
        peak_mb=round(peak),
        page_cold_s=round(page["cold_s"], 2),
        page_ready_s=round(page["ready_s"], 2),
        page_warm_ms=round(page["warm_ms"], 1),
        api_warm_ms=round(page["api_warm_ms"], 1),
        queued=bool(page.get("queued")),
        load_average=round(os.getloadavg()[0], 2),
        read_s=round(compute["read_s"], 2),
        compute_s=round(compute["compute_s"], 2),
        among_s=round(compute["among_s"], 2),
        problem=problem,
        build_s=round(build_s, 1),
    )


def measure(make_database: Callable[[Path], Any], args: argparse.Namespace, report: Callable[[Row], None]) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="parity-perf-") as tmp, make_database(Path(tmp)) as database:
        env = database.env(Path(tmp))
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "import_benchmark", "implicature")
        for answers in args.answers:
            row = measure_size(env, database.label, answers, args)
            if rows:
                row.growth = round(row.command_s / rows[0].command_s, 2)
                row.answers_growth = round(row.answers / rows[0].answers, 2)
            report(row)
            rows.append(row)
    return rows


HEADER = (
    f"{'database':<10} {'answers':>9} {'people':>6} {'start s':>7} {'command s':>9} {'peak MB':>7} "
    f"{'growth':>12} {'page cold s':>11} {'ready s':>7} {'page ms':>7} {'API ms':>7} {'load':>5} "
    f"{'read s':>6} {'results s':>9} {'IRT+tests s':>11} {'start CPU s':>11} {'command CPU s':>13} {'build s':>7}"
)


def line(row: Row) -> str:
    growth = f"{row.growth:.1f}× / {row.answers_growth:.0f}×" if row.answers_growth != 1 else "1×"
    text = (
        f"{row.database:<10} {row.answers:>9,} {row.people:>6} {row.startup_s:>7.2f} {row.command_s:>9.2f} "
        f"{row.peak_mb:>7.0f} {growth:>12} {row.page_cold_s:>11.2f} {row.page_ready_s:>7.2f} "
        f"{row.page_warm_ms:>7.1f} {row.api_warm_ms:>7.1f} {row.load_average:>5.1f} "
        f"{row.read_s:>6.2f} {row.compute_s:>9.2f} {row.among_s:>11.2f} {row.startup_cpu_s:>11.2f} "
        f"{row.command_cpu_s:>13.2f} {row.build_s:>7.1f}"
    )
    return text + (f"  {row.problem}" if row.problem else "") + ("  (queued)" if row.queued else "")


def compile_project() -> None:
    """Byte-compile the project's own modules, as an installed deployment has them: where
    PYTHONDONTWRITEBYTECODE is set (this environment sets it) each process would otherwise compile
    from source every module it imports, those the results import beyond start-up among them, and
    measure the compiler rather than the results. Its dependencies were compiled when installed."""
    import compileall
    import re

    compileall.compile_dir(REPO, quiet=1, rx=re.compile(r"[/\\](\.venv|\.git|node_modules|var|site)[/\\]"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", "-n", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("PERF_DATABASE_URL", DEFAULT_DATABASE_URL),
        help="PostgreSQL URL naming a database that does not exist yet: it is created and dropped "
        "(default $PERF_DATABASE_URL or %(default)s)",
    )
    parser.add_argument("--sqlite", action="store_true", help="then the same against the embedded SQLite default")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only (with --sqlite)")
    parser.add_argument("--units", type=int, default=UNITS, help="units of the study (default %(default)s)")
    parser.add_argument("--unit-size", type=int, default=UNIT_SIZE, help="items per unit (default %(default)s)")
    parser.add_argument(
        "--runs", type=int, default=RUNS, help="finished model runs on every item (default %(default)s)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="cold command runs per size (the median)")
    parser.add_argument("--page-repeat", type=int, default=5, help="warm page and API requests per size (the median)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one command may take")
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="DIR",
        help="then one cold command under cProfile and one under -X importtime per size, written to DIR",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="leave the project's modules as they are instead of byte-compiling them first",
    )
    args = parser.parse_args(argv)
    if not args.no_compile:
        compile_project()

    began = time.monotonic()
    load_before = os.getloadavg()[0]
    print(
        f"implicature, {args.units} units × {args.unit_size} items, {args.runs} model runs; {os.cpu_count()} cores "
        f"(load average {load_before:.2f} before); medians of {args.repeat} cold commands, {args.page_repeat} "
        "warm requests"
    )
    print(HEADER, flush=True)
    rows: list[Row] = each_database(args, measure, line)
    print(
        "start s: `study_results --help` (Django and the imports); command s: `study_results --json`, "
        "cold; start CPU s, command CPU s: the same processes' CPU seconds (user and system); "
        "growth: command s and answers over the smallest size's; read s, results s, IRT+tests s: in one "
        "process, reading the study, computing all its results, and of those the joint IRT, paired tests and "
        "human band; build s: writing the study's rows (a process of its own)"
    )
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
    return 0 if all(not row.problem for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
