"""The 1PL (Rasch) by conditional maximum likelihood: the respondents' abilities in logits with
the items conditioned away.

In the Rasch model an item's total right is sufficient for its difficulty, so the likelihood of
who got it right given how many did is free of the difficulty (Andersen 1970):
P(y | t) = exp(Σ_r α_r y_r) / γ_t(e^α), γ_t the elementary symmetric function of order t of the
e^α of the respondents who answered the item. Summed over items this is a conditional logistic
regression with the items as strata (statsmodels' `ConditionalLogit` gives the same estimates, at
~14 s for the implicature study's 24 respondents × 600 items against a fraction of a second here).

Why conditional and not marginal: a study of units gives each item a handful of people (five in the
implicature study). An item's difficulty estimated from five answers is then an incidental
parameter: it stays noisy however many items there are, and a marginal or joint fit that estimates
it inflates the scale (by simulation, the MML slope came out 2.4 logits per SD where the truth was
1 at five people per item, 1.33 at twenty). Conditioning removes the items exactly, so the
abilities are consistent with few people per item and many items, which is the design here.

A fractional score s (a model's mean over an item's variants, ½ for one of two right) enters as
its completions: the respondent right with weight s and wrong with weight 1 − s, each with the
stratum's total it implies, and the item contributes the weighted mean of its completions'
conditional log-likelihoods. With one such respondent on the item this is exactly the mean over
its variants of each variant's own conditional likelihood, an unbiased estimating equation, since
each variant's answer is a Bernoulli draw of the same ability; with several, their completions are
taken as independent, so the total's distribution is a Poisson-binomial over them. Since the term
Σ α_r y_r is linear, the expectation is Σ α_r s_r − E[log γ_T]. Rounding instead (½ to 0) placed a
model that is right on one variant of every item as if it were wrong on all of them. The SE is
the weighted likelihood's: exact when a model's variants agree, wider than needed when they are
independent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize
from threadpoolctl import threadpool_limits

#: a weak N(0, 5²) prior on each ability in logits: it fixes the common shift the conditional
#: likelihood leaves free (and each group of people that shares no item with the others), and
#: is ~1/1,000 of one item-long test's information
RIDGE_PRECISION = 1.0 / 25.0


@dataclass(frozen=True)
class Conditional:
    #: every respondent's ability in logits (shift fixed by the ridge)
    ability: np.ndarray
    #: their covariance (the inverse of the conditional information plus the ridge)
    covariance: np.ndarray
    converged: bool
    iterations: int


@dataclass(frozen=True)
class _Strata:
    """The items whose answers split (some right, some wrong, in some completion), as padded rows:
    `who[j, k]` the k-th respondent of item j (−1 past its last), `right[j, k]` its score,
    `total[j]` how many whole right answers it has, and `extra[j, d]` the chance that its
    fractional scores' completions add d more (d = 0 with certainty when there are none)."""

    who: np.ndarray
    right: np.ndarray
    total: np.ndarray
    extra: np.ndarray
    n_respondents: int


def _strata(respondent: np.ndarray, item: np.ndarray, score: np.ndarray, n_respondents: int, n_items: int) -> _Strata:
    y = np.asarray(score, dtype=np.float64)
    order = np.lexsort((respondent, item))
    respondent, item, y = respondent[order], item[order], y[order]
    count = np.bincount(item, minlength=n_items)
    width = int(count.max()) if count.size else 0
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    column = np.arange(item.size) - start[item]
    who = np.full((n_items, width), -1, dtype=np.int64)
    right = np.zeros((n_items, width))
    who[item, column] = respondent
    right[item, column] = y
    fractional = (right > 0.0) & (right < 1.0)
    total = np.where(fractional, 0.0, right).sum(axis=1).round().astype(np.int64)
    # the completions' extra right answers, a Poisson-binomial over each row's fractional scores
    depth = int(fractional.sum(axis=1).max()) if n_items else 0
    extra = np.zeros((n_items, depth + 1))
    extra[:, 0] = 1.0
    for k in range(width):
        chance = np.where(fractional[:, k], right[:, k], 0.0)[:, None]
        shifted = np.zeros_like(extra)
        shifted[:, 1:] = extra[:, :-1]
        extra = extra * (1.0 - chance) + shifted * chance
    orders = total[:, None] + np.arange(depth + 1)[None, :]
    informative = np.any((extra > 0.0) & (orders > 0) & (orders < count[:, None]), axis=1)
    return _Strata(who[informative], right[informative], total[informative], extra[informative], n_respondents)


