"""The rules a study's settings must keep, whoever gives them (the researcher's form, the API, the
`create_study` command): pure functions of the values, each returning the problems it finds, so
that each caller shows them its own way (the form beside its fields, the API under its names).

A problem names the study's field it is about, `design.<option>` for a design option, or none (the
study as a whole)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from parity import panels
from parity.benchmarks.base import Benchmark
from parity.sampling import ALL
from studies.design.estimates import MAX_MINUTES, DesignEstimate, pay_refusal, too_long
from studies.design.screening import Screening
from studies.models import Study

#: what the report's method section states about the study's people, its review and its paper
REPORTING_FIELDS = (
    "population",
    "ethics_body",
    "ethics_reference",
    "ethics_exemption",
    "paper_title",
    "paper_url",
    "paper_venue",
)
#: the prescreening's fields (`studies.design.screening.Screening`), the lists typed comma-separated
SCREENING_FIELDS = (
    "age_min",
    "age_max",
    "sex",
    "first_languages",
    "fluent_languages",
    "countries",
    "approval_rate_min",
    "exclude_earlier",
)
#: what decides which items the units hold besides the design
SAMPLING_FIELDS = ("item_sampling", "sample_size", "sample_seed")
#: what participants meet besides the items: the answer floor, the closing questions, the "why?" box
PARTICIPANT_FIELDS = ("min_answer_ms", "closing_questions", "explanations", "explanation_every", "explanation_prompt")
#: the codes Prolific is sent back with; no two may be the same
CODE_FIELDS = ("completion_code", "failed_attention_code", "no_consent_code")

DESIGN = "design."


@dataclass(frozen=True)
class Problem:
    #: the study's field (`design.<option>` for a design option); None: the study as a whole
    field: str | None
    message: str


def name_problems(name: str, *, study: Study | None = None) -> list[Problem]:
    """A study's name is its own: no other study (besides `study`, the one edited) has it."""
    others = Study.objects.exclude(pk=study.pk) if study is not None else Study.objects.all()
    if others.filter(name=name).exists():
        return [Problem("name", f"A study named “{name}” already exists; choose another name.")]
    return []


def reporting_problems(*, ethics_body: str | None, ethics_reference: str | None) -> list[Problem]:
    """An ethics reference names the body that gave it."""
    if ethics_reference and not ethics_body:
        return [Problem("ethics_body", "Name the body that gave this reference.")]
    return []


def screening_problems(screening: Screening) -> list[Problem]:
    return [Problem(name, message) for name, message in screening.errors().items()]


def sampling_problems(*, item_sampling: str, sample_size: int | None) -> list[Problem]:
    """A subset of the items says how many to draw."""
    if item_sampling != ALL and not sample_size:
        return [Problem("sample_size", "Give the number of items to draw.")]
    return []


def design_problems(definition: Benchmark, design: Mapping[str, Any]) -> list[Problem]:
    """What the benchmark refuses in the design (`Definition.design_errors`)."""
    return [Problem(DESIGN + key, message) for key, message in definition.design_errors(dict(design)).items()]


def length_problems(estimate: DesignEstimate | None) -> list[Problem]:
    """A design one participant could not finish in the time Prolific allows."""
    long = too_long(estimate)
    return [Problem(None, long)] if long else []


def minutes_problems(minutes: int | None) -> list[Problem]:
    if minutes is not None and minutes > MAX_MINUTES:
        return [Problem("estimated_minutes", f"Prolific allows at most {MAX_MINUTES} minutes.")]
    return []


def exclusion_problems(design: Mapping[str, Any], minutes: int | None) -> list[Problem]:
    """Prolific's rule for rejecting a participant for one failed check: only in short studies."""
    if design.get("exclude_at") == 1 and minutes and minutes >= 5:
        return [
            Problem(
                DESIGN + "exclude_at",
                "Prolific allows rejecting for a single failed check only in studies under 5 minutes; "
                "exclude at 2 or more failed checks.",
            )
        ]
    return []


def pay_problems(
    *, reward_pence: int, minutes: int, estimate: DesignEstimate | None, panel: str = panels.PROLIFIC
) -> list[Problem]:
    """A reward under the panel's minimum (`pay_refusal`)."""
    refusal = pay_refusal(reward_pence, minutes, estimate, panel)
    return [Problem("reward_pence", refusal)] if refusal else []


def code_problems(codes: Iterable[str | None]) -> list[Problem]:
    """The completion, failed-check and no-consent codes given (`CODE_FIELDS`) differ."""
    given = [code for code in codes if code]
    if len(set(given)) != len(given):
        return [Problem(None, "The completion, failed-check and no-consent codes must differ from each other.")]
    return []


def panel_problems(
    *, panel: str, panel_settings: Mapping[str, Any] | None, study: Study | None = None
) -> list[Problem]:
    """The panel is one Parity knows, its settings are whole (`parity.panels.settings_errors`), and a
    launched study keeps the panel it was launched with (its participants came through that one's link)."""
    if study is not None and study.pk and study.status != Study.Status.DRAFT and panel != study.panel:
        return [Problem("panel", "The panel can be changed only before launch.")]
    return [
        Problem("panel" if name == "panel" else f"panel_settings.{name}", message)
        for name, message in panels.settings_errors(panel, panel_settings).items()
    ]
