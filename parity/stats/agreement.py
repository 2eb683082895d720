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

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score

from parity.stats.ratings import (
    Rating,
    RatingLike,
    answers_by_annotator,
    as_ratings,
    group_by_unit,
)
from parity.stats.results import JsonResult, finite_or_none, mean_of_present, mean_std

Level = Literal["nominal", "ordinal", "interval", "ratio"]


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


def cohen_kappa(labels_a: Sequence[str], labels_b: Sequence[str]) -> float | None:
    """Cohen's kappa of two aligned label sequences; None when undefined (see module doc)."""
    if len(labels_a) != len(labels_b):
        raise ValueError("label sequences must be aligned (same length)")
    if not labels_a or len(set(labels_a) | set(labels_b)) < 2:
        return None
    return finite_or_none(cohen_kappa_score(list(labels_a), list(labels_b)))


def pairwise_kappas(ratings: Iterable[RatingLike]) -> list[PairKappa]:
    """Every annotator pair over the items both answered; pairs sharing no item are skipped."""
    table = answers_by_annotator(as_ratings(ratings))
    pairs: list[PairKappa] = []
    for first, second in itertools.combinations(table, 2):
        shared = [item for item in table[first] if item in table[second]]
        if not shared:
            continue
        kappa = cohen_kappa([table[first][item] for item in shared], [table[second][item] for item in shared])
        pairs.append(PairKappa(first, second, len(shared), kappa))
    return pairs


def mean_pairwise_kappa(ratings: Iterable[RatingLike]) -> float | None:
    """The IAA of Ruis et al. (Table 7) when given one unit's ratings."""
    return mean_of_present(pair.kappa for pair in pairwise_kappas(ratings))


