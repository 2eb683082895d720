"""Whether the headline survives other exclusion choices (the Human Baselines checklist's 4.6): human
accuracy, its interval and each run's gap to the humans, as analysed and under each other rule.

The rules, each against the analysis (never combined):

- `attention_put_back`: the complete participants excluded with at least the study's number of failed
  attention checks (`Study.exclude_at`) counted in; their failures are read from their answers to
  the checks, not from the reason's words (translated, and free to edit);
- `hand_exclusions_put_back`: the complete participants excluded other than by the attention-check
  rule counted in: those a researcher excluded by hand (`studies.participants.decisions.participants_exclude`),
  their exclusion not explained by their failed checks. One excluded by hand who had also failed
  `exclude_at` checks is the attention rule's, which would have excluded them anyway;
- `failed_check_left_out`: the analysed participants who failed at least one attention check (fewer
  than the study's threshold, or any where it excludes no one by checks) left out: a careless person
  passes a few checks by chance often enough to stay in, and biases the human figures by their share
  times the people's distance from chance (perf/calibration's `excl-easy`); this row shows how far
  the headline moves without those most likely to be such;
- `flagged_left_out`: the participants flagged for review left out (`StudyData.flagged_participants`,
  what the page's "flagged" filter leaves out);
- `fast_answers_dropped`: the answers stored sooner than the study's answer floor
  (`Study.min_answer_ms`) dropped. Answers are refused under the floor as they come, so only those
  stored before the floor was raised fall under it; imported answers record no time and stay;
- `gold_errors_dropped`: the items every analysed person who answered them answered against the gold
  (`results.computing.gold_errors`) left out, the possible gold errors.

A rule enters only when it changes the rows the figures are over. The figures come from the same
functions as the headline's: the summary `summarise` (the headline's, with its interval) and
`paired_gap` for the runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

import numpy as np

from parity.stats import AccuracySummary, paired_gap
from parity.stats.table import RatingTable
from results.computing.rows import human_ratings, human_rows, model_item_scores
from results.computing.tree import Robustness, RobustnessRow, RunGapUnderRule
from results.loading.columns import HumanColumns
from results.loading.filters import ResultFilters
from results.loading.study_data import ModelAnswer, RunInfo, StudyData
from studies.models import Participant

#: the rules, in the order the table shows them
RULES = (
    "as_analysed",
    "attention_put_back",
    "hand_exclusions_put_back",
    "failed_check_left_out",
    "flagged_left_out",
    "fast_answers_dropped",
    "gold_errors_dropped",
)

Summarise = Callable[[RatingTable], AccuracySummary]
COMPLETED = Participant.Status.COMPLETED


def failed_checks(data: StudyData) -> dict[int, int]:
    """Each participant's failed attention checks, by id (read from their answers to the checks)."""
    columns = data.columns
    if not len(columns):
        return {}
    failed = columns.is_attention_check & ~columns.correct
    counts = np.bincount(columns.participant[failed], minlength=len(columns.participants)).tolist()
    return {person.participant_id: n for person, n in zip(columns.participants, counts, strict=True)}


def attention_excluded(data: StudyData, failures: Mapping[int, int]) -> frozenset[int]:
    """The ids of the complete participants excluded with at least `exclude_at` failed checks."""
    threshold = data.study.exclude_at
    if not threshold:
        return frozenset()
    return frozenset(
        person.participant_id
        for person in data.columns.participants
        if person.excluded and person.status == COMPLETED and failures.get(person.participant_id, 0) >= threshold
    )


def hand_excluded(data: StudyData, by_rule: frozenset[int]) -> frozenset[int]:
    """The ids of the complete participants excluded other than by the attention-check rule (`by_rule`): by hand."""
    return frozenset(
        person.participant_id
        for person in data.columns.participants
        if person.excluded and person.status == COMPLETED and person.participant_id not in by_rule
    )


