"""What a methods section says of a study, as the `methods` node of its results tree
(`results.computing.tree.Methods`).

Recruitment (Prolific, a study link, or a published study's answers imported), dates, who entered
and what became of them (exclusions counted by their recorded reason), the attention-check rule,
pay, the design, each model run's provenance and the statistics' settings. The report
(`results.presenting.report`) writes its methods paragraph from these numbers only, so the paragraph, the page
and `study_results --json` never disagree. Whole-study figures: the results' filters do not apply.
"""

from __future__ import annotations

from collections import Counter
from math import floor
from statistics import median
from typing import Any

from modelruns.models import INSPECT_SOURCE, LM_EVAL_SOURCE
from parity import panels
from parity.reporting.methods import CROSSED
from parity.stats import quality
from prolific.currency import currency_or_default
from results.computing.tree import (
    AttentionRule,
    CollectionDates,
    Design,
    DesignSetting,
    Entered,
    Ethics,
    ExclusionReason,
    Explanations,
    ItemSample,
    Methods,
    ModelResults,
    Paper,
    Pay,
    PlannedPower,
    Prescreening,
    ProlificRecruitment,
    Recruiting,
    Reporting,
    RunProvenance,
    SeenBefore,
    Spread,
    StatisticsSettings,
    TrainingPhase,
)
from results.loading.study_data import RunInfo, StudyData
from studies.design import explanations
from studies.models import Participant, Study

#: the CIs' level, as every interval of the results is computed
CI_LEVEL = 0.95
#: a design setting longer than this (a template's text) is left out of the methods
SETTING_CHARS = 40

Status = Participant.Status


def _platform(data: StudyData) -> str:
    if data.study.is_imported:
        return "imported"
    return "prolific" if data.recruitment is not None else "link"


def _panel(data: StudyData) -> str | None:
    """The panel that recruited, when another than Prolific (an imported study recruited no one)."""
    study = data.study
    if study.is_imported or study.panel == panels.PROLIFIC:
        return None
    return study.recruiting_panel.name


def _participants(data: StudyData) -> Entered:
    people = data.everyone
    statuses = Counter(person.status for person in people)
    excluded = [person for person in people if person.excluded]
    reasons = Counter(person.exclusion_reason or "no reason recorded" for person in excluded)
    return Entered(
        entered=len(people),
        imported=sum(person.is_imported for person in people),
        declined=statuses[Status.DECLINED],
        returned=statuses[Status.RETURNED],
        timed_out=statuses[Status.TIMED_OUT],
        in_progress=statuses[Status.ACTIVE],
        completed=statuses[Status.COMPLETED],
        excluded=len(excluded),
        exclusion_reasons=[ExclusionReason(reason=reason, n=n) for reason, n in sorted(reasons.items(), key=_most)],
        screened_out=statuses[Status.SCREENED_OUT],
    )


def _most(entry: tuple[str, int]) -> tuple[int, str]:
    return (-entry[1], entry[0])


def _day(moment: Any) -> str | None:
    return moment.date().isoformat() if moment is not None else None


def _dates(data: StudyData) -> CollectionDates:
    """The days (UTC) data collection began and ended: what a paper says, and no participant's time."""
    people = [person for person in data.everyone if not person.is_imported]
    starts = [person.started_at for person in people if person.started_at is not None]
    ends = [person.completed_at for person in people if person.completed_at is not None]
    return CollectionDates(first_start=_day(min(starts, default=None)), last_completion=_day(max(ends, default=None)))


def _pay(data: StudyData) -> Pay:
    study = data.study
    seconds = [
        (person.completed_at - person.started_at).total_seconds()
        for person in data.everyone
        if not person.is_imported and person.completed_at is not None and person.started_at is not None
    ]
    middle = median(seconds) if seconds else None
    return Pay(
        reward_pence=study.reward_pence,
        estimated_minutes=study.estimated_minutes,
        estimated_hourly_pence=quality.hourly_pence(study.reward_pence, study.estimated_minutes * 60),
        median_minutes=middle / 60 if middle is not None else None,
        median_hourly_pence=quality.hourly_pence(study.reward_pence, middle),
        bonus_per_correct_pence=data.recruitment.bonus_per_correct_pence if data.recruitment else 0,
        # the Prolific workspace's currency, every amount above in its smallest unit (Prolific's
        # default, GBP, until Parity has read it)
        currency=currency_or_default(data.recruitment.currency if data.recruitment else "")
        if study.panel == panels.PROLIFIC
        else study.recruiting_panel.currency,
    )


def _design(data: StudyData) -> Design:
    study = data.study
    per_unit = Counter(unit for item in data.items.values() if not item.is_attention_check for unit in item.units)
    sizes = [per_unit.get(unit.label, 0) for unit in data.units]
    capacities = [unit.capacity for unit in data.units]
    labels = {option.key: option.label for option in study.definition.design_options}
    return Design(
        benchmark=study.benchmark,
        benchmark_title=study.definition.title,
        n_units=len(data.units),
        n_items=sum(1 for item in data.items.values() if not item.is_attention_check),
        items_per_participant=Spread(min=min(sizes, default=0), max=max(sizes, default=0)),
        participants_per_unit=Spread(min=min(capacities, default=0), max=max(capacities, default=0)),
        settings=[
            DesignSetting(key=key, label=labels.get(key, key.replace("_", " ")), value=value)
            for key, value in sorted(study.design.items())
            if isinstance(value, (int, float, bool)) or isinstance(value, str) and len(value) <= SETTING_CHARS
        ],
    )


