"""The closing questions' table (`results.computing.demographics`): who the participants in the results
said they were, and human accuracy without those who said they used an AI tool. One of the paper
tables, so the results page and every report format show it."""

from __future__ import annotations

from parity.benchmarks.tables import Table, pct
from results.computing.tree import StudyResults
from results.presenting.wording import interval
from studies.design.closing_questions import QUESTIONS


def _answer_label(key: str, value: str) -> str:
    """A choice as the researcher's pages name it (English); a typed answer as counted."""
    labels = {choice: str(label) for choice, label in QUESTIONS[key].choices}
    return labels.get(value, value)


def closing_table(results: StudyResults) -> Table | None:
    closing = results.closing
    if closing is None:
        return None
    rows: list[list[str]] = []
    if closing.age is not None:
        age = closing.age
        rows.append(["Age", f"median {age.median:g} (range {age.low}–{age.high})", str(age.n)])
    for key, counts in closing.counts.items():
        name = {"gender": "Gender", "first_language": "First language", "education": "Education"}.get(key, "AI tool")
        for value, n in counts.items():
            rows.append([name, _answer_label(key, value), str(n)])
    summary_from = None
    if closing.ai_tool_answered is not None:
        summary_from = len(rows)
        rows.append(
            [
                "Said they used an AI tool",
                f"{closing.ai_tool_yes} of {closing.ai_tool_answered} ({pct(closing.ai_tool_yes_share)})",
                str(closing.ai_tool_answered),
            ]
        )
        without = closing.accuracy_without_ai_users
        if without is not None:
            rows.append(
                [
                    "Human accuracy without them",
                    f"{pct(without.mean)} {interval(without.ci95)} (all: {pct(results.human.accuracy.mean)})",
                    str(without.n_annotators),
                ]
            )
    return Table(
        "closing",
        "What the participants in the results said of themselves (closing questions)",
        ["Question", "Answer", "Participants"],
        rows,
        summary_from=summary_from,
        notes=(
            f"Over the {closing.n_participants} participants in the results, {closing.n_answered} of whom "
            "answered any closing question; every question was optional. The share who used an AI tool is of "
            'those who answered it other than "prefer not to say"; the accuracy without them is the mean '
            "over annotators with its 95% t-interval. Free feedback is not summarised.",
        ),
    )
