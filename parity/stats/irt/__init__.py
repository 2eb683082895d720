"""People and models on one ability scale: the people population's (0 = its mean, 1 = its SD).

Respondent r (a participant or a model run) answers item j right with probability
σ(a_j (θ_r − b_j)): θ the ability, b the difficulty, a the discrimination. Two fits, by the
design's regime:

- **1PL** (`conditional`, the default below `TWO_PL_MIN_ANSWERS_PER_ITEM` people's answers per
  item): every respondent's ability in logits α by conditional maximum likelihood, the items
  conditioned away (consistent with few people per item, where any fit that estimates each item's
  difficulty is not). The people are a sample from a population N(μ, σ²) of logits: μ̂ is their
  mean, σ̂² their variance less their mean squared SE (the measurement error's share), and every
  ability is reported as θ = (α − μ̂)/σ̂. A model's θ is then a standardised mean difference, and
  its CI is the exact one for that (Steiger & Fouladi's noncentral t with n − 1 degrees of
  freedom), with n the *effective* number of people: σ̂² / (σ̂²/n + Var(α̂_m − μ̂)), which folds
  the model's and the people's measurement error into the people's sampling error.
- **2PL** (`marginal`): the items by marginal maximum likelihood on the people's answers with
  θ ~ N(0, 1), each respondent's θ by Warm's WLE; then the same people's scale and noncentral-t CI
  as the 1PL, with each WLE's own SE as its measurement error.

Neither shrinks a model towards the people: a model is not a member of their population. A
respondent who got every item right (or wrong) has no finite conditional ML ability; in the 1PL it
gets Warm's WLE on the items the people split on (`_extreme_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize, special

from parity.stats.distributions import nct_cdf, normal_quantile
from parity.stats.irt.conditional import fit_conditional
from parity.stats.irt.marginal import fit_marginal, weighted_likelihood_abilities
from parity.stats.irt.responses import IrtFit, IrtModel, Responses

__all__ = [
    "IrtFit",
    "IrtModel",
    "Responses",
    "choose_model",
    "fit",
    "intervals",
    "normal_interval",
    "percentile_among",
    "separation_reliability",
]

#: the 2PL is fitted when the items have at least this many people's answers each (the median):
#: with fewer an item's discrimination is mostly noise, and MML's scale is inflated by the items'
#: own estimation error (by simulation, 1.33 logits per SD for a true 1 at 20 answers per item)
TWO_PL_MIN_ANSWERS_PER_ITEM = 100
#: the prior SD of an item's difficulty (in people SDs) about the people's mean, for the 1PL's
#: item table and the divergent-items test: it keeps an item every person got right finite
DIFFICULTY_PRIOR_SD = 3.0


def choose_model(responses: Responses, people: int) -> IrtModel:
    """The 2PL when the items have enough people's answers to tell their discriminations apart."""
    from_people = responses.respondent < people
    per_item = np.bincount(responses.item[from_people], minlength=responses.n_items)
    answered = per_item[per_item > 0]
    return "2pl" if answered.size and float(np.median(answered)) >= TWO_PL_MIN_ANSWERS_PER_ITEM else "1pl"


def fit(responses: Responses, *, model: IrtModel = "2pl", people: int | None = None) -> IrtFit:
    """Every respondent's ability on the scale of the first `people` respondents' population
    (all of them when None), and the items' parameters (see the module doc)."""
    n_people = responses.n_respondents if people is None else people
    if model == "2pl":
        return _fit_two_parameter(responses, n_people)
    return _fit_rasch(responses, n_people)


@dataclass(frozen=True)
class _Scale:
    """The people's mean and SD (less their measurement error) as origin and unit, every ability
    on it, and each respondent's effective number of people (see the module doc)."""

    mu: float
    sigma: float
    theta: np.ndarray
    effective: np.ndarray
    total_se: np.ndarray


def _people_scale(estimate: np.ndarray, contrast_variance: np.ndarray, n_people: int) -> _Scale:
    """`estimate` the abilities on any linear scale, `contrast_variance` each one's measurement
    variance relative to the people's mean, Var(α̂_r − μ̂)."""
    people = estimate[:n_people]
    mu = float(people.mean())
    spread = float(np.var(people, ddof=1)) if n_people > 1 else 1.0
    # the people's variance less the measurement error's share of it, E[s²] = σ² + Σ_p Var(α̂_p −
    # μ̂)/(n − 1); never below a quarter of it (with very few, very noisy people the difference can
    # be small or negative)
    error = float(contrast_variance[:n_people].sum()) / max(n_people - 1, 1)
    sigma2 = max(spread - error, spread / 4.0, 1e-6)
    theta = (estimate - mu) / np.sqrt(sigma2)
    effective = sigma2 / (sigma2 / n_people + contrast_variance)
    total_se = np.sqrt(1.0 / effective + theta**2 / (2.0 * max(n_people - 1, 1)))
    return _Scale(mu, float(np.sqrt(sigma2)), theta, effective, total_se)


