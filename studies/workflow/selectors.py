"""Reads for the researcher's workflow pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Count, Sum

from annotation.models import Item
from parity import benchmarks
from studies.design.pay import HourlyPay, hourly_pay
from studies.models import Participant, Preregistration, Study
from studies.preregistration.document import rendered
from studies.setup.studies import STATUS_MOVES


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


def places_to_recruit(study: Study) -> int:
    """Prolific's places: one for each participant the units hold."""
    return study.units.aggregate(total=Sum("capacity"))["total"] or 0


def prolific_settings(study: Study) -> list[ProlificSetting]:
    """What a researcher pastes into Prolific: the study URL, each completion code with its URL, the
    places, the time and the reward."""
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
    units = study.units.count()
    rows += [
        ProlificSetting(
            f"Places (one for each participant the {units} unit{'s hold' if units != 1 else ' holds'})",
            str(places_to_recruit(study)),
            "places",
        ),
        ProlificSetting("Estimated completion time (minutes)", str(study.estimated_minutes), "estimated-minutes"),
        ProlificSetting("Reward (£)", f"{study.reward_pence / 100:.2f}", "reward"),
    ]
    return rows


@dataclass(frozen=True)
class StudyPage:
    study: Study
    moves: tuple[str, ...]
    n_units: int
    #: Prolific's places: one for each participant the units hold
    places: int
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
        places=places_to_recruit(study),
        n_working=participants.filter(status=Participant.Status.ACTIVE).count(),
        n_completed=participants.filter(status=Participant.Status.COMPLETED).count(),
        pay=hourly_pay(study.reward_pence, study.estimated_minutes),
    )


@dataclass(frozen=True)
class PreregistrationPanel:
    """The study page's preregistration: the researcher's text, the document (frozen, or as it would
    freeze now), its renderings, the audit trail and the deviations."""

    preregistration: Preregistration | None
    rendered: dict[str, Any]

    @property
    def frozen(self) -> bool:
        return self.preregistration is not None and self.preregistration.is_frozen

    @property
    def initial(self) -> dict[str, str]:
        found = self.preregistration
        return {"hypotheses": found.hypotheses, "notes": found.notes} if found else {}


def preregistration_panel(study: Study) -> PreregistrationPanel | None:
    """None for an imported study, and for one launched before preregistrations existed."""
    if study.is_imported:
        return None
    found = Preregistration.objects.filter(study=study).first()
    if found is None and study.status != Study.Status.DRAFT:
        return None
    return PreregistrationPanel(found, rendered(study, found))
