"""A study's results as one typed tree (`results.computing.tree.StudyResults`): humans, units, models and
breakdowns.

The numbers come from `parity.stats`; this module only chooses which rows go in. Fractions are in
[0, 1]; an undefined number is None (JSON null), never NaN. The page, the `study_results` command,
the API and the paper tables all read this one tree; `study_results` gives its JSON.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from parity.stats import (
    CONFIDENCE_SEQUENCE,
    AccuracySummary,
    AgreementSummary,
    accuracy_across_units,
    accuracy_by_unit,
    accuracy_summary,
    agreement_by_unit,
    bootstrap_mean_ci,
    fleiss_kappa,
    icc2k,
    icc2k_by_blocks,
    kappa_across_units,
    krippendorff_alpha,
    label_matrix,
    model_vs_humans,
    paired_gap,
    percent_agreement,
    summarise_participants,
)
from parity.stats.agreement_ci import agreement_intervals, calibration_note, pairwise_kappa_interval
from parity.stats.bootstrap import shared_resamples
from parity.stats.icc_ci import calibration_note as icc_calibration_note
from parity.stats.icc_ci import icc_interval
from parity.stats.intervals import FIXED_WIDTH
from parity.stats.recruitment import CI_WIDTH, PLANNED_LOOKS
from parity.stats.results import finite_or_none
from parity.stats.table import UNSCORED, RatingTable, distinct
from results.computing.breakdowns import breakdowns
from results.computing.comparison import comparison_sections
from results.computing.demographics import closing_summary
from results.computing.gold_errors import possible_gold_errors
from results.computing.methods import methods_section
from results.computing.robustness import robustness_section
from results.computing.rows import (
    averaged_item_scores,
    human_ratings,
    human_rows,
    model_item_scores,
    model_ratings,
    run_rows,
    selected_runs,
)
from results.computing.tree import (
    AnnotatorAccuracy,
    GenerativeScore,
    Graded,
    Human,
    HumanAccuracy,
    ModelResults,
    Participants,
    StudyResults,
    UnitAnnotator,
    UnitResults,
)
from results.loading.filters import ResultFilters
from results.loading.study_data import ModelAnswer, RunInfo, StudyData, UnitInfo
from studies.models import Participant

#: bootstrap resamples and seed for every CI of a results page (the same numbers on every call)
N_BOOT = 10_000
SEED = 0


def interval(low: float | None, high: float | None) -> list[float | None] | None:
    return None if low is None or high is None else [low, high]


def mean_or_none(values: list[float]) -> float | None:
    return finite_or_none(sum(values) / len(values)) if values else None


# -- the sections -------------------------------------------------------------------------------


def participants_section(data: StudyData, filters: ResultFilters) -> Participants:
    """The participants with an answer, included or excluded, and how many imported; and everyone
    still working, with an answer or not yet."""
    columns = data.columns
    answered = np.flatnonzero(np.bincount(columns.participant, minlength=len(columns.participants))).tolist()
    people = [columns.participants[p] for p in answered]
    if filters.unit:
        people = [p for p in people if p.unit == filters.unit]
    flagged_left_out = None
    if filters.flagged == "exclude":
        # left out of every figure below, whatever their status, and counted apart
        kept = [person for person in people if person.participant_id not in data.flagged_participants]
        flagged_left_out = len(people) - len(kept)
        people = kept
    # still working, with an answer or not yet (on the consent, the instructions, a first sentence):
    # the monitor's "working" (the sweep of the reservation timeout aside)
    working = [person for person in data.everyone if person.status == Participant.Status.ACTIVE and not person.excluded]
    return Participants(
        included=sum(not person.excluded and person.status == Participant.Status.COMPLETED for person in people),
        excluded=sum(person.excluded for person in people),
        in_progress=sum(not filters.unit or person.unit == filters.unit for person in working),
        flagged_left_out=flagged_left_out,
        imported=sum(person.is_imported for person in people),
    )


def recruited_until_precise(data: StudyData) -> bool:
    """Whether the study recruits until the interval of human accuracy is narrow enough."""
    return data.recruitment is not None and data.recruitment.target_kind == CI_WIDTH


def in_completion_order(overall: AccuracySummary, data: StudyData) -> AccuracySummary:
    """Human accuracy with the interval a "ci_width" recruitment stopped on: the confidence sequence
    over the participants in the order they completed (`parity.stats.recruitment.precision_interval`),
    or, for a study recruited by planned looks, the mean ± half the target (`parity.stats.looks`).
    A t-interval at a stop chosen because it was narrow covers less than 95%; either of these covers
    at the rule's stop. The participants stay listed as they were."""
    recruitment = data.recruitment
    if recruitment is not None and recruitment.target_rule == PLANNED_LOOKS and recruitment.target_value:
        summary = summarise_participants(
            overall.participants,
            confidence=overall.confidence,
            ci_method=FIXED_WIDTH,
            width=recruitment.target_value,
        )
        return replace(summary, participants=overall.participants)
    finished = {
        p.annotator: (p.completed_at is None, p.completed_at, p.participant_id) for p in data.columns.participants
    }
    ordered = sorted(overall.participants, key=lambda p: finished[p.annotator])
    summary = summarise_participants(ordered, confidence=overall.confidence, ci_method=CONFIDENCE_SEQUENCE)
    return replace(summary, participants=overall.participants)