def run_provenance(run: RunInfo) -> RunProvenance:
    """A run's model as a methods section names it: the requested revision, or the one the engine
    resolved when none was asked for; an imported run names its source file (and an Inspect log
    the version of Inspect that wrote it). An Inspect run's precision is not in its log: none is named."""
    identity = run.identity
    source = identity.get("source")
    imported = source in (LM_EVAL_SOURCE, INSPECT_SOURCE)
    inspect = source == INSPECT_SOURCE
    return RunProvenance(
        run=run.id,
        label=run.label,
        model=run.model,
        model_id=run.model_id or str(identity.get("model_id", "")),
        revision=run.revision or str(identity.get("revision", "") or ""),
        dtype=str(identity.get("dtype", "")) if inspect else run.dtype or str(identity.get("dtype", "")),
        kind=run.kind,
        setting=run.setting_label,
        source=str(source) if imported else "parity",
        # a log Parity's worker wrote (and did not keep) is no file a reader could look up
        samples_file=identity.get("file") if imported and not identity.get("ran_here") else None,
        engine_version=str(identity.get("engine_version", "")) if not imported else None,
        source_version=str(identity.get("inspect_version", "")) if inspect else None,
    )


def _prolific(data: StudyData) -> ProlificRecruitment | None:
    recruitment = data.recruitment
    if recruitment is None:
        return None
    return ProlificRecruitment(
        places=recruitment.places,
        status=recruitment.status,
        target_kind=recruitment.target_kind,
        target_value=recruitment.target_value,
    )


def methods_section(
    data: StudyData, models: list[ModelResults], *, n_boot: int, seed: int, human_ci_method: str
) -> Methods:
    """The study's methods facts; `models` the runs shown, with the statistics' settings and the
    human CI's method."""
    study = data.study
    runs = {run.id: run for run in data.runs}
    return Methods(
        panel=_panel(data),
        platform=_platform(data),
        prolific=_prolific(data),
        dates=_dates(data),
        participants=_participants(data),
        attention=AttentionRule(
            checks_per_participant=study.attention_checks,
            exclude_at=study.exclude_at,
            answer_floor_ms=study.min_answer_ms,
        ),
        pay=_pay(data),
        design=_design(data),
        models=[run_provenance(runs[model.run]) for model in models if model.run in runs],
        statistics=StatisticsSettings(
            ci_level=CI_LEVEL, n_boot=n_boot, seed=seed, human_ci_method=human_ci_method, gap_ci_method=CROSSED
        ),
        # entered by the researchers while drafting, and the design's power analysis (studies.design.power)
        reporting=Reporting(
            population=study.population,
            ethics=Ethics(body=study.ethics_body, reference=study.ethics_reference, exemption=study.ethics_exemption),
            paper=Paper(title=study.paper_title, url=study.paper_url, venue=study.paper_venue),
            # as the study keeps it (`studies.design.power.design_power`), read into its node
            power=PlannedPower.from_json(study.power_analysis) if study.power_analysis else None,
        ),
        recruiting=_recruiting(data),
        training=_training(data),
        explanations=_explanations(data),
    )


def _explanations(data: StudyData) -> Explanations:
    study, counts = data.study, data.explanations
    return Explanations(
        mode=study.explanations,
        every=study.explanation_every if study.explanations == Study.Explanations.NTH else None,
        asked=explanations.describe(study),
        given=counts.given,
        people=counts.people,
        # where a replication bundle holds them (`replication.parts`)
        file="humans/participants.jsonl" if study.explanations == Study.Explanations.END else "humans/answers.jsonl",
    )


def _recruiting(data: StudyData) -> Recruiting:
    study = data.study
    drawn = sum(1 for item in data.items.values() if not item.is_attention_check)
    # the pool the subset was drawn from, counted when the units were built (older studies: none)
    available = study.sample_pool if study.item_sampling != "all" and study.sample_pool else drawn
    seen: SeenBefore | None = None
    if "seen_before" in study.closing_questions:
        answers = Counter(person.seen_before for person in data.everyone if not person.is_imported)
        seen = SeenBefore(yes=answers["yes"], no=answers["no"])
    return Recruiting(
        # as the study stores it (`studies.design.screening.Screening.to_json`), read into its node
        prescreening=Prescreening.from_json(study.prolific_filters),
        refused_earlier_participation=len(study.refused_earlier),
        items=ItemSample(
            method=study.item_sampling,
            drawn=drawn,
            available=available,
            seed=study.sample_seed if study.item_sampling != "all" else None,
        ),
        seen_before=seen,
    )


def _training(data: StudyData) -> TrainingPhase | None:
    """The training's figures over the people who began it; None for a study without one."""
    study = data.study
    if not study.practice_questions and not study.comprehension_questions:
        return None
    trained = [(person, person.training) for person in data.everyone if person.training is not None]
    seconds = [training.seconds for _, training in trained if training.seconds is not None]
    middle = median(seconds) / 60 if seconds else None
    return TrainingPhase(
        practice_questions=len(study.practice_questions),
        comprehension_questions=len(study.comprehension_questions),
        comprehension_tries=study.comprehension_tries,
        began=len(trained),
        finished=len(seconds),
        screened_out=sum(1 for person, _ in trained if person.status == Status.SCREENED_OUT),
        practice_answered=sum(training.practice_answered for _, training in trained),
        practice_right=sum(training.practice_right for _, training in trained),
        median_minutes=middle,
        # the reward pays the estimated minutes: the training's median time at that rate, to the penny (half up)
        median_pay_pence=floor(study.reward_pence * middle / study.estimated_minutes + 0.5)
        if middle is not None
        else None,
    )
