"""The cross-study table: each study's headline numbers, for all studies in a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from modelruns.models import ModelRun
from parity.stats import accuracy_summary, agreement_by_unit, kappa_across_units, krippendorff_alpha, paired_gap
from parity.stats.table import distinct
from results.computing.assemble import N_BOOT, SEED, constant_answer, interval, mean_or_none, participants_section
from results.computing.rows import human_ratings, human_rows, model_item_scores, run_rows
from results.computing.tree import Participants
from results.loading.filters import ResultFilters
from results.loading.study_data import HeadlinesData
from studies.models import Study


@dataclass(frozen=True)
class StudyHeadline:
    """One study's row of the cross-study table."""

    study: Study
    benchmark: str
    participants: Participants
    n_items: int
    human_accuracy: float | None
    human_ci95: list[float | None] | None
    #: fewer than ten annotators: the CI rests on few values
    human_small_n_warning: bool
    #: near the ceiling with fewer than thirty annotators: why the CI may be too narrow (None elsewhere)
    human_ci_note: str | None
    human_best: float | None
    human_worst: float | None
    kappa: float | None
    alpha: float | None
    #: the done runs (those in the results), then the runs still to come
    n_model_runs: int
    n_model_runs_running: int
    n_model_runs_queued: int
    best_model: str | None
    #: the one answer the best model gave to every item (None: its answers varied); it is then compared
    #: as a constant answerer
    best_model_constant: str | None
    best_model_accuracy: float | None
    best_model_n_items: int
    #: its gap to the humans on the items both answered, and their number
    best_model_gap: float | None
    best_model_n_items_same: int


def study_headlines(loaded: HeadlinesData, *, n_boot: int = N_BOOT) -> list[StudyHeadline]:
    """Per study: participants, human accuracy (mean, 95% CI), mean pairwise kappa, alpha, and the
    best model run's accuracy on all its items and its gap to the humans on the items both answered
    (with their number), and the one answer it gave where it gave the same to every item; by
    benchmark, then newest."""
    everything, active = loaded.studies, loaded.active_runs
    filters = ResultFilters()
    rows: list[StudyHeadline] = []
    for data in everything.values():
        ratings = human_ratings(data, human_rows(data, filters))
        accuracy = accuracy_summary(ratings, n_boot=n_boot, seed=SEED)
        # the runs with a score, each with the one answer it gave to every item (None where it varied)
        models: list[tuple[float, int, str, dict[str, float], str | None]] = []
        for run in data.runs:
            answers = run_rows(data, run, filters)
            scores = model_item_scores(data, answers)
            mean = mean_or_none(list(scores.values()))
            if mean is not None:
                models.append((mean, len(scores), run.label, scores, constant_answer(answers)))
        best = max(models, key=lambda model: model[0], default=None)
        # the gap is taken on the items both answered, not between the two all-items accuracies
        same = paired_gap(best[3], ratings) if best else None
        rows.append(
            StudyHeadline(
                study=data.study,
                benchmark=data.study.benchmark,
                participants=participants_section(data, filters),
                n_items=distinct(ratings.item),
                human_accuracy=accuracy.mean,
                human_ci95=interval(accuracy.ci_low, accuracy.ci_high),
                human_small_n_warning=accuracy.small_n_warning,
                human_ci_note=accuracy.ci_note,
                human_best=accuracy.best,
                human_worst=accuracy.worst,
                kappa=kappa_across_units(agreement_by_unit(ratings, with_pairs=False)).mean,
                alpha=krippendorff_alpha(ratings),
                n_model_runs=len(data.runs),
                n_model_runs_running=active.get((data.study.pk, ModelRun.Status.RUNNING), 0),
                n_model_runs_queued=active.get((data.study.pk, ModelRun.Status.QUEUED), 0),
                best_model=best[2] if best else None,
                best_model_constant=best[4] if best else None,
                best_model_accuracy=best[0] if best else None,
                best_model_n_items=best[1] if best else 0,
                best_model_gap=same.gap if same else None,
                best_model_n_items_same=same.n_items if same else 0,
            )
        )
    rows.sort(key=lambda row: row.benchmark)
    return rows