def _fit_two_parameter(responses: Responses, n_people: int) -> IrtFit:
    """The MML items and WLE abilities, then on the people's own mean and SD: the MML's N(0, 1) is
    the population's by assumption, and the items' finite-sample bias (discriminations ~7% high
    at 200 people per item, by simulation) shrinks every WLE alike, which the people's SD undoes."""
    result = fit_marginal(responses, model="2pl", people=n_people)
    own = result.ability_se**2
    # the items' error shifts and stretches everyone alike and cancels against the people's mean;
    # what is left is each respondent's own error and the people's mean's
    contrast_variance = own + float(own[:n_people].mean()) / n_people
    scale = _people_scale(result.ability, contrast_variance, n_people)
    assert result.discrimination is not None
    return replace(
        result,
        ability=scale.theta,
        ability_se=np.sqrt(contrast_variance) / scale.sigma,
        ability_se_total=scale.total_se,
        difficulty=(result.difficulty - scale.mu) / scale.sigma,
        difficulty_se=result.difficulty_se / scale.sigma,
        discrimination=result.discrimination * scale.sigma,
        interval="noncentral-t",
        effective_people=scale.effective,
    )


def _fit_rasch(responses: Responses, n_people: int) -> IrtFit:
    result = fit_conditional(
        responses.respondent, responses.item, responses.score, responses.n_respondents, responses.n_items
    )
    alpha, covariance = result.ability, result.covariance
    # Var(α̂_r − μ̂) from the measurement: the contrast e_r − (1/n) Σ_p e_p through the covariance
    # (free of the common shift that only the ridge fixes)
    mean_row = covariance[:, :n_people].mean(axis=1)
    contrast_variance = np.diag(covariance) - 2.0 * mean_row + float(covariance[:n_people, :n_people].mean())
    contrast_variance = np.maximum(contrast_variance, 0.0)
    alpha, contrast_variance = _extreme_scores(responses, alpha, contrast_variance, n_people)
    scale = _people_scale(alpha, contrast_variance, n_people)
    mu, sigma = scale.mu, scale.sigma
    difficulty_logits, difficulty_se_logits = _difficulties(responses, alpha, n_people, mu, sigma)
    return IrtFit(
        model="1pl",
        ability=scale.theta,
        ability_se=np.sqrt(contrast_variance) / sigma,
        ability_se_total=scale.total_se,
        difficulty=(difficulty_logits - mu) / sigma,
        difficulty_se=difficulty_se_logits / sigma,
        discrimination=None,
        scale_logits=sigma,
        people=n_people,
        converged=result.converged,
        iterations=result.iterations,
        interval="noncentral-t",
        effective_people=scale.effective,
    )


def _extreme_scores(
    responses: Responses, alpha: np.ndarray, contrast_variance: np.ndarray, n_people: int
) -> tuple[np.ndarray, np.ndarray]:
    """A respondent who got every item right (or every one wrong) has no finite conditional ML
    ability: the ridge alone would place it, ~10 logits out. It gets Warm's WLE instead, on the
    items the people split on (some right, some wrong: their difficulties are the people's data,
    not a prior's), given those difficulties: finite, and as far past them as their number
    warrants. Its measurement variance is the WLE's."""
    # a fractional score (a model's mean over variants) is neither right nor wrong: only a
    # respondent whose every score is 0 (or every one 1) is extreme
    right = np.bincount(responses.respondent, responses.score, minlength=responses.n_respondents)
    answered = np.bincount(responses.respondent, minlength=responses.n_respondents)
    extreme = (answered > 0) & ((right <= 0) | (right >= answered))
    ordinary = ~extreme
    ordinary[n_people:] = False
    if not extreme.any() or ordinary.sum() < 2:
        return alpha, contrast_variance
    from_people = responses.respondent < n_people
    people_right = np.bincount(responses.item[from_people], responses.score[from_people], minlength=responses.n_items)
    people_answered = np.bincount(responses.item[from_people], minlength=responses.n_items)
    split = (people_right > 0) & (people_right < people_answered)
    rows = split[responses.item] & extreme[responses.respondent]
    if not rows.any():
        return alpha, contrast_variance
    centre, spread = float(alpha[ordinary].mean()), max(float(alpha[ordinary].std()), 0.5)
    difficulty, _ = _difficulties(responses, alpha, n_people, centre, spread)
    subset = Responses(
        responses.respondent[rows],
        responses.item[rows],
        responses.score[rows],
        responses.n_respondents,
        responses.n_items,
    )
    wle, se = weighted_likelihood_abilities(subset, difficulty, np.ones(responses.n_items))
    people_error = float(np.mean(contrast_variance[:n_people][ordinary[:n_people]]))
    placed = extreme & (np.bincount(subset.respondent, minlength=responses.n_respondents) > 0)
    return np.where(placed, wle, alpha), np.where(placed, se**2 + people_error / n_people, contrast_variance)


