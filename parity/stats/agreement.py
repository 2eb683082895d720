"""Inter-annotator agreement: pairwise Cohen's kappa, Fleiss' kappa, Krippendorff's alpha,
raw percent agreement, and ICC(2,k) for graded ratings.

"Undefined" is None, never NaN and never a made-up value:
- a kappa needs two annotators (or, for a pair, at least one shared item);
- when both annotators of a pair gave one and the same label to every shared item, chance
  agreement is already 1 and kappa is 0/0. We report None for that pair and leave it out of
  the mean instead of 1.0: kappa measures agreement *beyond chance*, and with no variation
  there is nothing beyond chance to measure (the raw percent agreement still shows 100%).
  The pair stays listed, counted in ``n_pairs_undefined``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
from threadpoolctl import threadpool_limits

from parity.stats.matrix import MISSING, LabelMatrix, label_matrix
from parity.stats.ratings import (
    Rating,
    RatingLike,
    answers_by_annotator,
)
from parity.stats.results import JsonResult, finite_or_none, mean_std
from parity.stats.table import RatingTable, rating_list, rating_table

Level = Literal["nominal", "ordinal", "interval", "ratio"]
#: what the agreement statistics accept: ratings, their table, or their matrix
Ratings = Iterable[RatingLike] | RatingTable | LabelMatrix


@dataclass(frozen=True)
class PairKappa(JsonResult):
    annotator_a: str
    annotator_b: str
    n_items: int
    kappa: float | None


@dataclass(frozen=True)
class AgreementSummary(JsonResult):
    unit: str | None
    n_annotators: int
    n_items: int
    # Mean over annotator pairs with at least one shared item (Ruis et al.'s "IAA").
    mean_pairwise_kappa: float | None
    n_pairs: int
    n_pairs_undefined: int
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    alpha_level: Level
    percent_agreement: float | None
    pairs: list[PairKappa]


@dataclass(frozen=True)
class KappaAcrossUnits(JsonResult):
    """Table 7's IAA "Total" and "Std" cells: unit mean kappas averaged over units."""

    n_units: int
    mean: float | None
    std: float | None
    ddof: int


@dataclass(frozen=True)
class IccResult(JsonResult):
    icc: float | None
    n_items: int
    n_raters: int
    # Items left out because not every rater graded them (ICC(2,k) needs a full matrix).
    n_items_dropped: int


def _kappa_of_confusion(confusion: np.ndarray) -> float:
    """Cohen's kappa of a square confusion matrix of counts (rows: the first annotator's labels,
    columns: the second's), with scikit-learn's `cohen_kappa_score` arithmetic step for step, so the
    two agree to the last bit."""
    counts = confusion.astype(np.float64)
    sum0, sum1 = counts.sum(axis=0), counts.sum(axis=1)
    expected = np.outer(sum0, sum1) / sum0.sum()
    disagree = np.ones_like(counts)
    np.fill_diagonal(disagree, 0.0)
    return float(1 - (disagree * counts).sum() / (disagree * expected).sum())


def cohen_kappa(labels_a: Sequence[str], labels_b: Sequence[str]) -> float | None:
    """Cohen's kappa of two aligned label sequences; None when undefined (see module doc)."""
    if len(labels_a) != len(labels_b):
        raise ValueError("label sequences must be aligned (same length)")
    labels = sorted(set(labels_a) | set(labels_b))
    if not labels_a or len(labels) < 2:
        return None
    code = {label: index for index, label in enumerate(labels)}
    confusion = np.zeros((len(labels), len(labels)), dtype=np.int64)
    np.add.at(confusion, ([code[a] for a in labels_a], [code[b] for b in labels_b]), 1)
    return finite_or_none(_kappa_of_confusion(confusion))


@dataclass(frozen=True)
class PairwiseKappas:
    """Cohen's kappa of every annotator pair that shares at least one item, as arrays: pair k is
    ``annotators[first[k]]`` and ``annotators[second[k]]``, in `itertools.combinations` order."""

    annotators: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    n_items: np.ndarray
    #: NaN where undefined (see the module doc)
    kappa: np.ndarray

    @property
    def n_pairs(self) -> int:
        return int(self.first.size)

    @property
    def n_undefined(self) -> int:
        return int(np.isnan(self.kappa).sum())

    def mean(self) -> float | None:
        """The mean over the pairs whose kappa is defined (Ruis et al.'s "IAA")."""
        return mean_std(self.kappa[~np.isnan(self.kappa)])[0]

    def pairs(self) -> list[PairKappa]:
        names = self.annotators
        return [
            PairKappa(names[a], names[b], int(n), None if np.isnan(kappa) else float(kappa))
            for a, b, n, kappa in zip(self.first.tolist(), self.second.tolist(), self.n_items, self.kappa.tolist())
        ]