def headline_accuracy(data: StudyData, ratings: RatingTable, *, n_boot: int) -> AccuracySummary:
    """Human accuracy as the headline gives it: over annotators, with the interval the study's
    recruitment calls for."""
    overall = accuracy_summary(ratings, n_boot=n_boot, seed=SEED)
    return in_completion_order(overall, data) if recruited_until_precise(data) else overall


def human_section(
    data: StudyData,
    ratings: RatingTable,
    units: list[AccuracySummary],
    agreement: list[AgreementSummary],
    *,
    n_boot: int,
) -> Human:
    overall = headline_accuracy(data, ratings, n_boot=n_boot)
    kappas = kappa_across_units(agreement)
    matrix = label_matrix(ratings)
    agreement_cis = agreement_intervals(matrix)
    kappa_ci = pairwise_kappa_interval(ratings)
    icc_ci = icc_interval(ratings, scores=data.answer_scale) if data.is_graded else None
    return Human(
        n_annotators=overall.n_participants,
        n_items=distinct(ratings.item),
        # the items the accuracy is over: those with a right answer
        n_items_scored=distinct(ratings.item[ratings.correct != UNSCORED]),
        n_answers=len(ratings),
        accuracy=HumanAccuracy(
            mean=overall.mean,
            best=overall.best,
            worst=overall.worst,
            std=overall.std,
            ci95=interval(overall.ci_low, overall.ci_high),
            # a t-interval over annotators (parity.stats.intervals), flagged below ten of them; for a
            # study recruited until it was narrow enough, the confidence sequence the rule stopped on
            ci_method=overall.ci_method,
            small_n_warning=overall.small_n_warning,
            # near the ceiling with fewer than thirty of them the t-interval may be too narrow
            ci_note=overall.ci_note,
            per_annotator=[
                AnnotatorAccuracy(annotator=p.annotator, unit=p.unit, n=p.n_scored, accuracy=p.accuracy)
                for p in overall.participants
            ],
        ),
        # Ruis et al.'s Table 7 "Total" row: unit means, bests and worsts averaged over units.
        accuracy_across_units=accuracy_across_units(units),
        cohen_kappa_mean_pairwise=kappas.mean,
        cohen_kappa_mean_pairwise_ci95=kappa_ci.mean_pairwise_kappa_ci95,
        cohen_kappa_ci_note=kappa_ci.note or calibration_note(),
        cohen_kappa_std_across_units=kappas.std,
        fleiss_kappa=fleiss_kappa(matrix),
        krippendorff_alpha=krippendorff_alpha(matrix),
        fleiss_kappa_ci95=agreement_cis.fleiss_kappa_ci95,
        krippendorff_alpha_ci95=agreement_cis.krippendorff_alpha_ci95,
        agreement_ci_note=agreement_cis.note or calibration_note(),
        percent_agreement=percent_agreement(matrix),
        # per block of the same raters (`icc2k_by_blocks`): a pooled matrix would drop every answer
        # that some rater did not grade
        icc2k=icc2k_by_blocks(ratings, scores=data.answer_scale).icc if data.is_graded else None,
        icc2k_ci95=icc_ci.icc_ci95 if icc_ci else None,
        icc_ci_note=(icc_ci.note or icc_calibration_note()) if icc_ci else None,
        graded=data.is_graded,
    )


