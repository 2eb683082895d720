"""Ratings as columns: one integer array per field instead of one object per rating.

The statistics accept a `RatingTable` wherever they accept ratings, and turn a list of ratings into
one first (a single pass). Names (annotators, items, labels, units) are kept once, in tuples the
arrays index; a table cut from another (`take`) shares them, so the orders the statistics report
in — annotators, items and units in the order they first appear — are read from the arrays
(`first_seen`), never from the tuples.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from parity.stats.ratings import Rating, RatingLike, as_ratings

#: the label code of "no answer"
NO_LABEL = -1
#: the outcome code of "not scored"
UNSCORED = -1


def first_seen(codes: np.ndarray) -> np.ndarray:
    """The distinct values of `codes` (codes: small non-negative integers) in the order they first
    appear; in one pass, where sorting a million rows would take longer than all the rest."""
    if codes.size == 0:
        return codes[:0]
    first = np.full(int(codes.max()) + 1, codes.size, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(codes.size))
    present = np.flatnonzero(first < codes.size)
    return present[np.argsort(first[present], kind="stable")]


def distinct(codes: np.ndarray) -> int:
    """How many distinct values `codes` (small non-negative integers) hold."""
    return int(np.count_nonzero(np.bincount(codes))) if codes.size else 0


@dataclass(frozen=True)
class RatingTable:
    """Row r: annotator ``annotators[annotator[r]]`` rated item ``items[item[r]]`` with label
    ``labels[label[r]]`` (`NO_LABEL`: no answer), scored ``correct[r]`` (1 right, 0 wrong,
    `UNSCORED`), in unit ``units[unit[r]]``."""

    annotators: tuple[str, ...]
    items: tuple[str, ...]
    labels: tuple[str, ...]
    units: tuple[str | None, ...]
    annotator: np.ndarray
    item: np.ndarray
    label: np.ndarray
    correct: np.ndarray
    unit: np.ndarray

    def __len__(self) -> int:
        return int(self.annotator.size)

    def take(self, rows: np.ndarray) -> RatingTable:
        """The rows a boolean mask or an index array selects, in their order."""
        return RatingTable(
            self.annotators,
            self.items,
            self.labels,
            self.units,
            self.annotator[rows],
            self.item[rows],
            self.label[rows],
            self.correct[rows],
            self.unit[rows],
        )

    def by_unit(self) -> dict[str | None, RatingTable]:
        """The rows of each unit, units in the order they first appear."""
        return {self.units[code]: self.take(self.unit == code) for code in first_seen(self.unit).tolist()}

    def ratings(self) -> list[Rating]:
        labels, outcomes = (*self.labels, None), {1: True, 0: False, UNSCORED: None}
        return [
            Rating(self.annotators[a], self.items[i], labels[label], outcomes[correct], self.units[unit])
            for a, i, label, correct, unit in zip(
                self.annotator.tolist(),
                self.item.tolist(),
                self.label.tolist(),
                self.correct.tolist(),
                self.unit.tolist(),
            )
        ]


def _codes(values: Iterable[object], names: dict) -> np.ndarray:
    return np.fromiter((names.setdefault(value, len(names)) for value in values), dtype=np.int64)


def rating_table(ratings: Iterable[RatingLike] | RatingTable) -> RatingTable:
    """The table of `ratings` (a table is returned as it is)."""
    if isinstance(ratings, RatingTable):
        return ratings
    rows = as_ratings(ratings)
    annotators: dict[str, int] = {}
    items: dict[str, int] = {}
    labels: dict[str, int] = {}
    units: dict[str | None, int] = {}
    label = np.fromiter(
        (NO_LABEL if r.answer is None else labels.setdefault(r.answer, len(labels)) for r in rows), dtype=np.int64
    )
    annotator = _codes((r.annotator for r in rows), annotators)
    item = _codes((r.item for r in rows), items)
    unit = _codes((r.unit for r in rows), units)
    return RatingTable(
        annotators=tuple(annotators),
        items=tuple(items),
        labels=tuple(labels),
        units=tuple(units),
        annotator=annotator,
        item=item,
        label=label,
        correct=np.fromiter((UNSCORED if r.correct is None else int(r.correct) for r in rows), dtype=np.int8),
        unit=unit,
    )


def rating_list(ratings: Iterable[RatingLike] | RatingTable) -> list[Rating]:
    """`ratings` as `Rating` objects, for the statistics that read them one by one."""
    return ratings.ratings() if isinstance(ratings, RatingTable) else as_ratings(ratings)
