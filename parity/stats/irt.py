"""People and models on one ability scale: a joint Rasch (1PL) or 2PL item-response model.

Respondent r (a participant or a model run) answers item j right with probability
σ(a_j (θ_r − b_j)): θ the ability, b the difficulty, a the discrimination (1 in the 1PL). All the
parameters are fitted at once (joint estimation) as the maximum a posteriori under weak normal
priors, θ ~ N(0, 1), b ~ N(0, 2²) and log a ~ N(0, 0.5²): the priors fix the scale's origin and
unit (which the likelihood leaves free) and keep a perfect or a null score finite, where plain
joint maximum likelihood sends it to ±∞. scipy's L-BFGS minimises the negative log posterior with
its exact gradient, computed over the answers (not a people × items matrix, which a study of units
leaves mostly empty) with `np.bincount`.

Why not a library: `girth` (last release 2021) estimates items by marginal likelihood and scores
people afterwards, with no joint fit of extra respondents and no missing-by-design answers beyond
its own masks; `py-irt` fits by variational inference in pyro, pinned to torch versions this
project does not run, and is stochastic. A MAP fit in scipy is a page of code, deterministic, and
tested here by parameter recovery (tests/stats/test_irt.py).

A score may be fractional (a model's mean over an item's variants, or a graded answer scored 0,
½, 1): it enters the Bernoulli likelihood as it is (a quasi-likelihood), so partial credit moves
the estimates in proportion. Graded answers get no graded-response (Samejima) model here.

Standard errors come from the information at the estimate (the posterior precision of each
parameter with the others held at their estimates), so they leave out the item parameters'
own uncertainty; CIs are the estimate ± z·SE.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize, special, stats
from threadpoolctl import threadpool_limits

IrtModel = Literal["1pl", "2pl"]

#: prior standard deviations of ability, difficulty and log discrimination
ABILITY_PRIOR_SD = 1.0
DIFFICULTY_PRIOR_SD = 2.0
LOG_DISCRIMINATION_PRIOR_SD = 0.5
#: the 2PL is fitted when the items have at least this many people's answers each (the median):
#: with five answers an item's discrimination is mostly its prior
TWO_PL_MIN_ANSWERS_PER_ITEM = 30


@dataclass(frozen=True)
class Responses:
    """Answers in long form: respondent ``respondent[k]`` scored ``score[k]`` (in [0, 1]) on item
    ``item[k]``; respondents and items index `n_respondents` and `n_items`."""

    respondent: np.ndarray
    item: np.ndarray
    score: np.ndarray
    n_respondents: int
    n_items: int


@dataclass(frozen=True)
class IrtFit:
    model: IrtModel
    ability: np.ndarray
    ability_se: np.ndarray
    difficulty: np.ndarray
    difficulty_se: np.ndarray
    #: None in the 1PL (every item's is 1)
    discrimination: np.ndarray | None
    converged: bool
    iterations: int

    def probabilities(self, respondent: np.ndarray, item: np.ndarray) -> np.ndarray:
        """The fitted probability of a right answer of each (respondent, item) pair."""
        a = 1.0 if self.discrimination is None else self.discrimination[item]
        return special.expit(a * (self.ability[respondent] - self.difficulty[item]))


def choose_model(responses: Responses, people: int) -> IrtModel:
    """The 2PL when the items have enough people's answers to tell their discriminations apart."""
    from_people = responses.respondent < people
    per_item = np.bincount(responses.item[from_people], minlength=responses.n_items)
    answered = per_item[per_item > 0]
    return "2pl" if answered.size and float(np.median(answered)) >= TWO_PL_MIN_ANSWERS_PER_ITEM else "1pl"


