"""Writes that change a study after it is made: editing a draft, duplicating a study into a new draft."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from parity import benchmarks
from parity.sampling import ItemSampling
from studies.design.estimates import followed_pay, pay_refusal
from studies.errors import StudyError
from studies.models import Participant, Study, new_code
from studies.results_token import results_changed
from studies.setup.studies import panel_fields_checked, practice_added, study_create, study_settings_checked
from studies.setup.units import definition_asset, follows_estimate, study_estimate, units_create

#: what a researcher may change in a draft besides its design (`study_draft_update`)
DRAFT_FIELDS = (
    "name",
    "public_title",
    "group",
    "pid_format",
    "panel",
    "panel_settings",
    "language",
    "consent_text",
    "instructions_text",
    "completion_code",
    "failed_attention_code",
    "no_consent_code",
    "estimated_minutes",
    "reward_pence",
    "min_answer_ms",
    "closing_questions",
    "explanations",
    "explanation_every",
    "explanation_prompt",
    "population",
    "ethics_body",
    "ethics_reference",
    "ethics_exemption",
    "paper_title",
    "paper_url",
    "paper_venue",
    "prolific_filters",
    "item_sampling",
    "sample_size",
    "sample_seed",
    "practice_questions",
    "comprehension_questions",
    "comprehension_tries",
)
#: what decides which items the units hold besides the design
SAMPLING_FIELDS = ("item_sampling", "sample_size", "sample_seed")


@transaction.atomic
def study_draft_update(*, study: Study, design: Mapping[str, Any] | None = None, **fields: Any) -> Study:
    """Change a draft: the fields of `DRAFT_FIELDS` given, and its design, over the one it has.

    A changed design builds the units again from the imported items, as `study_create` does; an
    unchanged one keeps them (and any capacity set in the admin). Minutes and a reward that were
    the old design's estimate become the new one's unless given; a reward under Prolific's minimum
    (at the minutes, or at the design's estimate when longer) is refused. Only a draft changes so: once
    launched, people's answers refer to its units and Prolific holds its codes, time and reward."""
    drawn = fields.pop("practice_drawn", None)
    unknown = set(fields) - set(DRAFT_FIELDS)
    if unknown:
        raise StudyError(f"a draft's {', '.join(sorted(unknown))} cannot be edited")
    locked = Study.objects.select_for_update().get(pk=study.pk)
    if locked.status != Study.Status.DRAFT or locked.is_imported:
        raise StudyError(
            f"Only a draft can be edited; this study is {locked.get_status_display().lower()}. Duplicate it instead."
        )
    if Participant.objects.filter(study=locked).exists():
        raise StudyError("This draft already has participants; duplicate it instead.")
    name = fields.get("name", locked.name)
    if Study.objects.filter(name=name).exclude(pk=locked.pk).exists():
        raise StudyError(f"a study named {name!r} already exists")
    if "panel" in fields or "panel_settings" in fields:
        fields.update(
            panel_fields_checked(fields.get("panel", locked.panel), fields.get("panel_settings", locked.panel_settings))
        )
    definition = locked.definition
    changed: list[str] = []
    following = follows_estimate(locked)
    chosen = {**locked.design, **(design or {})}
    resampled = any(name in fields and fields[name] != getattr(locked, name) for name in SAMPLING_FIELDS)
    replanned = chosen != locked.design or resampled
    # what the old design resolved (implicature: the template's text) is resolved again
    stale = _resolved_keys(locked.benchmark) if replanned else set()
    checked = study_settings_checked(
        benchmark=locked.benchmark,
        fields=fields,
        design=definition.design({key: value for key, value in chosen.items() if key not in stale})
        if replanned
        else None,
        owner=locked.owner,
        sample=ItemSampling(
            method=fields.get("item_sampling", locked.item_sampling),
            size=fields.get("sample_size", locked.sample_size),
            seed=fields.get("sample_seed", locked.sample_seed),
        ),
        problems_named=False,
    )
    fields = checked.fields
    if checked.plan is not None:
        plan = checked.plan
        locked.units.all().delete()
        units_create(study=locked, plan=plan)
        locked.sample_pool = plan.available
        changed.append("sample_pool")
        locked.design, locked.attention_checks = plan.design, plan.attention_checks
        locked.exclude_at = int(plan.design.get("exclude_at", 0))
        changed += ["design", "attention_checks", "exclude_at"]
    if following and "estimated_minutes" not in fields and "reward_pence" not in fields:
        # the time and reward follow the design until the researcher gives their own
        fields = {**fields, "estimated_minutes": None, "reward_pence": None}
    fields = practice_added(
        {**fields, "practice_drawn": drawn}, benchmark=locked.benchmark, design=locked.design, seed=locked.sample_seed
    )
    for key, value in fields.items():
        setattr(locked, key, value)
        changed.append(key)
    estimate = study_estimate(locked)
    locked.estimated_minutes, locked.reward_pence = followed_pay(
        estimate, locked.estimated_minutes, locked.reward_pence
    )
    refusal = pay_refusal(locked.reward_pence, locked.estimated_minutes, estimate, locked.panel)
    if refusal:
        raise StudyError(refusal)
    locked.consent_text = locked.consent_text or definition.default_consent
    locked.instructions_text = locked.instructions_text or definition.default_instructions
    changed += ["consent_text", "instructions_text"]
    from studies.design.power import study_power  # numpy: loaded when a draft's design is saved

    locked.power_analysis = study_power(locked)
    changed.append("power_analysis")
    # `pseudonyms_issued` is never written from this copy (see `study_update`)
    locked.save(update_fields=sorted(set(changed)))
    results_changed(study_ids=[locked.pk])
    return locked


def _resolved_keys(benchmark: str) -> set[str]:
    """The keys `resolve_design` adds to a design from the benchmark's imported assets."""
    definition = benchmarks.get(benchmark)
    assets = {key: definition_asset(benchmark, key) for key in definition.design_assets}
    plain = definition.design()
    return set(definition.resolve_design(plain, assets)) - set(plain)


def _copy_name(name: str) -> str:
    """`name (copy)`, or `name (copy 2)`, ... : the first such name no study has."""
    limit = Study._meta.get_field("name").max_length or 200
    for number in range(1, 1000):
        suffix = " (copy)" if number == 1 else f" (copy {number})"
        candidate = name[: limit - len(suffix)] + suffix
        if not Study.objects.filter(name=candidate).exists():
            return candidate
    raise StudyError(f"{name!r} has been copied too often; rename a copy first")


@transaction.atomic
def study_duplicate(*, study: Study, owner: Any) -> Study:
    """A new draft owned by `owner`, from `study`: its texts, time, reward, group and design, its
    units built again from the imported items as the design says, under a new name ("X (copy)"),
    a new link and new completion codes. The participants, their answers, the collaborators and
    the Prolific study stay with the original. An imported study (a published study's answers)
    has no design to recruit with and is refused."""
    if study.is_imported:
        raise StudyError("An imported study holds a published study's answers; create a new study instead.")
    return study_create(
        name=_copy_name(study.name),
        public_title=study.public_title,
        benchmark=study.benchmark,
        design=study.design,
        status=Study.Status.DRAFT,
        group=study.group,
        owner=owner,
        pid_format=study.pid_format,
        panel=study.panel,
        panel_settings=study.panel_settings,
        language=study.language,
        consent_text=study.consent_text,
        instructions_text=study.instructions_text,
        failed_attention_code=new_code(),
        no_consent_code=new_code() if study.no_consent_code else "",
        estimated_minutes=study.estimated_minutes,
        reward_pence=study.reward_pence,
        reservation_timeout_minutes=study.reservation_timeout_minutes,
        min_answer_ms=study.min_answer_ms,
        closing_questions=list(study.closing_questions),
        explanations=study.explanations,
        explanation_every=study.explanation_every,
        explanation_prompt=study.explanation_prompt,
        population=study.population,
        ethics_body=study.ethics_body,
        ethics_reference=study.ethics_reference,
        ethics_exemption=study.ethics_exemption,
        paper_title=study.paper_title,
        paper_url=study.paper_url,
        paper_venue=study.paper_venue,
        prolific_filters=dict(study.prolific_filters),
        item_sampling=study.item_sampling,
        sample_size=study.sample_size,
        sample_seed=study.sample_seed,
        practice_questions=list(study.practice_questions),
        comprehension_questions=list(study.comprehension_questions),
        comprehension_tries=study.comprehension_tries,
    )