def robustness_section(
    data: StudyData,
    filters: ResultFilters,
    runs: list[RunInfo],
    rows_by_run: Mapping[int, list[ModelAnswer]],
    *,
    summarise: Summarise,
    gold_errors: Collection[str] = (),
) -> Robustness | None:
    """The headline under each rule that changes its rows; None when none does."""
    analysed = human_rows(data, filters)
    candidates: list[tuple[str, HumanColumns, int]] = []
    failures = failed_checks(data)
    by_rule = attention_excluded(data, failures)
    put_back = human_rows(data, filters, put_back=by_rule)
    candidates.append(("attention_put_back", put_back, _people(put_back) - _people(analysed)))
    by_hand = human_rows(data, filters, put_back=hand_excluded(data, by_rule))
    candidates.append(("hand_exclusions_put_back", by_hand, _people(by_hand) - _people(analysed)))
    # those who failed a check and stayed in: the analysed among all who failed one
    careless = {participant for participant, n in failures.items() if n}
    attentive = analysed.take(
        analysed.per_participant([p.participant_id not in careless for p in analysed.participants], bool)
    )
    candidates.append(("failed_check_left_out", attentive, _people(analysed) - _people(attentive)))
    # data built in memory (a test's) has no stored participants whose flags could be read
    flagged = data.flagged_participants if data.participants is not None else frozenset()
    kept = analysed.per_participant([p.participant_id not in flagged for p in analysed.participants], bool)
    candidates.append(("flagged_left_out", analysed.take(kept), _people(analysed) - _people(analysed.take(kept))))
    floor = data.study.min_answer_ms
    if floor:
        timed = analysed.per_participant([not p.is_imported for p in analysed.participants], bool)
        fast = timed & (analysed.duration_ms < floor)
        candidates.append(("fast_answers_dropped", analysed.take(~fast), int(fast.sum())))
    if gold_errors:
        doubtful = analysed.per_item([item.key in gold_errors for item in analysed.items], bool)
        candidates.append(("gold_errors_dropped", analysed.take(~doubtful), len(gold_errors)))
    chosen = [(rule, rows, changed) for rule, rows, changed in candidates if len(rows) != len(analysed)]
    if not chosen:
        return None
    scores = {run.id: model_item_scores(data, rows_by_run[run.id]) for run in runs}
    table = [
        _row(data, rule, rows, changed, runs, scores, summarise)
        for rule, rows, changed in [("as_analysed", analysed, 0), *chosen]
    ]
    return Robustness(ci_method=table[0][0], answer_floor_ms=floor, rows=[row for _, row in table])


def rule_label(row: RobustnessRow, answer_floor_ms: int) -> str:
    """What a row's rule does, with its count (the table's row and the checklist's answer)."""
    n = row.n_changed
    if row.rule == "attention_put_back":
        return f"With the {n} excluded for failed attention checks put back in"
    if row.rule == "hand_exclusions_put_back":
        return f"With the {n} excluded by hand put back in"
    if row.rule == "failed_check_left_out":
        return f"Without the {n} who failed an attention check but stayed in"
    if row.rule == "flagged_left_out":
        return f"Without the {n} flagged for review"
    if row.rule == "fast_answers_dropped":
        return f"Without the {n} {'answer' if n == 1 else 'answers'} under the {answer_floor_ms} ms answer floor"
    if row.rule == "gold_errors_dropped":
        errors = "error" if n == 1 else "errors"
        return f"Without the {n} possible gold {errors} (items everyone answered against the gold)"
    return "As analysed"


def _people(rows: HumanColumns) -> int:
    return int(np.unique(rows.participant).size)


def _row(
    data: StudyData,
    rule: str,
    rows: HumanColumns,
    changed: int,
    runs: list[RunInfo],
    scores: Mapping[int, Mapping[str, float]],
    summarise: Summarise,
) -> tuple[str, RobustnessRow]:
    """The row and the name of its interval's method."""
    ratings = human_ratings(data, rows)
    summary = summarise(ratings)
    gaps = []
    for run in runs:
        same = paired_gap(scores[run.id], ratings)
        gaps.append(
            RunGapUnderRule(
                run=run.id,
                label=run.label,
                n_items=same.n_items,
                gap=same.gap,
                model_mean=same.model_accuracy,
            )
        )
    undefined = summary.ci_low is None or summary.ci_high is None
    return (
        summary.ci_method,
        RobustnessRow(
            rule=rule,
            n_changed=changed,
            n_annotators=summary.n_participants,
            n_answers=len(ratings),
            mean=summary.mean,
            ci95=None if undefined else [summary.ci_low, summary.ci_high],
            gaps=gaps,
        ),
    )