def _item_counts(ratings: Iterable[Rating]) -> list[Counter[str]]:
    """Per item, how many annotators gave each answer (missing answers left out)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for rating in ratings:
        if rating.answer is not None:
            counts[rating.item][rating.answer] += 1
    return list(counts.values())


def _pair_agreement(counts: Counter[str]) -> float:
    # Share of agreeing annotator pairs on one item: Σ n_j(n_j − 1) / (n(n − 1)).
    n = sum(counts.values())
    return sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))


def percent_agreement(ratings: Iterable[RatingLike]) -> float | None:
    """Mean over items (with ≥ 2 answers) of the share of annotator pairs that agree."""
    return mean_of_present(_pair_agreement(c) for c in _item_counts(as_ratings(ratings)) if c.total() >= 2)


def fleiss_kappa(ratings: Iterable[RatingLike]) -> float | None:
    """Fleiss' kappa (Fleiss 1971): κ = (P̄ − P_e) / (1 − P_e).

    P̄ is the mean per-item pair agreement and P_e = Σ_j p_j² with p_j the share of all answers
    in category j. Items may have different numbers of answers (each item's P_i uses its own
    n_i, items with fewer than two answers are dropped); with a constant n this is Fleiss'
    original formula.
    """
    items = [c for c in _item_counts(as_ratings(ratings)) if c.total() >= 2]
    if not items:
        return None
    p_bar = float(np.mean([_pair_agreement(c) for c in items]))
    totals: Counter[str] = Counter()
    for counts in items:
        totals.update(counts)
    grand = totals.total()
    p_e = sum((n / grand) ** 2 for n in totals.values())
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
    ratings: Iterable[RatingLike],
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
    table = answers_by_annotator(as_ratings(ratings))
    items = sorted({item for answers in table.values() for item in answers})
    if len(table) < 2 or not items:
        return None
    column = {item: index for index, item in enumerate(items)}
    data = np.full((len(table), len(items)), np.nan)
    categories = sorted({a for answers in table.values() for a in answers.values()})
    codes = {answer: float(index) for index, answer in enumerate(categories)}
    for row, answers in enumerate(table.values()):
        for item, answer in answers.items():
            nominal = level == "nominal"
            data[row, column[item]] = codes[answer] if nominal else _numeric(answer, scores)
    try:
        alpha = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    except ValueError:
        return None
    return finite_or_none(alpha)


def icc2k(ratings: Iterable[RatingLike], *, scores: Mapping[str, float] | None = None) -> IccResult:
    """ICC(2,k): two-way random effects, absolute agreement, mean of k raters.

    Shrout & Fleiss (1979), eq. for ICC(2,k) (= McGraw & Wong's ICC(A,k)) on the n × k matrix
    of items × raters: (MSR − MSE) / (MSR + (MSC − MSE) / n), with MSR the between-items,
    MSC the between-raters and MSE the residual mean square of the two-way ANOVA.
    ``scores`` maps graded answers to numbers (e.g. a benchmark's `answer_scale`).
    """
    table = answers_by_annotator(as_ratings(ratings))
    raters = list(table)
    all_items = sorted({item for answers in table.values() for item in answers})
    complete = [item for item in all_items if all(item in table[r] for r in raters)]
    dropped = len(all_items) - len(complete)
    n, k = len(complete), len(raters)
    if n < 2 or k < 2:
        return IccResult(icc=None, n_items=n, n_raters=k, n_items_dropped=dropped)
    y = np.array([[_numeric(table[r][item], scores) for r in raters] for item in complete])
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


def icc2k_by_blocks(ratings: Iterable[RatingLike], *, scores: Mapping[str, float] | None = None) -> IccByBlocks:
    """ICC(2,k), two-way random effects, absolute agreement, mean of k raters (Shrout & Fleiss
    1979, Case 2; McGraw & Wong's ICC(A,k)), for ratings where each rater grades only a share.

    The ICC needs a full items × raters matrix, so instead of dropping every item some rater did
    not grade, the items are grouped by the exact set of raters who graded them; each block gets
    its own ICC(2,k) (k = that block's raters), and the result is their average weighted by the
    number of items. A block with one rater or one item has no ICC; its items are counted in
    ``n_items_without_icc``.
    """
    rows = as_ratings(ratings)
    table = answers_by_annotator(rows)
    raters_of: dict[str, list[str]] = defaultdict(list)
    for rater, answers in table.items():
        for item in answers:
            raters_of[item].append(rater)
    groups: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for item, raters in raters_of.items():
        groups[tuple(sorted(raters))].add(item)
    blocks, weighted, weight, without = [], 0.0, 0, 0
    for block_raters, items in sorted(groups.items()):
        result = icc2k([r for r in rows if r.item in items and r.annotator in block_raters], scores=scores)
        blocks.append(IccBlock(raters=list(block_raters), n_items=len(items), icc=result.icc))
        if result.icc is None:
            without += len(items)
        else:
            weighted += result.icc * len(items)
            weight += len(items)
    return IccByBlocks(
        icc=finite_or_none(weighted / weight) if weight else None,
        n_items=len(raters_of),
        n_blocks=len(blocks),
        n_items_without_icc=without,
        blocks=blocks,
    )


def agreement_summary(
    ratings: Iterable[RatingLike],
    *,
    unit: str | None = None,
    level: Level = "nominal",
    scores: Mapping[str, float] | None = None,
) -> AgreementSummary:
    """All agreement numbers for one set of ratings (usually one unit)."""
    rows = as_ratings(ratings)
    pairs = pairwise_kappas(rows)
    defined = [pair.kappa for pair in pairs if pair.kappa is not None]
    answered = [r for r in rows if r.answer is not None]
    return AgreementSummary(
        unit=unit,
        n_annotators=len({r.annotator for r in answered}),
        n_items=len({r.item for r in answered}),
        mean_pairwise_kappa=mean_of_present(defined),
        n_pairs=len(pairs),
        n_pairs_undefined=len(pairs) - len(defined),
        fleiss_kappa=fleiss_kappa(rows),
        krippendorff_alpha=krippendorff_alpha(rows, level=level, scores=scores),
        alpha_level=level,
        percent_agreement=percent_agreement(rows),
        pairs=pairs,
    )


def agreement_by_unit(
    ratings: Iterable[RatingLike],
    *,
    level: Level = "nominal",
    scores: Mapping[str, float] | None = None,
) -> list[AgreementSummary]:
    return [
        agreement_summary(unit_ratings, unit=unit, level=level, scores=scores)
        for unit, unit_ratings in group_by_unit(as_ratings(ratings)).items()
    ]


def kappa_across_units(summaries: Sequence[AgreementSummary], *, ddof: int = 0) -> KappaAcrossUnits:
    values = [s.mean_pairwise_kappa for s in summaries if s.mean_pairwise_kappa is not None]
    mean, std = mean_std(values, ddof=ddof)
    return KappaAcrossUnits(n_units=len(values), mean=mean, std=std, ddof=ddof)