def _esf(epsilon: np.ndarray) -> np.ndarray:
    """Rows of e^α (zero where padded) → their elementary symmetric functions, orders 0…width."""
    rows, width = epsilon.shape
    gamma = np.zeros((rows, width + 1))
    gamma[:, 0] = 1.0
    for k in range(width):
        gamma[:, 1 : k + 2] = gamma[:, 1 : k + 2] + epsilon[:, k : k + 1] * gamma[:, : k + 1]
    return gamma


def _objective(alpha: np.ndarray, strata: _Strata) -> tuple[float, np.ndarray]:
    """Minus the conditional log-likelihood plus the ridge, and its gradient."""
    present = strata.who >= 0
    # each item's abilities relative to their mean there: γ_t is homogeneous of degree t, so the
    # shift only rescales it, and keeps e^α in range
    values = np.where(present, alpha[np.maximum(strata.who, 0)], 0.0)
    centre = values.sum(axis=1) / present.sum(axis=1)
    epsilon = np.where(present, np.exp(values - centre[:, None]), 0.0)
    rows, width = epsilon.shape
    forward = np.zeros((rows, width + 1, width + 1))
    forward[:, 0, 0] = 1.0
    for k in range(width):
        forward[:, k + 1] = forward[:, k]
        forward[:, k + 1, 1:] += epsilon[:, k : k + 1] * forward[:, k, :-1]
    backward = np.zeros((rows, width + 2, width + 1))
    backward[:, width, 0] = 1.0
    for k in range(width - 1, -1, -1):
        backward[:, k] = backward[:, k + 1]
        backward[:, k, 1:] += epsilon[:, k : k + 1] * backward[:, k + 1, :-1]
    # the expected log-likelihood over the fractional scores' completions (see the module doc):
    # Σ α y − E[log γ_T], T = total + d with chance extra[:, d]
    log_lik = float(np.sum(np.where(present, values - centre[:, None], 0.0) * strata.right))
    chance = np.zeros((rows, width))
    for d in range(strata.extra.shape[1]):
        weight = strata.extra[:, d]
        total = np.minimum(strata.total + d, width)
        gamma = forward[np.arange(rows), width, total]
        used = weight > 0.0
        log_lik -= float(np.sum(weight[used] * np.log(gamma[used])))
        # P(respondent k right | t) = e^α_k γ_{t−1}(all but k) / γ_t, γ(all but k) the
        # convolution of the ESFs of those before k and those after
        orders = total[:, None] - 1 - np.arange(width + 1)[None, :]  # rows × l
        valid = (orders >= 0)[:, None, :]
        after = np.take_along_axis(backward[:, 1 : width + 1], np.maximum(orders, 0)[:, None, :], axis=2)
        without = np.sum(forward[:, :width] * np.where(valid, after, 0.0), axis=2)  # rows × respondents
        chance += np.where(used, weight / np.where(used, gamma, 1.0), 0.0)[:, None] * epsilon * without
    residual = np.where(present, strata.right - chance, 0.0)
    gradient = np.bincount(strata.who[present], residual[present], minlength=strata.n_respondents)
    value = -log_lik + 0.5 * RIDGE_PRECISION * float(alpha @ alpha)
    return value, -gradient + RIDGE_PRECISION * alpha


def fit_conditional(
    respondent: np.ndarray, item: np.ndarray, score: np.ndarray, n_respondents: int, n_items: int
) -> Conditional:
    """Every respondent's ability in logits by conditional ML (see the module doc)."""
    strata = _strata(respondent, item, score, n_respondents, n_items)
    with threadpool_limits(limits=1, user_api="blas"):
        solution = optimize.minimize(
            _objective,
            np.zeros(n_respondents),
            args=(strata,),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": 1000, "gtol": 1e-8, "ftol": 1e-14},
        )
        alpha = solution.x
        information = _hessian(alpha, strata)
        covariance = np.linalg.inv(information)
    gradient = _objective(alpha, strata)[1]
    return Conditional(
        ability=alpha,
        covariance=covariance,
        converged=bool(np.max(np.abs(gradient)) < 1e-4),
        iterations=int(solution.nit),
    )


def _hessian(alpha: np.ndarray, strata: _Strata, step: float = 1e-6) -> np.ndarray:
    """The Hessian of the objective by forward differences of its exact gradient, symmetrised
    (one gradient per respondent; the error, ~step × the third derivative, is far below an SE's
    precision)."""
    n = alpha.size
    at = _objective(alpha, strata)[1]
    hessian = np.empty((n, n))
    for r in range(n):
        moved = alpha.copy()
        moved[r] += step
        hessian[r] = (_objective(moved, strata)[1] - at) / step
    return 0.5 * (hessian + hessian.T)