def _difficulties(
    responses: Responses, alpha: np.ndarray, n_people: int, mu: float, sigma: float, iterations: int = 40
) -> tuple[np.ndarray, np.ndarray]:
    """Each item's difficulty in logits from the people's answers given their abilities, by MAP
    with a N(μ, (3σ)²) prior (Newton's method for all items at once), and its SE."""
    from_people = responses.respondent < n_people
    item, y = responses.item[from_people], responses.score[from_people].astype(np.float64)
    a = alpha[responses.respondent[from_people]]
    precision = 1.0 / (DIFFICULTY_PRIOR_SD * sigma) ** 2
    b = np.full(responses.n_items, mu)
    information = np.full(responses.n_items, precision)
    for _ in range(iterations):
        p = special.expit(a - b[item])
        score = -np.bincount(item, y - p, minlength=responses.n_items) - precision * (b - mu)
        information = np.bincount(item, p * (1.0 - p), minlength=responses.n_items) + precision
        step = np.clip(score / information, -2.0, 2.0)
        b = b + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return b, 1.0 / np.sqrt(information)


def intervals(result: IrtFit, confidence: float, respondents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The `confidence` CIs of the abilities of `respondents` (indices), by the fit's method."""
    estimate = result.ability[respondents]
    if result.interval != "noncentral-t" or result.effective_people is None:
        return normal_interval(estimate, result.ability_se_total[respondents], confidence)
    low, high = np.empty(estimate.size), np.empty(estimate.size)
    df = max(result.people - 1, 1)
    for k, (theta, n) in enumerate(zip(estimate, result.effective_people[respondents], strict=True)):
        low[k], high[k] = _standardised_mean_interval(float(theta), float(n), df, confidence)
    return low, high


def _standardised_mean_interval(theta: float, n: float, df: int, confidence: float) -> tuple[float, float]:
    """The CI of δ from d = θ̂ when √n·d follows a noncentral t(df, √n·δ): the noncentrality
    parameters that put the observed t at the upper and lower tail (Steiger & Fouladi 1997)."""
    root_n = np.sqrt(n)
    observed = theta * root_n
    tail = (1.0 - confidence) / 2.0

    def at(ncp: float, target: float) -> float:
        value = nct_cdf(observed, df, ncp)
        if not np.isfinite(value):
            # far in a tail scipy's series can fail; the cdf is then 1 (ncp well below) or 0
            value = 1.0 if ncp < observed else 0.0
        return value - target

    # the ncp's CI lies within the observed t ± a normal margin (the delta method's SE of t,
    # √(1 + t²/2df), four times over), widened as needed
    span = 4.0 * float(np.sqrt(1.0 + observed**2 / (2.0 * df))) + 1.0
    bounds = []
    for target in (1.0 - tail, tail):
        low, high = observed - span, observed + span
        while at(low, target) < 0:
            low -= span
        while at(high, target) > 0:
            high += span
        bounds.append(optimize.brentq(at, low, high, args=(target,), xtol=1e-10))
    return bounds[0] / root_n, bounds[1] / root_n


def percentile_among(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The percentile (0–100) of each value among `reference`: the share below, ties counted half."""
    ordered = np.sort(reference)
    below = np.searchsorted(ordered, values, side="left")
    at_or_below = np.searchsorted(ordered, values, side="right")
    return 100.0 * (below + at_or_below) / (2.0 * ordered.size)


def separation_reliability(estimates: np.ndarray, standard_errors: np.ndarray) -> float | None:
    """The share of the estimates' variance that is true variance, (var − mean SE²) / var
    (Wright & Masters), for unshrunken estimates; at least 0. None with fewer than two estimates or
    no spread."""
    if estimates.size < 2:
        return None
    spread = float(np.var(estimates, ddof=1))
    if spread <= 0:
        return None
    error = float(np.mean(standard_errors**2))
    return max(0.0, (spread - error) / spread)


def normal_interval(estimate: np.ndarray, se: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    z = normal_quantile(0.5 + confidence / 2.0)
    return estimate - z * se, estimate + z * se