def pairwise_kappa_table(ratings: Ratings) -> PairwiseKappas:
    """Every annotator pair over the items both answered, all pairs at once.

    With X_l the annotators × items indicator of label l and M that of any answer, two matrix
    products per label give every pair's agreements (Σ_l X_l X_lᵀ) and label counts on the items
    both answered (X_l Mᵀ: row a, column b counts a's l on the items b answered too; their sum over
    l is the pair's shared items), which are the confusion matrix's diagonal and margins: all
    Cohen's kappa needs. The chance term is
    summed over the label pairs in scikit-learn's order, so each kappa is the one
    `cohen_kappa_score` gives for that pair's shared items (bit for bit with up to two labels)."""
    matrix = label_matrix(ratings)
    first, second = np.triu_indices(len(matrix.annotators), k=1)
    # per label, for every pair: both said it (same), and the first said it on an item the second
    # answered (own) or the other way round (other)
    same, own, other = [], [], []
    answered = matrix.answered.astype(np.float32)
    with threadpool_limits(limits=1, user_api="blas"):
        for label in range(len(matrix.labels)):
            said = (matrix.codes == label).astype(np.float32)
            same.append(_pairs(said @ said.T, first, second))
            counts = said @ answered.T
            own.append(_pairs(counts, first, second))
            other.append(_pairs(counts, second, first))
            del said, counts
    shared = sum(own, np.zeros(first.size))
    kept = shared > 0
    first, second, shared = first[kept], second[kept], shared[kept]
    own, other = [values[kept] for values in own], [values[kept] for values in other]
    agree = sum((values[kept] for values in same), np.zeros(first.size))
    chance = np.zeros(first.size)
    for row in range(len(matrix.labels)):
        for column in range(len(matrix.labels)):
            if row != column:
                chance += other[row] * own[column] / shared
    labels_present = sum((((a + b) > 0).astype(np.int64) for a, b in zip(own, other)), np.zeros(first.size, np.int64))
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = 1 - (shared - agree) / chance
    kappa[labels_present < 2] = np.nan
    return PairwiseKappas(
        annotators=matrix.annotators,
        first=first,
        second=second,
        n_items=shared.astype(np.int64),
        kappa=np.where(np.isfinite(kappa), kappa, np.nan),
    )