def fit(responses: Responses, *, model: IrtModel = "2pl", max_iterations: int = 2000) -> IrtFit:
    """The MAP estimate of every ability and item parameter (see the module doc)."""
    person, item, y = responses.respondent, responses.item, responses.score.astype(np.float64)
    n_people, n_items = responses.n_respondents, responses.n_items
    two = model == "2pl"
    theta_precision = 1.0 / ABILITY_PRIOR_SD**2
    b_precision = 1.0 / DIFFICULTY_PRIOR_SD**2
    alpha_precision = 1.0 / LOG_DISCRIMINATION_PRIOR_SD**2

    def unpack(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        theta, b = x[:n_people], x[n_people : n_people + n_items]
        alpha = x[n_people + n_items :] if two else np.zeros(n_items)
        return theta, b, alpha

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta, b, alpha = unpack(x)
        a = np.exp(alpha)[item] if two else 1.0
        eta = a * (theta[person] - b[item])
        # the Bernoulli negative log-likelihood log(1 + e^η) − yη (fractional y allowed) and σ(η),
        # from one exponential of −|η| (no overflow either way)
        small = np.exp(-np.abs(eta))
        loss = float(np.sum(np.maximum(eta, 0.0) + np.log1p(small) - y * eta))
        loss += 0.5 * (theta_precision * theta @ theta + b_precision * b @ b + alpha_precision * alpha @ alpha)
        residual = np.where(eta >= 0.0, 1.0, small) / (1.0 + small) - y
        weighted = residual * a
        g_theta = np.bincount(person, weighted, minlength=n_people) + theta_precision * theta
        g_b = -np.bincount(item, weighted, minlength=n_items) + b_precision * b
        parts = [g_theta, g_b]
        if two:
            parts.append(np.bincount(item, residual * eta, minlength=n_items) + alpha_precision * alpha)
        return loss, np.concatenate(parts)

    # a start from the raw rates: logits of each respondent's and each item's share right
    rate = _shrunk_rates(person, y, n_people)
    item_rate = _shrunk_rates(item, y, n_items)
    start = [special.logit(rate), -special.logit(item_rate)] + ([np.zeros(n_items)] if two else [])
    # one BLAS thread: L-BFGS's small products only wait for each other on more, and far longer
    # on a busy machine (twice as long with two cores at a load of 8)
    with threadpool_limits(limits=1, user_api="blas"):
        solution = optimize.minimize(
            objective,
            np.concatenate(start),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iterations, "gtol": 1e-5},
        )
    theta, b, alpha = unpack(solution.x)
    a = np.exp(alpha)
    # the information of each parameter at the estimate: Σ a²·p(1 − p) over its answers, + prior
    p = special.expit(a[item] * (theta[person] - b[item]))
    weight = a[item] ** 2 * p * (1.0 - p)
    theta_info = np.bincount(person, weight, minlength=n_people) + theta_precision
    b_info = np.bincount(item, weight, minlength=n_items) + b_precision
    return IrtFit(
        model=model,
        ability=theta,
        ability_se=1.0 / np.sqrt(theta_info),
        difficulty=b,
        difficulty_se=1.0 / np.sqrt(b_info),
        discrimination=a if two else None,
        converged=bool(solution.success),
        iterations=int(solution.nit),
    )


def _shrunk_rates(index: np.ndarray, y: np.ndarray, size: int) -> np.ndarray:
    """Each index's share right with half an answer either way, so no logit is infinite."""
    return (np.bincount(index, y, minlength=size) + 0.5) / (np.bincount(index, minlength=size) + 1.0)


def percentile_among(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The percentile (0–100) of each value among `reference`: the share below, ties counted half."""
    ordered = np.sort(reference)
    below = np.searchsorted(ordered, values, side="left")
    at_or_below = np.searchsorted(ordered, values, side="right")
    return 100.0 * (below + at_or_below) / (2.0 * ordered.size)


def separation_reliability(estimates: np.ndarray, standard_errors: np.ndarray) -> float | None:
    """The share of the estimates' variance that is true variance, var / (var + mean SE²): the
    empirical reliability of shrunken (MAP) estimates (for ML estimates, Wright & Masters'
    (var − mean SE²) / var is the same idea). None with fewer than two estimates or no spread."""
    if estimates.size < 2:
        return None
    spread = float(np.var(estimates, ddof=1))
    error = float(np.mean(standard_errors**2))
    return spread / (spread + error) if spread + error > 0 else None


def normal_interval(estimate: np.ndarray, se: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    z = float(stats.norm.ppf(0.5 + confidence / 2.0))
    return estimate - z * se, estimate + z * se
