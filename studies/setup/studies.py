"""Creating a study and changing it: its settings, a unit's capacity, its owner, its status."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from parity import benchmarks, panels
from parity.sampling import ALL, ItemSampling
from studies.design import closing_questions
from studies.design.estimates import Training
from studies.design.screening import Screening
from studies.errors import StudyError
from studies.models import Study, Unit
from studies.preregistration.events import capacity_change_record, settings_changed_record, status_change_record
from studies.preregistration.services import preregistration_freeze
from studies.results_token import results_changed
from studies.setup.training import practice_drawn, training_fields
from studies.setup.units import UnitsPlan, pay_checked, units_create, units_plan
from studies.setup.validation import panel_problems


@transaction.atomic
def study_create(
    *,
    name: str,
    benchmark: str,
    design: Mapping[str, Any] | None = None,
    status: str = Study.Status.LIVE,
    group: str = "",
    owner: Any = None,
    **fields: Any,
) -> Study:
    """Create a study and its units from the imported items, following the benchmark's design.
    `owner` (a user) sees and acts on it; without one only superusers do. One created live is
    launched at once: its preregistration (the automatic part) freezes now."""
    # imported here: the power analysis needs numpy, which commands that plan no study should not load
    from studies.design.power import design_power

    definition = benchmarks.get(benchmark)
    if Study.objects.filter(name=name).exists():
        raise StudyError(f"a study named {name!r} already exists")
    unknown = sorted(set(fields.get("closing_questions", ())) - set(closing_questions.QUESTIONS))
    if unknown:
        raise StudyError(
            f"no closing question named {', '.join(unknown)}; known: {', '.join(closing_questions.QUESTIONS)}"
        )
    if fields.get("explanations", Study.Explanations.OFF) not in Study.Explanations.values:
        raise StudyError(f"explanations must be one of {', '.join(Study.Explanations.values)}")
    if int(fields.get("explanation_every", 5)) < 1:
        raise StudyError("explanation_every must be 1 or more (after every Nth item)")
    language = fields.get("language", "en")
    if language not in dict(settings.LANGUAGES):
        raise StudyError(f"no participant language {language!r}; known: {', '.join(dict(settings.LANGUAGES))}")
    fields.update(panel_fields_checked(fields.get("panel", panels.PROLIFIC), fields.get("panel_settings")))
    fields.setdefault("prolific_filters", None)
    fields.setdefault("sample_seed", Study._meta.get_field("sample_seed").get_default())
    sample = ItemSampling(
        method=fields.get("item_sampling", ALL), size=fields.get("sample_size"), seed=fields["sample_seed"]
    )
    checked = study_settings_checked(
        benchmark=benchmark, fields=fields, design=definition.design(design), owner=owner, sample=sample
    )
    fields, plan = checked.fields, checked.plan
    assert plan is not None  # a design was given to plan
    fields["estimated_minutes"], fields["reward_pence"] = pay_checked(
        plan, fields.get("estimated_minutes"), fields.get("reward_pence"), Training.of_fields(fields), fields["panel"]
    )
    capacity = int(plan.design.get("per_unit", 1))
    fields.setdefault(
        "power_analysis",
        design_power(benchmark=benchmark, places=[capacity] * len(plan.units), unit_sizes=[len(u) for u in plan.units]),
    )
    fields["sample_pool"] = plan.available
    fields = practice_added(fields, benchmark=benchmark, design=plan.design, seed=fields["sample_seed"])
    study = Study.objects.create(
        name=name,
        benchmark=benchmark,
        status=status,
        group=group,
        design=plan.design,
        consent_text=fields.pop("consent_text", None) or definition.default_consent,
        instructions_text=fields.pop("instructions_text", None) or definition.default_instructions,
        attention_checks=plan.attention_checks,
        exclude_at=int(plan.design.get("exclude_at", 0)),
        owner=owner,
        **fields,
    )
    units_create(study=study, plan=plan)
    if study.status == Study.Status.LIVE and not study.is_imported:
        preregistration_freeze(study=study, actor=owner)
    return study


def panel_fields_checked(panel: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The panel and its settings as stored (only the panel's own); `StudyError` names what is wrong."""
    problems = panel_problems(panel=panel, panel_settings=given)
    if problems:
        raise StudyError(" ".join(problem.message for problem in problems))
    return {"panel": panel, "panel_settings": panels.PanelSettings.of(given or {}).to_json(panel)}


@dataclass(frozen=True)
class CheckedSettings:
    """A study's settings checked as `study_create` and `study_draft_update` store them."""

    #: the fields given, the Prolific screening and the training questions as stored
    fields: dict[str, Any]
    #: the units the design makes, when it is to be planned (again); None keeps the study's units
    plan: UnitsPlan | None


