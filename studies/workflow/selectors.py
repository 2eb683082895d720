"""Reads for the researcher's workflow pages."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count

from annotation.models import Item
from parity import benchmarks
from studies.models import Participant, Study
from studies.pay import HourlyPay, hourly_pay
from studies.services import STATUS_MOVES


@dataclass(frozen=True)
class BenchmarkOption:
    name: str
    title: str
    n_items: int
    n_options: int
    #: items come in named sets a researcher imports (their own items)
    named_sets: bool = False


def benchmark_options() -> list[BenchmarkOption]:
    """Every registered benchmark with how many of its items are imported (a study needs some)."""
    counts = dict(
        Item.objects.filter(is_attention_check=False)
        .values_list("benchmark")
        .annotate(n=Count("id"))
        .values_list("benchmark", "n")
    )
    return [
        BenchmarkOption(
            name, title, counts.get(name, 0), len(benchmarks.get(name).design_options), benchmarks.get(name).named_sets
        )
        for name, title in benchmarks.choices()
    ]


@dataclass(frozen=True)
class ProlificSetting:
    label: str
    value: str
    element_id: str


def prolific_settings(study: Study) -> list[ProlificSetting]:
    """What a researcher pastes into Prolific: the study URL and each completion code with its URL."""
    rows = [ProlificSetting("Study URL (with Prolific's placeholders)", study.participant_url(), "study-url")]
    codes = [
        ("Completion code", study.completion_code, "completion-code"),
        ("Failed attention checks code", study.failed_attention_code, "failed-code"),
        ("No consent code", study.no_consent_code, "no-consent-code"),
    ]
    for label, code, element_id in codes:
        if code:
            rows.append(ProlificSetting(label, code, element_id))
            rows.append(
                ProlificSetting(
                    f"{label}: redirect URL", f"{settings.PROLIFIC_COMPLETE_URL}?cc={code}", f"{element_id}-url"
                )
            )
    return rows


@dataclass(frozen=True)
class StudyPage:
    study: Study
    moves: tuple[str, ...]
    n_units: int
    n_working: int
    n_completed: int
    pay: HourlyPay

    @property
    def reward(self) -> str:
        return f"£{self.study.reward_pence / 100:.2f}"


def study_page(study: Study) -> StudyPage:
    participants = Participant.objects.filter(study=study)
    return StudyPage(
        study=study,
        moves=() if study.is_imported else STATUS_MOVES.get(study.status, ()),
        n_units=study.units.count(),
        n_working=participants.filter(status=Participant.Status.ACTIVE).count(),
        n_completed=participants.filter(status=Participant.Status.COMPLETED).count(),
        pay=hourly_pay(study.reward_pence, study.estimated_minutes),
    )
