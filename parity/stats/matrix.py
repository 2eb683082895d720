"""A ratings table as arrays: one annotators × items matrix of label codes, built in one pass.

The agreement statistics read this matrix instead of dictionaries of dictionaries, so that their
cost is a few array operations however many people answered (see `agreement.pairwise_kappa_table`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from parity.stats.ratings import RatingLike
from parity.stats.table import NO_LABEL, RatingTable, first_seen, rating_table

#: the code of "no answer" in `LabelMatrix.codes`
MISSING = -1


@dataclass(frozen=True)
class LabelMatrix:
    """The answered ratings: ``codes[a, i]`` is the index in ``labels`` of annotator a's answer to
    item i, or `MISSING`. Annotators and items are in first-seen order of the ratings with an
    answer (those without one are left out, as `ratings.answers_by_annotator` leaves them out),
    labels sorted."""

    annotators: tuple[str, ...]
    items: tuple[str, ...]
    labels: tuple[str, ...]
    codes: np.ndarray

    @property
    def answered(self) -> np.ndarray:
        return self.codes != MISSING

    def one_hot(self, label: int) -> np.ndarray:
        """1.0 where an annotator gave `label` to an item (annotators × items, float64: the counts
        built from it by matrix products stay exact integers)."""
        return (self.codes == label).astype(np.float64)

    def item_counts(self) -> np.ndarray:
        """items × labels: how many annotators gave each label to each item."""
        counts = np.zeros((len(self.items), len(self.labels)), dtype=np.int64)
        for label in range(len(self.labels)):
            counts[:, label] = (self.codes == label).sum(axis=0)
        return counts


def label_matrix(ratings: Iterable[RatingLike] | RatingTable | LabelMatrix) -> LabelMatrix:
    """The matrix of `ratings` (a matrix is returned as it is).

    A repeated (annotator, item) answer is a data error upstream (the platform stores one answer
    per session and item), so it fails loudly instead of silently keeping one of the two.
    """
    if isinstance(ratings, LabelMatrix):
        return ratings
    table = rating_table(ratings)
    answered = table.label != NO_LABEL
    rows, columns, given = table.annotator[answered], table.item[answered], table.label[answered]
    annotators, items = first_seen(rows), first_seen(columns)
    present = np.flatnonzero(np.bincount(given, minlength=len(table.labels)))
    present = present[np.argsort([table.labels[code] for code in present.tolist()], kind="stable")]
    row_of = np.zeros(len(table.annotators), dtype=np.int64)
    row_of[annotators] = np.arange(annotators.size)
    column_of = np.zeros(len(table.items), dtype=np.int64)
    column_of[items] = np.arange(items.size)
    code_of = np.zeros(len(table.labels), dtype=np.int64)
    code_of[present] = np.arange(present.size)
    row, column = row_of[rows], column_of[columns]
    codes = np.full((annotators.size, items.size), MISSING, dtype=np.int64)
    codes[row, column] = code_of[given]
    # two answers to one cell leave fewer cells filled than there are answers
    if np.count_nonzero(codes != MISSING) != given.size:
        values, counts = np.unique(row * items.size + column, return_counts=True)
        a, i = divmod(int(values[counts > 1][0]), items.size)
        raise ValueError(f"annotator {table.annotators[annotators[a]]!r} answered item {table.items[items[i]]!r} twice")
    return LabelMatrix(
        annotators=tuple(table.annotators[a] for a in annotators.tolist()),
        items=tuple(table.items[i] for i in items.tolist()),
        labels=tuple(table.labels[code] for code in present.tolist()),
        codes=codes,
    )