def study_settings_checked(
    *,
    benchmark: str,
    fields: Mapping[str, Any],
    design: dict[str, Any] | None,
    owner: Any,
    sample: ItemSampling | None,
    problems_named: bool = True,
) -> CheckedSettings:
    """The steps a new study and a changed draft share: the Prolific screening given
    (`prolific_filters`) checked and stored in its canonical form, the training questions parsed
    (`training_fields`), and, given a `design`, its units planned from the imported items (`sample`
    drawn first). `StudyError` says what is wrong: each screening problem `problems_named` by its
    field, or the problems alone."""
    checked = dict(fields)
    if "prolific_filters" in checked:
        screening = Screening.from_json(checked["prolific_filters"])
        problems = screening.errors()
        if problems:
            raise StudyError(
                "; ".join(
                    f"{name.replace('_', ' ')}: {message}" if problems_named else message
                    for name, message in problems.items()
                )
            )
        checked["prolific_filters"] = screening.to_json()
    checked = training_fields(checked)
    plan = None if design is None else units_plan(benchmark=benchmark, design=design, owner=owner, sample=sample)
    return CheckedSettings(checked, plan)


def practice_added(fields: dict[str, Any], *, benchmark: str, design: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """`fields` with practice questions drawn from the benchmark's practice split when asked for
    (`practice_drawn`: how many) and none were written; the request itself is never stored."""
    drawn = fields.pop("practice_drawn", None)
    if drawn and not fields.get("practice_questions"):
        return {
            **fields,
            "practice_questions": practice_drawn(benchmark=benchmark, design=design, size=drawn, seed=seed),
        }
    return fields


def study_update(*, study: Study, fields: list[str], actor: Any = None) -> Study:
    """Write a researcher's edits of `fields` only: the counters other services write on the same row
    (`pseudonyms_issued`, as participants enter) are never written back from a stale copy. A launched
    study's changes go into its audit trail, from the values stored before."""
    if fields:
        with transaction.atomic():
            before = Study.objects.filter(pk=study.pk).values(*fields).first() or {}
            study.save(update_fields=fields)
            settings_changed_record(study=study, before=before, actor=actor)
        results_changed(study_ids=[study.pk])
    return study


@transaction.atomic
def unit_set_capacity(*, unit: Unit, capacity: int, actor: Any = None) -> Unit:
    """How many participants complete `unit`; those already assigned keep their place."""
    before = Unit.objects.values_list("capacity", flat=True).get(pk=unit.pk)
    unit.capacity = capacity
    unit.save(update_fields=["capacity"])
    results_changed(study_ids=[unit.study_id])
    if before != capacity:
        capacity_change_record(unit=unit, before=before, actor=actor)
    return unit


def study_assign_owner(*, study: Study, owner: Any) -> Study:
    """Give the study to `owner` (who then sees and acts on it)."""
    study.owner = owner
    study.save(update_fields=["owner"])
    return study


#: where a study may go from each status: launched, paused and resumed, closed for good
STATUS_MOVES: dict[str, tuple[str, ...]] = {
    Study.Status.DRAFT: (Study.Status.LIVE,),
    Study.Status.LIVE: (Study.Status.PAUSED, Study.Status.CLOSED),
    Study.Status.PAUSED: (Study.Status.LIVE, Study.Status.CLOSED),
    Study.Status.CLOSED: (),
}


def study_set_status(*, study: Study, status: str, actor: Any = None) -> Study:
    """Launch, pause, resume or close a study. Paused or closed, it lets nobody new in; those already
    working may finish (Prolific lets a participant who started complete their submission). Launching
    freezes the preregistration; every later move goes into the audit trail."""
    # imported here: the power analysis needs numpy, which commands that plan no study should not load
    from studies.design.power import study_power

    with transaction.atomic():
        # the row lock orders this with `participant_enter`, which reads the status under the same lock
        locked = Study.objects.select_for_update().get(pk=study.pk)
        if locked.is_imported:
            raise StudyError("An imported study has no participants to recruit; its status cannot change.")
        if status not in STATUS_MOVES.get(locked.status, ()):
            wanted = Study.Status(status).label.lower() if status in Study.Status.values else repr(status)
            raise StudyError(f"A {locked.get_status_display().lower()} study cannot become {wanted}.")
        before, locked.status = locked.status, status
        locked.save(update_fields=["status"])
        results_changed(study_ids=[study.pk])
        if before == Study.Status.DRAFT:
            # the analysis as of the launch (a pilot may have closed since the draft was made) freezes with the plan
            locked.power_analysis = study_power(locked)
            locked.save(update_fields=["power_analysis"])
            preregistration_freeze(study=locked, actor=actor)
        else:
            status_change_record(study=locked, before=before, actor=actor)
    study.status = status
    return study
