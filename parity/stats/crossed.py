"""A model's gap to people, generalised over people *and* items: its standard error, CI and test
from the variance components of a crossed design.

The gap is `compare.paired_gap`'s: on the N items scored for the model and for some person,
G = Σ_i w_i (m_i − h_i), w_i = 1/N, m_i the model's score and h_i the share of item i's people
right. A paper's claim ("the model is N points below people") is about people like these on items
like these, so both are samples: another draw of items moves the m_i and the h_i, another draw of
people moves every h_i of their unit *together*, because the same few people answered all of the
unit's items. Treating the items as independent (a bootstrap or a sign-flip test over items) leaves
that shared part out, and at the implicature layout (4 units × 5 people × 150 items) such a test
rejects a true null about a quarter of the time.

The model (Cornfield–Tukey; Brennan's generalisability theory, people × items within units): a
person's answer y_pi = μ_i + a_p + e_pi, with item effects μ_i, person effects a_p (variance σ_a²)
and a residual e_pi (variance σ_e²), units holding their own people and items. Then
G = Σ_i w_i t_i − Σ_p c_p a_p, with t_i = m_i − μ_i − ē_i the item's part and
c_p = Σ_{i answered by p} w_i / n_i the weight of person p in the people's side, and

    Var(G) = σ_t² Σ_i w_i² + σ_a² Σ_p c_p².

The components are estimated by the method of moments (ANOVA estimators, unbiased, no
distributional assumption beyond the variances): σ_t² from the d_i = m_i − h_i around their unit's
mean (which removes the unit's people, shared by its items), on N − U degrees of freedom; σ_a²
from each person's mean residual R_p (their answers less their items' shares), whose sum of squares
estimates σ_a² + σ_e²/k per person beyond the first of a unit, less σ_e² / k (σ_e² from the
residuals within persons, the two-way interaction); a negative σ_a² estimate is taken as 0. The
CI is G ± t·SE with the degrees of freedom of Satterthwaite's approximation for that combination
of mean squares, and the test of G = 0 is the same t. With 5 people per unit the people's part has
few degrees of freedom (4 a unit), and the t quantile widens the interval accordingly.

Checked by simulation from a known truth (perf/calibration, docs/results.md "Calibration"): the
CI covers the population gap, and the test rejects a true null, at their nominal rates at the
layouts researchers use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from parity.stats.bootstrap import DEFAULT_CONFIDENCE
from parity.stats.distributions import t_quantile, t_sf
from parity.stats.results import JsonResult
from parity.stats.table import UNSCORED, RatingTable, first_seen

#: what the interval and the test generalise over, in the words the pages and the report print
TARGET = "people like these, on items like these"
METHOD = (
    "variance components of the people × items design (people nested in units, method of moments), "
    "Student's t with Satterthwaite's degrees of freedom"
)
#: the reason for no interval and no test when the answers show no spread at all
NO_SPREAD = (
    "the answers show no spread (every item's difference between the model and the people is the same, "
    "and the people do not differ from one another): an error cannot be estimated from them"
)


@dataclass(frozen=True)
class CrossedGap(JsonResult):
    n_items: int
    n_people: int
    model_accuracy: float | None
    human_accuracy: float | None
    gap: float | None
    se: float | None
    #: the SE's two parts: from the items (model and people alike) and from the people
    se_items: float | None
    se_people: float | None
    df: float | None
    ci: list[float] | None
    t: float | None
    p: float | None
    confidence: float
    #: why there is no SE (None when there is one)
    reason: str | None = None


def _empty(confidence: float, reason: str, **known: float | int | None) -> CrossedGap:
    values: dict = {
        "n_items": 0,
        "n_people": 0,
        "model_accuracy": None,
        "human_accuracy": None,
        "gap": None,
        "se": None,
        "se_items": None,
        "se_people": None,
        "df": None,
        "ci": None,
        "t": None,
        "p": None,
    }
    values.update(known)
    return CrossedGap(**values, confidence=confidence, reason=reason)


def _unseen_model_spread(m: np.ndarray, people_spread: np.ndarray, df_t: int) -> float:
    """The items' mean square when the model's score is the same on every item of each unit (most
    often: right on all of a few easy items). The d_i then vary only with the people's shares, and
    their spread leaves out the model's own, which is there all the same: on another draw of items
    it would miss some. Near the ceiling with few items this happened in about one study in eight, and
    the gap test rejected a true null 10–13% of the time at 100 or 150 people × 20–30 items
    (docs/results.md, "Calibration"). The model's spread is taken as that of a right/wrong score at
    the rule of succession's accuracy (Σm + 1)/(N + 2), the largest a score in [0, 1] with that mean
    can have, and uncorrelated with the people's (nothing in the sample shows otherwise)."""
    accuracy = (float(m.sum()) + 1.0) / (m.size + 2.0)
    return float(np.sum(people_spread**2)) / df_t + accuracy * (1.0 - accuracy)