def _pairs(counts: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The pairs' cells of an annotators × annotators product, as float64. float32 products of 0/1
    matrices are exact counts below 2²⁴ items; they run on one BLAS thread (`threadpool_limits`):
    these matrices are small, and on a busy machine more threads only wait for each other."""
    return counts[rows, columns].astype(np.float64)


def pairwise_kappas(ratings: Ratings) -> list[PairKappa]:
    """Every annotator pair over the items both answered; pairs sharing no item are skipped."""
    return pairwise_kappa_table(ratings).pairs()


def mean_pairwise_kappa(ratings: Ratings) -> float | None:
    """The IAA of Ruis et al. (Table 7) when given one unit's ratings."""
    return pairwise_kappa_table(ratings).mean()


def _pair_agreements(counts: np.ndarray) -> np.ndarray:
    """Per item (a row of label counts, two answers or more), the share of agreeing annotator pairs:
    Σ_j n_j(n_j − 1) / (n(n − 1))."""
    n = counts.sum(axis=1)
    return (counts * (counts - 1)).sum(axis=1) / (n * (n - 1))


def _items_with_pairs(matrix: LabelMatrix) -> np.ndarray:
    """items × labels counts of the items with at least two answers, in first-seen order."""
    counts = matrix.item_counts()
    return counts[counts.sum(axis=1) >= 2]


def percent_agreement(ratings: Ratings) -> float | None:
    """Mean over items (with ≥ 2 answers) of the share of annotator pairs that agree."""
    items = _items_with_pairs(label_matrix(ratings))
    return mean_std(_pair_agreements(items))[0]


def fleiss_kappa(ratings: Ratings) -> float | None:
    """Fleiss' kappa (Fleiss 1971): κ = (P̄ − P_e) / (1 − P_e).

    P̄ is the mean per-item pair agreement and P_e = Σ_j p_j² with p_j the share of all answers
    in category j. Items may have different numbers of answers (each item's P_i uses its own
    n_i, items with fewer than two answers are dropped); with a constant n this is Fleiss'
    original formula.
    """
    items = _items_with_pairs(label_matrix(ratings))
    if not len(items):
        return None
    p_bar = float(np.mean(_pair_agreements(items)))
    totals = items.sum(axis=0)
    grand = int(totals.sum())
    p_e = sum((int(n) / grand) ** 2 for n in totals if n)
    if np.isclose(p_e, 1.0):
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def _numeric(answer: str, scores: Mapping[str, float] | None) -> float:
    if scores is not None:
        if answer not in scores:
            raise ValueError(f"answer {answer!r} has no score in {sorted(scores)}")
        return float(scores[answer])
    return float(answer)


def krippendorff_alpha(
    ratings: Ratings,
    *,
    level: Level = "nominal",
    scores: Mapping[str, float] | None = None,
) -> float | None:
    """Krippendorff's alpha via the ``krippendorff`` package; missing answers allowed.

    Nominal answers are coded as category indices. Other levels need numbers: ``scores`` maps
    each answer to its value (e.g. a benchmark's `answer_scale`), otherwise answers are parsed as floats.
    None when the package finds alpha undefined (one annotator, one value in all the data, no
    item with two answers).
    """
    matrix = label_matrix(ratings)
    if len(matrix.annotators) < 2 or not matrix.items:
        return None
    if level == "nominal":
        values = np.arange(len(matrix.labels), dtype=np.float64)
    else:
        values = np.array([_numeric(label, scores) for label in matrix.labels])
    # annotators as rows, items (sorted) as columns, NaN where no answer
    columns = sorted(range(len(matrix.items)), key=matrix.items.__getitem__)
    codes = matrix.codes[:, columns]
    data = np.where(codes == MISSING, np.nan, values[np.maximum(codes, 0)])
    try:
        alpha = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    except ValueError:
        return None
    return finite_or_none(alpha)


def complete_grades(
    ratings: Iterable[RatingLike] | RatingTable, *, scores: Mapping[str, float] | None = None
) -> tuple[np.ndarray, int]:
    """The items × raters matrix of grades of the items every rater graded (items sorted, raters in
    first-seen order), and how many items were left out because some rater did not grade them."""
    table = answers_by_annotator(rating_list(ratings))
    raters = list(table)
    all_items = sorted({item for answers in table.values() for item in answers})
    complete = [item for item in all_items if all(item in table[r] for r in raters)]
    if len(complete) < 2 or len(raters) < 2:
        # no ICC from one rater or one item: nothing is read as a number (the answers need not be grades)
        return np.empty((len(complete), len(raters))), len(all_items) - len(complete)
    y = np.array([[_numeric(table[r][item], scores) for r in raters] for item in complete], dtype=np.float64)
    return y.reshape(len(complete), len(raters)), len(all_items) - len(complete)


def icc2k(ratings: Iterable[RatingLike] | RatingTable, *, scores: Mapping[str, float] | None = None) -> IccResult:
    """ICC(2,k): two-way random effects, absolute agreement, mean of k raters.

    Shrout & Fleiss (1979), eq. for ICC(2,k) (= McGraw & Wong's ICC(A,k)) on the n × k matrix
    of items × raters: (MSR − MSE) / (MSR + (MSC − MSE) / n), with MSR the between-items,
    MSC the between-raters and MSE the residual mean square of the two-way ANOVA.
    ``scores`` maps graded answers to numbers (e.g. a benchmark's `answer_scale`).
    """
    y, dropped = complete_grades(ratings, scores=scores)
    n, k = y.shape
    if n < 2 or k < 2:
        return IccResult(icc=None, n_items=n, n_raters=k, n_items_dropped=dropped)
    grand = y.mean()
    ss_rows = k * ((y.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((y.mean(axis=0) - grand) ** 2).sum()
    ss_error = ((y - grand) ** 2).sum() - ss_rows - ss_cols
    ms_rows = ss_rows / (n - 1)
    ms_cols = ss_cols / (k - 1)
    ms_error = ss_error / ((n - 1) * (k - 1))
    denominator = ms_rows + (ms_cols - ms_error) / n
    icc = None if np.isclose(denominator, 0.0) else (ms_rows - ms_error) / denominator
    return IccResult(icc=finite_or_none(icc), n_items=n, n_raters=k, n_items_dropped=dropped)


@dataclass(frozen=True)
class IccBlock(JsonResult):
    raters: list[str]
    n_items: int
    icc: float | None
    #: its 95% CI where one is computed (`icc_ci.icc_interval`)
    ci95: list[float] | None = None


@dataclass(frozen=True)
class IccByBlocks(JsonResult):
    """ICC(2,k) where raters grade a share of the items each (Comsa et al.: every author graded at
    least two thirds of the answers): the items fall into blocks graded by the same raters."""

    icc: float | None  # the blocks' ICC(2,k), weighted by their items; None when no block has one
    n_items: int
    n_blocks: int
    # items in blocks whose ICC is undefined (one rater, or a single item): counted, never hidden
    n_items_without_icc: int
    blocks: list[IccBlock]


def rater_blocks(ratings: Iterable[RatingLike] | RatingTable) -> dict[tuple[str, ...], list[Rating]]:
    """The ratings grouped by the exact set of raters who graded their item (sorted by those raters):
    within a block every rater graded every item, so each block is a full items × raters matrix."""
    rows = rating_list(ratings)
    table = answers_by_annotator(rows)
    raters_of: dict[str, list[str]] = defaultdict(list)
    for rater, answers in table.items():
        for item in answers:
            raters_of[item].append(rater)
    block_of = {item: tuple(sorted(raters)) for item, raters in raters_of.items()}
    # each block's ratings, in one pass (a block's raters are exactly those who rated its items)
    block_rows: dict[tuple[str, ...], list[Rating]] = defaultdict(list)
    for rating in rows:
        block = block_of.get(rating.item)
        if block is not None and rating.annotator in block:
            block_rows[block].append(rating)
    return dict(sorted(block_rows.items()))


def icc2k_by_blocks(
    ratings: Iterable[RatingLike] | RatingTable, *, scores: Mapping[str, float] | None = None
) -> IccByBlocks:
    """ICC(2,k), two-way random effects, absolute agreement, mean of k raters (Shrout & Fleiss
    1979, Case 2; McGraw & Wong's ICC(A,k)), for ratings where each rater grades only a share.

    The ICC needs a full items × raters matrix, so instead of dropping every item some rater did
    not grade, the items are grouped by the exact set of raters who graded them; each block gets
    its own ICC(2,k) (k = that block's raters), and the result is their average weighted by the
    number of items. A block with one rater or one item has no ICC; its items are counted in
    ``n_items_without_icc``.
    """
    blocks, weighted, weight, without, n_items = [], 0.0, 0, 0, 0
    for block_raters, block_rows in rater_blocks(ratings).items():
        result = icc2k(block_rows, scores=scores)
        blocks.append(IccBlock(raters=list(block_raters), n_items=result.n_items, icc=result.icc))
        n_items += result.n_items
        if result.icc is None:
            without += result.n_items
        else:
            weighted += result.icc * result.n_items
            weight += result.n_items
    return IccByBlocks(
        icc=finite_or_none(weighted / weight) if weight else None,
        n_items=n_items,
        n_blocks=len(blocks),
        n_items_without_icc=without,
        blocks=blocks,
    )


def agreement_summary(
    ratings: Ratings,
    *,
    unit: str | None = None,
    level: Level = "nominal",
    scores: Mapping[str, float] | None = None,
    with_pairs: bool = True,
) -> AgreementSummary:
    """All agreement numbers for one set of ratings (usually one unit). ``with_pairs=False`` leaves
    `pairs` empty (their count and mean stay): a results page needs only those, and 1,000 people
    in a unit are half a million pairs."""
    matrix = label_matrix(ratings)
    table = pairwise_kappa_table(matrix)
    return AgreementSummary(
        unit=unit,
        n_annotators=len(matrix.annotators),
        n_items=len(matrix.items),
        mean_pairwise_kappa=table.mean(),
        n_pairs=table.n_pairs,
        n_pairs_undefined=table.n_undefined,
        fleiss_kappa=fleiss_kappa(matrix),
        krippendorff_alpha=krippendorff_alpha(matrix, level=level, scores=scores),
        alpha_level=level,
        percent_agreement=percent_agreement(matrix),
        pairs=table.pairs() if with_pairs else [],
    )


def agreement_by_unit(
    ratings: Iterable[RatingLike] | RatingTable,
    *,
    level: Level = "nominal",
    scores: Mapping[str, float] | None = None,
    with_pairs: bool = True,
) -> list[AgreementSummary]:
    return [
        agreement_summary(unit_ratings, unit=unit, level=level, scores=scores, with_pairs=with_pairs)
        for unit, unit_ratings in rating_table(ratings).by_unit().items()
    ]


def kappa_across_units(summaries: Sequence[AgreementSummary], *, ddof: int = 0) -> KappaAcrossUnits:
    values = [s.mean_pairwise_kappa for s in summaries if s.mean_pairwise_kappa is not None]
    mean, std = mean_std(values, ddof=ddof)
    return KappaAcrossUnits(n_units=len(values), mean=mean, std=std, ddof=ddof)
