"""The plain-data input of the stats package and the JSON-friendly output base.

A *ratings table* is a list of :class:`Rating` rows, one per annotator × item (a model is just
another annotator). Rows may also arrive as mappings with the same keys, e.g. straight from a
``.values()`` query or a CSV export; :func:`as_ratings` normalises both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias


@dataclass(frozen=True)
class Rating:
    annotator: str
    item: str
    # None when the annotator gave no answer (skipped, timed out, invalid output).
    answer: str | None = None
    # None when the answer is not scored against a gold label (e.g. rating studies).
    correct: bool | None = None
    # The assignment unit (implicature subset, AmbiBench episode, ...); None when undivided.
    unit: str | None = None


RatingLike: TypeAlias = Rating | Mapping[str, Any]


def as_ratings(rows: Iterable[RatingLike]) -> list[Rating]:
    """Accept Rating objects or mappings with Rating's keys (extra keys are ignored)."""
    ratings: list[Rating] = []
    for row in rows:
        if isinstance(row, Rating):
            ratings.append(row)
            continue
        correct = row.get("correct")
        unit = row.get("unit")
        answer = row.get("answer")
        ratings.append(
            Rating(
                annotator=str(row["annotator"]),
                item=str(row["item"]),
                answer=None if answer is None else str(answer),
                correct=_as_outcome(correct),
                unit=None if unit is None else str(unit),
            )
        )
    return ratings


def _as_outcome(value: Any) -> bool | None:
    # bool("False") is True: refuse text so a CSV round trip cannot flip wrong answers to right.
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise TypeError(f"correct must be a bool, 0/1 or None, got {value!r}")


def answers_by_annotator(ratings: Iterable[Rating]) -> dict[str, dict[str, str]]:
    """annotator -> item -> answer, leaving out missing answers.

    A repeated (annotator, item) pair is a data error upstream (the platform stores one answer
    per session and item), so it fails loudly instead of silently keeping one of the two.
    """
    table: dict[str, dict[str, str]] = defaultdict(dict)
    for rating in ratings:
        if rating.answer is None:
            continue
        answers = table[rating.annotator]
        if rating.item in answers:
            raise ValueError(f"annotator {rating.annotator!r} answered item {rating.item!r} twice")
        answers[rating.item] = rating.answer
    return dict(table)