def graded_section(data: StudyData, ratings: RatingTable) -> Graded:
    """A rating study (MiQA's generative task): ICC(2,k) over blocks of answers graded by the same
    raters (see `icc2k_by_blocks`), and each model's generative score: per answer the mean of its
    grades (correct 1, ambiguous 0.5, wrong 0), averaged over the model's answers."""
    scale = data.answer_scale
    blocks = icc2k_by_blocks(ratings, scores=scale)
    interval = icc_interval(ratings, scores=scale)
    grades: dict[str, list[float]] = defaultdict(list)
    for rating in ratings.ratings():
        if rating.answer is not None and rating.answer in scale:
            grades[rating.item].append(scale[rating.answer])
    per_model: dict[str, list[float]] = defaultdict(list)
    for key, values in grades.items():
        per_model[data.study.definition.graded_subject(data.items[key].meta)].append(sum(values) / len(values))
    return Graded(
        icc_form="ICC(2,k): two-way random effects, absolute agreement, mean of k raters (Shrout & Fleiss 1979)",
        icc2k=blocks.icc,
        icc2k_ci95=interval.icc_ci95,
        icc_ci_method=interval.method,
        icc_ci_note=interval.note or icc_calibration_note(),
        n_items=blocks.n_items,
        n_blocks=blocks.n_blocks,
        n_items_without_icc=blocks.n_items_without_icc,
        # the blocks with their own CIs (`icc_interval` groups the ratings as `icc2k_by_blocks` does)
        blocks=list(interval.blocks),
        generative_scores=[
            GenerativeScore(model=model, n_answers=len(values), score=mean_or_none(values))
            for model, values in sorted(per_model.items())
        ],
    )


def unit_results(
    data: StudyData,
    unit: UnitInfo,
    acc: AccuracySummary | None,
    agr: AgreementSummary | None,
    by_unit: Mapping[str | None, RatingTable],
) -> UnitResults:
    return UnitResults(
        unit=unit.label,
        category=unit.category or None,
        capacity=unit.capacity,
        n_annotators=acc.n_participants if acc else 0,
        n_items=agr.n_items if agr else 0,
        annotators=[
            UnitAnnotator(annotator=p.annotator, n=p.n_scored, accuracy=p.accuracy)
            for p in (acc.participants if acc else [])
        ],
        accuracy_mean=acc.mean if acc else None,
        accuracy_best=acc.best if acc else None,
        accuracy_worst=acc.worst if acc else None,
        accuracy_std=acc.std if acc else None,
        accuracy_ci95=interval(acc.ci_low, acc.ci_high) if acc else None,
        accuracy_ci_method=acc.ci_method if acc else None,
        small_n_warning=acc.small_n_warning if acc else False,
        accuracy_ci_note=acc.ci_note if acc else None,
        cohen_kappa_mean_pairwise=agr.mean_pairwise_kappa if agr else None,
        fleiss_kappa=agr.fleiss_kappa if agr else None,
        krippendorff_alpha=agr.krippendorff_alpha if agr else None,
        percent_agreement=agr.percent_agreement if agr else None,
        icc2k=(
            icc2k(by_unit[unit.label], scores=data.answer_scale).icc
            if data.is_graded and unit.label in by_unit
            else None
        ),
    )


def units_section(
    data: StudyData,
    ratings: RatingTable,
    units: list[AccuracySummary],
    agreements: list[AgreementSummary],
    filters: ResultFilters,
) -> list[UnitResults]:
    accuracy = {s.unit: s for s in units}
    agreement = {s.unit: s for s in agreements}
    by_unit = ratings.by_unit() if data.is_graded else {}
    return [
        unit_results(data, unit, accuracy.get(unit.label), agreement.get(unit.label), by_unit)
        for unit in data.units
        if not filters.unit or unit.label == filters.unit
    ]


