"""Reads for the researcher's workflow pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Count, Sum

from annotation.models import Item
from parity import benchmarks, panels
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


#: what the researcher does on the panel with the rows below, and where the panel documents it
PANEL_STEPS = {
    panels.CONNECT: (
        "In Connect's Create a Study wizard, give the survey link below (Connect fills its placeholders) and the "
        "completion code; copy the wizard's completion redirect URL and, under Partial Completes, its partial "
        "redirect URL into this study's settings (edit the draft): those who finish are sent to the first, those "
        "who fail the checks or the comprehension check to the second.",
        panels.CONNECT_COMPLETION,
    ),
    panels.MTURK: (
        "Create the HIT with the ExternalQuestion below as its question (MTurk appends workerId, assignmentId, "
        "hitId and turkSubmitTo to the URL); a worker previewing the HIT sees the instructions only, and a "
        "worker who finishes submits the assignment to the address below with the code in completion_code.",
        panels.MTURK_EXTERNAL,
    ),
    panels.SONA: (
        "Create an online external study on SONA with the study URL below as its Study URL (SONA puts each "
        "sign-up's survey code in place of %SURVEY_CODE%); copy the study's client-side completion URL into this "
        "study's settings: Parity sends each participant there with their survey code, and SONA grants the credit.",
        panels.SONA_CREDIT,
    ),
    panels.LAB: (
        "Give each participant the link with their own id in place of the placeholder, or the plain link: "
        "Parity then gives them a pseudonym. At the end they see a thank-you page with the completion code.",
        "",
    ),
}


@dataclass(frozen=True)
class PanelSetup:
    """What a researcher does on the study's panel (other than Prolific): the steps, their source and
    the values to paste."""

    name: str
    steps: str
    source: str
    rows: list[ProlificSetting]


def panel_setup(study: Study) -> PanelSetup:
    panel = study.recruiting_panel
    given = panels.PanelSettings.of(study.panel_settings)
    base = f"{settings.PUBLIC_URL}{study.participant_path()}"
    rows: list[ProlificSetting] = []
    if study.panel == panels.MTURK:
        rows += [
            ProlificSetting("ExternalQuestion URL (MTurk appends its parameters)", base, "study-url"),
            ProlificSetting("ExternalQuestion", panels.external_question(base), "external-question"),
            ProlificSetting("Assignments are submitted to", panels.mturk_submit_url(given.sandbox), "submit-url"),
        ]
    elif study.panel == panels.LAB:
        rows += [
            ProlificSetting("Link with the participant's id", study.participant_url(), "study-url"),
            ProlificSetting("Link without an id (a pseudonym is given)", base, "plain-url"),
        ]
    else:
        rows.append(
            ProlificSetting(f"Study URL (with {panel.name}'s placeholders)", study.participant_url(), "study-url")
        )
    rows.append(ProlificSetting("Completion code", study.completion_code, "completion-code"))
    rows.append(ProlificSetting("Failed attention checks code", study.failed_attention_code, "failed-code"))
    if study.no_consent_code:
        rows.append(ProlificSetting("Declined or screened-out code", study.no_consent_code, "no-consent-code"))
    if study.panel == panels.CONNECT:
        rows += [
            ProlificSetting("Completion redirect (from Connect)", given.complete_url, "complete-redirect"),
            ProlificSetting("Partial-complete redirect (from Connect)", given.partial_url, "partial-redirect"),
        ]
    if study.panel == panels.SONA:
        rows.append(ProlificSetting("Completion URL (from SONA)", given.credit_url, "credit-url"))
    rows += [
        ProlificSetting("Places", str(places_to_recruit(study)), "places"),
        ProlificSetting("Estimated completion time (minutes)", str(study.estimated_minutes), "estimated-minutes"),
        ProlificSetting(f"Reward ({panels.SYMBOLS[panel.currency]})", f"{study.reward_pence / 100:.2f}", "reward"),
    ]
    steps, source = PANEL_STEPS[study.panel]
    return PanelSetup(panel.name, steps, source, rows)


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
        return f"{panels.SYMBOLS[self.pay.currency]}{self.study.reward_pence / 100:.2f}"


def study_page(study: Study) -> StudyPage:
    participants = Participant.objects.filter(study=study)
    return StudyPage(
        study=study,
        moves=() if study.is_imported else STATUS_MOVES.get(study.status, ()),
        n_units=study.units.count(),
        places=places_to_recruit(study),
        n_working=participants.filter(status=Participant.Status.ACTIVE).count(),
        n_completed=participants.filter(status=Participant.Status.COMPLETED).count(),
        pay=hourly_pay(study.reward_pence, study.estimated_minutes, study.panel),
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
