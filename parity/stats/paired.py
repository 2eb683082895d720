"""A model against the people, item by item: the accuracy gap with its CI and test over people and
items (`crossed`), and McNemar's test against the majority of these participants.

The gap is `compare.paired_gap`'s: on the items scored for the model and for some person,
gap = mean_i (m_i − h_i), m_i the model's score and h_i the share of people right on item i. Its CI
and its test of "no gap" generalise over people like these and items like these
(`crossed.crossed_gap`): the claim a paper makes.

McNemar's test answers a narrower question, and says so: is the model right as often as the
majority *of these participants* on items like these? Per item, is the model right and is the
majority right (more than half the item's people right; items where exactly half are right, and a
model's fractional scores, are left out). b counts the items the model alone got right, c those the
majority alone got right. Its null treats the participants as fixed (their majority is a property
of them, and a majority of five is more often right than any one person, so this is not the gap to
people). The p-value is that of the χ² without continuity correction, (b − c)² / (b + c) on one
degree of freedom, for every count: Fagerland, Lydersen & Laake (BMC Medical Research Methodology
13:91, 2013) found the exact conditional test and the continuity-corrected χ² conservative and this
one close to its level even for few discordant items; perf/calibration confirms it here (4.9% at 5
people × 20 items with a median of 6 discordant items, where the exact test rejected 1.2% and the
mid-p 3.5%). statsmodels' `mcnemar(exact=False, correction=False)` computes the same
(tests/parity/stats/test_paired.py holds this).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from parity.stats.bootstrap import DEFAULT_CONFIDENCE
from parity.stats.crossed import METHOD, TARGET, crossed_gap
from parity.stats.distributions import chi2_sf
from parity.stats.results import JsonResult
from parity.stats.table import UNSCORED, RatingTable

#: what McNemar's test is about, in the words the pages and the report print
MCNEMAR_TARGET = "against the majority of these participants, on items like these"
MCNEMAR_METHOD = "chi-squared without continuity correction"


@dataclass(frozen=True)
class McNemar(JsonResult):
    #: items the model alone got right, and those the human majority alone got right
    b: int
    c: int
    #: items both got right, and both wrong
    a: int
    d: int
    n_items: int
    #: the χ² (None when b + c = 0: nothing to test)
    statistic: float | None
    p: float
    method: str = MCNEMAR_METHOD
    target: str = MCNEMAR_TARGET


@dataclass(frozen=True)
class PairedTest(JsonResult):
    n_items: int
    n_people: int
    model_accuracy: float | None
    human_accuracy: float | None
    gap: float | None
    ci: list[float] | None
    confidence: float
    se: float | None
    #: the SE's two parts: from the items (model and people alike) and from the people
    se_items: float | None
    se_people: float | None
    df: float | None
    t: float | None
    #: the two-sided p-value of "no gap" (Student's t on `df` degrees of freedom)
    p: float | None
    #: why there is no CI or test (None when there is one)
    reason: str | None
    mcnemar: McNemar
    target: str = TARGET
    method: str = METHOD


def mcnemar(model_right: np.ndarray, majority_right: np.ndarray) -> McNemar:
    """McNemar's test of two aligned 0/1 outcome vectors (see the module doc)."""
    model_right, majority_right = model_right.astype(bool), majority_right.astype(bool)
    a = int(np.sum(model_right & majority_right))
    b = int(np.sum(model_right & ~majority_right))
    c = int(np.sum(~model_right & majority_right))
    d = int(np.sum(~model_right & ~majority_right))
    discordant, n = b + c, a + b + c + d
    if discordant == 0:
        return McNemar(b=b, c=c, a=a, d=d, n_items=n, statistic=None, p=1.0)
    chi2 = (b - c) ** 2 / discordant
    return McNemar(b=b, c=c, a=a, d=d, n_items=n, statistic=chi2, p=chi2_sf(chi2, 1))


def item_rates(humans: RatingTable) -> dict[str, float]:
    """Per item scored for some person, the share of its people right."""
    scored = humans.correct != UNSCORED
    answers = np.bincount(humans.item[scored], minlength=len(humans.items))
    right = np.bincount(humans.item[scored], humans.correct[scored].astype(np.float64), minlength=len(humans.items))
    return {humans.items[i]: float(right[i] / answers[i]) for i in np.flatnonzero(answers).tolist()}


def paired_test(
    model_scores: Mapping[str, float],
    humans: RatingTable,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    rates: Mapping[str, float] | None = None,
) -> PairedTest:
    """``model_scores``: per item the model scored on, its score in [0, 1]; ``humans``: the people's
    answers (``rates``: their `item_rates`, when already at hand). Items only one side answered stay out."""
    rates = item_rates(humans) if rates is None else rates
    gap = crossed_gap(model_scores, humans, confidence=confidence)
    shared = [key for key in model_scores if key in rates]
    model = np.array([float(model_scores[key]) for key in shared])
    human = np.array([rates[key] for key in shared])
    decided = ((model == 0.0) | (model == 1.0)) & (human != 0.5)
    return PairedTest(
        n_items=gap.n_items,
        n_people=gap.n_people,
        model_accuracy=gap.model_accuracy,
        human_accuracy=gap.human_accuracy,
        gap=gap.gap,
        ci=gap.ci,
        confidence=confidence,
        se=gap.se,
        se_items=gap.se_items,
        se_people=gap.se_people,
        df=gap.df,
        t=gap.t,
        p=gap.p,
        reason=gap.reason,
        mcnemar=mcnemar(model[decided] == 1.0, human[decided] > 0.5),
    )