def model_entry(
    data: StudyData, run: RunInfo, rows: list[ModelAnswer], humans: RatingTable, *, n_boot: int
) -> ModelResults:
    """A run on all the items it answered (`n_items_scored`, `accuracy`), and beside the humans on
    the items both answered (`n_items_same`, `accuracy_same_items`, `human_accuracy_same_items`,
    `gap_to_humans`): the gap is the difference of those two accuracies, never of the all-items one."""
    ratings = model_ratings(data, run, rows)
    scores = model_item_scores(data, rows)
    ci = bootstrap_mean_ci(list(scores.values()), n_boot=n_boot, seed=SEED) if scores else None
    # an item answered in several variants (MiQA's orders) enters with its mean over them
    same = paired_gap(scores, humans)
    # the agreement with the human majority (its gap repeats `same`)
    versus = model_vs_humans(ratings, humans)
    return ModelResults(
        run=run.id,
        model=run.model,
        setting=dict(run.setting),
        setting_key=run.setting_label,
        label=run.label,
        status=run.status,
        n_items=len(ratings),
        n_answers=len(rows),
        n_valid=sum(m.valid for m in rows),
        # all the items it answered with a right answer
        n_items_scored=len(scores),
        accuracy=mean_or_none(list(scores.values())),
        accuracy_ci95=interval(ci.low, ci.high) if ci else None,
        # MiQA: the decision on both presentations' log-likelihoods averaged, one per item
        accuracy_averaged_likelihood=mean_or_none(list(averaged_item_scores(data, rows).values())),
        # the items both answered
        n_items_same=same.n_items,
        accuracy_same_items=same.model_accuracy,
        human_accuracy_same_items=same.human_accuracy,
        gap_to_humans=same.gap,
        gap_ci95=interval(same.gap_ci_low, same.gap_ci_high),
        kappa_vs_human_majority=versus.kappa_vs_majority,
        agreement_with_human_majority=versus.agreement_with_majority,
        n_items_with_majority=versus.n_items_majority,
        n_tied_items=len(versus.tied_items),
        disagreements=list(versus.disagreements),
        constant_answer=constant_answer(rows),
    )


def constant_answer(rows: list[ModelAnswer]) -> str | None:
    """The one answer a run gave to each of two or more items it answered validly, or None."""
    given = {m.answer for m in rows if m.valid}
    items = {m.item_key for m in rows if m.valid}
    answer = next(iter(given)) if len(given) == 1 else None
    return answer if answer and len(items) >= 2 else None


def study_results_tree(data: StudyData, filters: ResultFilters | None = None, *, n_boot: int = N_BOOT) -> StudyResults:
    """Everything the results page shows, as one typed tree."""
    # the bootstraps of one size share their resamples (same seed, same draws)
    with shared_resamples():
        return _study_results(data, filters or ResultFilters(), n_boot=n_boot)


def _study_results(data: StudyData, filters: ResultFilters, *, n_boot: int) -> StudyResults:
    study = data.study
    humans = human_rows(data, filters)
    ratings = human_ratings(data, humans)
    runs = selected_runs(data, filters)
    rows_by_run = {run.id: run_rows(data, run, filters) for run in runs}
    units = accuracy_by_unit(ratings, n_boot=n_boot, seed=SEED)
    # the mean and count of each unit's pairs, not every pair (a unit of 1,000 people has half a million)
    agreement = agreement_by_unit(ratings, with_pairs=False)
    human = human_section(data, ratings, units, agreement, n_boot=n_boot)
    unit_rows = units_section(data, ratings, units, agreement, filters)
    if data.is_graded:
        # raters differ between units, so the pooled matrix is incomplete: report the units' mean too
        human = replace(
            human,
            icc2k_mean_across_units=mean_or_none([unit.icc2k for unit in unit_rows if unit.icc2k is not None]),
        )
    parts = breakdowns(data, humans, runs, rows_by_run, filters, n_boot=n_boot)
    # models among people: the joint IRT placement, the paired tests, the human band
    comparison = comparison_sections(data, ratings, runs, rows_by_run, seed=SEED)
    models = [model_entry(data, run, rows_by_run[run.id], ratings, n_boot=n_boot) for run in runs]
    gold_errors = possible_gold_errors(data, humans)
    return StudyResults(
        study=study.name,
        study_id=study.pk,
        benchmark=study.benchmark,
        status=study.status,
        is_imported=study.is_imported,
        filters=filters.as_query(),
        category_field=data.category_field,
        seed=SEED,
        n_boot=n_boot,
        participants=participants_section(data, filters),
        human=human,
        units=unit_rows,
        models=models,
        breakdowns=parts,
        irt=comparison.irt,
        irt_reason=comparison.irt_reason,
        paired=comparison.paired,
        human_band=comparison.human_band,
        graded=graded_section(data, ratings) if data.is_graded else None,
        closing=closing_summary(data, humans, n_boot=n_boot, seed=SEED),
        # the headline's own summary, over the rows of each other exclusion rule
        robustness=robustness_section(
            data,
            filters,
            runs,
            rows_by_run,
            summarise=lambda rows: headline_accuracy(data, rows, n_boot=n_boot),
            gold_errors={error.item for error in gold_errors},
        ),
        possible_gold_errors=gold_errors or None,
        headlines=study.definition.headline_results(parts.sections),
        # what a methods paragraph says (recruitment, pay, design, models, statistics): the report's source
        methods=methods_section(data, models, n_boot=n_boot, seed=SEED, human_ci_method=human.accuracy.ci_method),
    )
