"""The embedded demo: data, a researcher login, one study per benchmark and smollm2's runs on them,
made once.

Each step is idempotent, so running the README's first command again keeps what it made.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Q

from annotation.models import Item
from annotation.selectors import datasets_dir, download_dir
from annotation.services import benchmark_import, benchmark_sources_fetch
from modelruns.services import modelrun_start, modelspec_get_or_create
from parity import benchmarks
from studies.access import RESEARCHER_PERMISSIONS
from studies.models import Study
from studies.setup.imports import human_baseline_import
from studies.setup.studies import study_assign_owner, study_create

DEMO_USERNAME = "researcher"
#: the group the demo researcher is in: what a researcher who runs studies holds, Prolific IDs not included
RESEARCHER_GROUP = "Researchers"
DEMO_MODEL = "smollm2"


@dataclass
class DemoReport:
    lines: list[str] = field(default_factory=list)
    studies: list[Study] = field(default_factory=list)

    def say(self, line: str) -> None:
        self.lines.append(line)


def source_dir(benchmark: str) -> Path:
    """DATASETS_DIR/<benchmark> when set, otherwise the files downloaded from the pinned URLs."""
    shared = datasets_dir(benchmark)
    if shared is not None and shared.is_dir():
        return shared
    return benchmark_sources_fetch(name=benchmark, dest=download_dir(benchmark))


def researcher_group() -> Group:
    """The group of researchers who run studies (`RESEARCHER_PERMISSIONS`), made once. Permissions an
    administrator gave it since are kept."""
    group, _ = Group.objects.get_or_create(name=RESEARCHER_GROUP)
    held = Q(pk__in=[])
    for name in RESEARCHER_PERMISSIONS:
        app_label, codename = name.split(".")
        held |= Q(content_type__app_label=app_label, codename=codename)
    found = list(Permission.objects.filter(held))
    group.permissions.add(*found)
    return group


def demo_researcher(report: DemoReport) -> None:
    """The demo's researcher: staff in the researchers' group, not a superuser, so the demo shows
    participants as the docs say a researcher sees them (pseudonyms, never Prolific IDs)."""
    credentials = Path(settings.VAR_DIR) / "demo-login.txt"
    user_model = get_user_model()
    user = user_model.objects.filter(username=DEMO_USERNAME).first()
    if user is None or not credentials.exists():
        password = secrets.token_urlsafe(12)
        if user is None:
            user = user_model.objects.create_user(DEMO_USERNAME, "researcher@example.org", password, is_staff=True)
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        credentials.parent.mkdir(parents=True, exist_ok=True)
        credentials.write_text(password)
        credentials.chmod(0o600)
    if user.is_superuser or not user.is_staff:
        # the demo researcher of earlier installations was a superuser, and saw every Prolific ID
        user.is_superuser, user.is_staff = False, True
        user.save(update_fields=["is_superuser", "is_staff"])
    user.groups.add(researcher_group())
    report.say(
        f"Researcher login: {DEMO_USERNAME} / {credentials.read_text().strip()} "
        f"(in the {RESEARCHER_GROUP} group, not a superuser: participants show as pseudonyms)"
    )


def _demo_owner() -> Any:
    return get_user_model().objects.filter(username=DEMO_USERNAME).first()


def _demo_study(report: DemoReport, name: str, benchmark: str, **design) -> None:
    with transaction.atomic():
        study = Study.objects.filter(name=name).first() or study_create(
            name=name, benchmark=benchmark, design=design, owner=_demo_owner()
        )
        if study.owner_id is None:
            study_assign_owner(study=study, owner=_demo_owner())
    report.studies.append(study)


@functools.cache
def demo_step(benchmark: str) -> Callable[[DemoReport], None]:
    """The demo step of one benchmark (its `demo`): its items once, then its demo study."""
    setup = benchmarks.get(benchmark).demo
    if setup is None:
        raise ValueError(f"{benchmark} has no demo")

    def step(report: DemoReport) -> None:
        if not Item.objects.filter(benchmark=benchmark, split=setup.split).exists():
            source = source_dir(benchmark) if setup.reads_files else None
            result = benchmark_import(name=benchmark, source=source, options=dict(setup.options) or None)
            report.say(setup.imported.format(created=result.created))
        _demo_study(report, setup.study, benchmark)

    step.__name__ = f"demo_{benchmark}"
    return step


def _published_baseline() -> str:
    """The benchmark whose published human study the demo imports (the first that has one)."""
    return next(name for name, definition in benchmarks.REGISTRY.items() if definition.published_study_name)


BASELINE_STUDY = benchmarks.get(_published_baseline()).published_study_name


def demo_human_baseline(report: DemoReport) -> None:
    """The published annotators as a closed study, so the first results page shows real people."""
    benchmark = _published_baseline()
    study = Study.objects.filter(name=BASELINE_STUDY).first()
    if study is None:
        result = human_baseline_import(
            benchmark=benchmark, source=source_dir(benchmark), name=BASELINE_STUDY, owner=_demo_owner()
        )
        study = result.study
        report.say(result.message)
    elif study.owner_id is None:
        study_assign_owner(study=study, owner=_demo_owner())
    report.say(
        f"Results: {settings.PUBLIC_URL}/studies/{study.pk}/results/ (all studies: {settings.PUBLIC_URL}/studies/)"
    )


def _benchmark_steps() -> list[Callable[[DemoReport], None]]:
    """Each benchmark's demo in registry order, its published human baseline right after it."""
    steps: list[Callable[[DemoReport], None]] = []
    for name, definition in benchmarks.REGISTRY.items():
        if definition.demo is not None:
            steps.append(demo_step(name))
        if definition.published_study_name:
            steps.append(demo_human_baseline)
    return steps


def demo_study_names() -> list[str]:
    """The studies the demo's model answers: the published baseline, then each benchmark's demo study
    whose definition asks for a model run (`DemoSetup.model_run`), in registry order."""
    demos = [definition.demo for definition in benchmarks.REGISTRY.values() if definition.demo is not None]
    return [BASELINE_STUDY, *(demo.study for demo in demos if demo.model_run)]


def demo_model_runs(report: DemoReport) -> None:
    """smollm2 beside the humans, each run queued once for the task worker; a second call finds the
    same run and, if it is not finished, queues its unfinished shards again (a worker stopped mid-run
    resumes).

    The published human baseline comes first, so the first results page shows 20 annotators and a
    model on the same 600 items; the implicature demo shares those items and is answered from the
    engine's score cache. A benchmark's demo study is left out where its definition says so
    (`DemoSetup.model_run`).
    """
    spec = modelspec_get_or_create(model=DEMO_MODEL)
    for name in demo_study_names():
        study = Study.objects.filter(name=name).first()
        if study is None:
            continue
        # in the background: a researcher's own run is served before the demo's
        started = modelrun_start(study=study, spec=spec, background=True)
        run = started.run
        report.say(
            f"Model run {run.pk}: {run.spec.name} on {study.name!r} ({run.setting_label()}, "
            f"{run.progress_total} items) — {'queued' if started.created else run.get_status_display().lower()}"
        )


#: the steps, in order: data before the studies on it, studies before the model runs on them
STEPS: list[Callable[[DemoReport], None]] = [demo_researcher, *_benchmark_steps(), demo_model_runs]


def demo_setup() -> DemoReport:
    report = DemoReport()
    for step in STEPS:
        step(report)
    return report
