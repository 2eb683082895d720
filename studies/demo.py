"""The embedded demo: data, a researcher login and one study per benchmark, made once.

Each step is idempotent, so running the README's first command again keeps what it made.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.models import Item
from annotation.services import benchmark_import, benchmark_sources_fetch
from modelruns.demo import demo_model_runs
from studies.models import Study
from studies.services import study_create

DEMO_USERNAME = "researcher"


@dataclass
class DemoReport:
    lines: list[str] = field(default_factory=list)
    studies: list[Study] = field(default_factory=list)

    def say(self, line: str) -> None:
        self.lines.append(line)


def source_dir(benchmark: str) -> Path:
    """DATASETS_DIR/<benchmark> when set, otherwise the files downloaded from the pinned URLs."""
    shared = os.environ.get("DATASETS_DIR") or settings.DATASETS_DIR
    if shared and (Path(shared) / benchmark).is_dir():
        return Path(shared) / benchmark
    return benchmark_sources_fetch(name=benchmark, dest=Path(settings.VAR_DIR) / "datasets" / benchmark)


def demo_researcher(report: DemoReport) -> None:
    credentials = Path(settings.VAR_DIR) / "demo-login.txt"
    user_model = get_user_model()
    user = user_model.objects.filter(username=DEMO_USERNAME).first()
    if user is None or not credentials.exists():
        password = secrets.token_urlsafe(12)
        if user is None:
            user = user_model.objects.create_superuser(DEMO_USERNAME, "researcher@example.org", password)
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        credentials.parent.mkdir(parents=True, exist_ok=True)
        credentials.write_text(password)
        credentials.chmod(0o600)
    report.say(f"Researcher login: {DEMO_USERNAME} / {credentials.read_text().strip()}")


def demo_implicature(report: DemoReport) -> None:
    if not Item.objects.filter(benchmark="implicature", split="test").exists():
        result = benchmark_import(name="implicature", source=source_dir("implicature"))
        report.say(f"Imported implicature: {result.created} items")
    _demo_study(report, "Implicature demo", "implicature")


def _demo_study(report: DemoReport, name: str, benchmark: str, **design) -> None:
    with transaction.atomic():
        study = Study.objects.filter(name=name).first() or study_create(name=name, benchmark=benchmark, design=design)
    report.studies.append(study)


def demo_ambibench(report: DemoReport) -> None:
    """Generated from seed 0 (no files); the demo study is the paper's 96 episodes, 16 per feature."""
    if not Item.objects.filter(benchmark="ambibench", split="episode").exists():
        result = benchmark_import(name="ambibench", source=None, options={"seed": 0})
        report.say(f"Generated AmbiBench (seed 0): {result.created} items")
    _demo_study(report, "AmbiBench demo", "ambibench")


def demo_miqa(report: DemoReport) -> None:
    if not Item.objects.filter(benchmark="miqa", split="test").exists():
        result = benchmark_import(name="miqa", source=source_dir("miqa"))
        report.say(f"Imported MiQA: {result.created} items")
    _demo_study(report, "MiQA demo", "miqa")


def demo_instruction_induction(report: DemoReport) -> None:
    if not Item.objects.filter(benchmark="instruction_induction", split="induce").exists():
        result = benchmark_import(name="instruction_induction", source=source_dir("instruction_induction"))
        report.say(f"Imported instruction induction: {result.created} items")
    _demo_study(report, "Instruction induction demo", "instruction_induction")


BASELINE_STUDY = "Implicature: published human baseline (Ruis et al.)"


def demo_human_baseline(report: DemoReport) -> None:
    """Ruis et al.'s 20 published annotators as a closed study, so the first results page shows real people."""
    from studies.services_import import human_baseline_import

    study = Study.objects.filter(name=BASELINE_STUDY).first()
    if study is None:
        result = human_baseline_import(benchmark="implicature", source=source_dir("implicature"), name=BASELINE_STUDY)
        study = result.study
        report.say(result.message)
    report.say(f"Results: {settings.PUBLIC_URL}/studies/{study.pk}/results/ (all studies: {settings.PUBLIC_URL}/studies/)")


#: the steps, in order: data before the studies on it, studies before the model runs on them
STEPS: list[Callable[[DemoReport], None]] = [
    demo_researcher, demo_implicature, demo_human_baseline, demo_ambibench, demo_miqa,
    demo_instruction_induction, demo_model_runs,
]


def demo_setup() -> DemoReport:
    report = DemoReport()
    for step in STEPS:
        step(report)
    return report