def crossed_gap(
    model_scores: Mapping[str, float], humans: RatingTable, *, confidence: float = DEFAULT_CONFIDENCE
) -> CrossedGap:
    """``model_scores``: per item the model scored on, its score in [0, 1]; ``humans``: the people's
    answers (their units as `RatingTable.unit`). Items only one side answered stay out."""
    scored = humans.correct != UNSCORED
    column_of_name = {name: k for k, name in enumerate(humans.items)}
    in_model = np.zeros(len(humans.items), dtype=bool)
    model_by_code = np.zeros(len(humans.items))
    for key, value in model_scores.items():
        code = column_of_name.get(key)
        if code is not None:
            in_model[code] = True
            model_by_code[code] = float(value)
    rows = scored & in_model[humans.item]
    person_codes, item_codes = humans.annotator[rows], humans.item[rows]
    y = humans.correct[rows].astype(np.float64)
    items, people = first_seen(item_codes), first_seen(person_codes)
    n_items, n_people = int(items.size), int(people.size)
    if n_items == 0:
        return _empty(confidence, "no item answered by the model and by a person")
    column = np.zeros(len(humans.items), dtype=np.int64)
    column[items] = np.arange(n_items)
    row_of = np.zeros(len(humans.annotators), dtype=np.int64)
    row_of[people] = np.arange(n_people)
    item, person = column[item_codes], row_of[person_codes]

    per_item = np.bincount(item, minlength=n_items).astype(np.float64)
    h = np.bincount(item, y, minlength=n_items) / per_item
    m = model_by_code[items]
    d = m - h
    gap = float(d.mean())
    known: dict[str, Any] = {
        "n_items": n_items,
        "n_people": n_people,
        "model_accuracy": float(m.mean()),
        "human_accuracy": float(h.mean()),
        "gap": gap,
    }

    # units: an item's and a person's are those of their first answer
    unit_codes = humans.unit[rows]
    item_unit = np.zeros(n_items, dtype=np.int64)
    item_unit[item[::-1]] = unit_codes[::-1]
    person_unit = np.zeros(n_people, dtype=np.int64)
    person_unit[person[::-1]] = unit_codes[::-1]
    units = first_seen(item_unit)
    n_units = int(units.size)

    # the items' part: the d_i around their unit's mean (the unit's people are shared by its items)
    per_unit = np.maximum(1, np.bincount(item_unit))
    unit_mean = np.bincount(item_unit, d) / per_unit
    df_t = n_items - n_units
    if df_t >= 2:
        ms_t = float(np.sum((d - unit_mean[item_unit]) ** 2)) / df_t
        model_spread = m - (np.bincount(item_unit, m) / per_unit)[item_unit]
        if not np.any(model_spread):
            ms_t = _unseen_model_spread(m, h - (np.bincount(item_unit, h) / per_unit)[item_unit], df_t)
    elif n_items >= 2:
        # one item a unit: the units' people cannot be told from the items; the spread of all the
        # d_i holds both (conservative)
        df_t = n_items - 1
        ms_t = float(np.var(d, ddof=1))
    else:
        return _empty(confidence, "one item: no spread to estimate an error from", **known)
    c_t = 1.0 / n_items  # Σ w_i²

    # the people's part
    residual = y - h[item]
    per_person = np.bincount(person, minlength=n_people).astype(np.float64)
    person_mean = np.bincount(person, residual, minlength=n_people) / per_person
    people_in_unit = np.bincount(person_unit, minlength=int(person_unit.max()) + 1)
    df_a = n_people - int(np.count_nonzero(people_in_unit))
    df_e = y.size - n_people - n_items + n_units
    c_p = np.bincount(person, 1.0 / (n_items * per_item[item]), minlength=n_people)
    c_a = float(np.sum(c_p**2))
    if df_a < 1 or df_e < 1:
        return _empty(
            confidence,
            "fewer than two people in every unit: the people's share of the error cannot be estimated",
            **known,
        )
    ms_e = float(np.sum((residual - person_mean[person]) ** 2)) / df_e
    ms_a = float(np.sum(person_mean**2)) / df_a
    share = (people_in_unit[person_unit] - 1) / people_in_unit[person_unit]
    # E[Σ R_p²] = Σ (n_u − 1)/n_u · (σ_a² + σ_e²/k_p): the σ_e² part, per degree of freedom
    e_weight = float(np.sum(share / per_person)) / df_a
    sigma_a2 = ms_a - e_weight * ms_e

    v_items = c_t * ms_t
    if sigma_a2 > 0:
        v_people = c_a * sigma_a2
        terms = [(c_t * ms_t, df_t), (c_a * ms_a, df_a), (c_a * e_weight * ms_e, df_e)]
    else:
        v_people = 0.0
        terms = [(c_t * ms_t, df_t)]
    variance = v_items + v_people
    if variance <= 0.0:
        # every d_i the same and no person effect: not a gap known exactly, but answers too few or
        # too uniform to show how much it varies (two people right on two items a model got wrong
        # would otherwise give an SE of 0 and p = 0 from four answers)
        return _empty(confidence, NO_SPREAD, **known)
    known |= {"se_items": math.sqrt(v_items), "se_people": math.sqrt(v_people)}
    df = variance**2 / sum(term**2 / dof for term, dof in terms)
    se = math.sqrt(variance)
    half = t_quantile(0.5 + confidence / 2.0, df) * se
    t = gap / se
    return CrossedGap(
        **known,
        se=se,
        df=float(df),
        ci=[max(-1.0, gap - half), min(1.0, gap + half)],
        t=float(t),
        p=2.0 * t_sf(abs(t), df),
        confidence=confidence,
    )
