"""The exclusion-robustness table (`results.computing.robustness`): the headline human accuracy, its
interval and each run's gap to the humans, as analysed and under each other exclusion rule that
changes who or what is included. One of the paper tables, so the results page and every report
format show it."""

from __future__ import annotations

from parity.benchmarks.tables import Table, pct
from parity.stats import CI_METHOD_LABELS
from results.computing.robustness import rule_label
from results.computing.tree import StudyResults
from results.presenting.wording import interval


def _gap(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f} pp"


def robustness_table(results: StudyResults) -> Table | None:
    robustness = results.robustness
    if robustness is None:
        return None
    runs = [(gap.run, gap.label) for gap in robustness.rows[0].gaps]
    rows = []
    for row in robustness.rows:
        gaps = {gap.run: gap.gap for gap in row.gaps}
        rows.append(
            [
                rule_label(row, robustness.answer_floor_ms),
                str(row.n_annotators),
                str(row.n_answers),
                pct(row.mean),
                interval(row.ci95),
                *(_gap(gaps.get(run)) for run, _ in runs),
            ]
        )
    method = CI_METHOD_LABELS.get(robustness.ci_method, robustness.ci_method)
    notes = [
        "Each rule against the analysis, one at a time. People and answers: those each row's figures are over "
        f"(answers to the study's items, attention checks left out). Human accuracy: the mean over people, "
        f"with the headline's 95% interval ({method})."
    ]
    if runs:
        notes.append("Gap: the model minus these people, on the items both answered (percentage points).")
    return Table(
        "robustness",
        "The headline figures under other exclusion rules",
        ["Exclusion rule", "People", "Answers", "Human accuracy", "95% CI", *(f"Gap: {label}" for _, label in runs)],
        rows,
        notes=tuple(notes),
    )
