"""The possible gold errors (`results.computing.gold_errors`): each item every analysed person who
answered it answered against the gold, with the count of people and their answers, and under the
table the headline figures with and without these items (the exclusion robustness table's rows). One
of the paper tables, so the results page and every report format show it."""

from __future__ import annotations

from parity.benchmarks.tables import Table, pct
from results.computing.gold_errors import MIN_PEOPLE
from results.computing.tree import RobustnessRow, StudyResults

#: an item's text in the table is cut at this many characters
TEXT_CHARACTERS = 120


def _text(text: str) -> str:
    return text if len(text) <= TEXT_CHARACTERS else text[: TEXT_CHARACTERS - 1] + "…"


def _figures(row: RobustnessRow) -> list[str]:
    said = [f"human accuracy {pct(row.mean)}"]
    for gap in row.gaps:
        model = "" if gap.model_mean is None else f"{gap.label} {pct(gap.model_mean)}, "
        said.append(f"{model}gap {'—' if gap.gap is None else f'{100 * gap.gap:+.1f} pp'}")
    return said


def gold_errors_table(results: StudyResults) -> Table | None:
    errors = results.possible_gold_errors
    if not errors:
        return None
    rows = [
        [
            _text(error.text) or error.item,
            error.gold,
            str(error.n_people),
            ", ".join(f"{answer} ({n})" for answer, n in error.answers.items()),
        ]
        for error in errors
    ]
    notes = [
        f"The items every analysed person who answered them answered against the gold, where at least {MIN_PEOPLE} "
        "did: the gold may be wrong. People: those who answered the item; their answers with how many gave each."
    ]
    robustness = results.robustness
    analysed = robustness.row("as_analysed") if robustness else None
    without = robustness.row("gold_errors_dropped") if robustness else None
    if analysed is not None and without is not None:
        notes.append(
            f"With these {len(errors)} items: {'; '.join(_figures(analysed))}. "
            f"Without them: {'; '.join(_figures(without))}."
        )
    return Table(
        "possible_gold_errors",
        "Possible gold errors: items every person answered against the gold",
        ["Item", "Gold", "People", "Their answers"],
        rows,
        notes=tuple(notes),
    )
