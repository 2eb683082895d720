"""The cross-study table: each study's headline numbers, for all studies in a fixed number of queries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from parity.stats import accuracy_summary, agreement_by_unit, kappa_across_units, krippendorff_alpha
from results.assemble import N_BOOT, SEED, interval, mean_or_none, participants_section
from results.forms import ResultFilters
from results.rows import human_ratings, human_rows, model_item_scores, run_rows
from results.selectors import load_studies_data
from studies.models import Study


def study_headlines(studies: Iterable[Study], *, n_boot: int = N_BOOT) -> list[dict[str, Any]]:
    """Per study: participants, human accuracy (mean, 95% CI), mean pairwise kappa, alpha, and the
    best model run's accuracy and its difference to the human mean; by benchmark, then newest."""
    everything = load_studies_data(studies)
    filters = ResultFilters()
    rows = []
    for data in everything.values():
        ratings = human_ratings(data, human_rows(data, filters))
        accuracy = accuracy_summary(ratings, n_boot=n_boot, seed=SEED)
        models = []
        for run in data.runs:
            scores = model_item_scores(data, run_rows(data, run, filters))
            models.append((mean_or_none(list(scores.values())), run.label))
        best = max(((acc, label) for acc, label in models if acc is not None), default=(None, None))
        rows.append(
            {
                "study": data.study,
                "benchmark": data.study.benchmark,
                "participants": participants_section(data, filters),
                "n_items": len({r.item for r in ratings}),
                "human_accuracy": accuracy.mean,
                "human_ci95": interval(accuracy.ci_low, accuracy.ci_high),
                "human_best": accuracy.best,
                "human_worst": accuracy.worst,
                "kappa": kappa_across_units(agreement_by_unit(ratings)).mean,
                "alpha": krippendorff_alpha(ratings),
                "n_model_runs": len(data.runs),
                "best_model": best[1],
                "best_model_accuracy": best[0],
                "best_model_gap": (
                    best[0] - accuracy.mean if best[0] is not None and accuracy.mean is not None else None
                ),
            }
        )
    rows.sort(key=lambda row: row["benchmark"])
    return rows
