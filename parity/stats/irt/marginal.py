"""The 2PL (or a 1PL with a common slope) by marginal maximum likelihood on the people's answers.

Respondent r (a participant or a model run) answers item j right with probability
σ(a_j (θ_r − b_j)): θ the ability, b the difficulty, a the discrimination (one common a for every
item in the 1PL, one per item in the 2PL).

The item parameters are fitted to the people's answers alone by marginal maximum likelihood (MML,
Bock & Aitkin 1981): each person's ability is integrated out over θ ~ N(0, 1), so the people are a
sample from that population and not parameters of their own. In the 1PL the common discrimination
is free, so it is the people's SD in logits. Weak priors on the items only (b ~ N(b̄, 3²) about the
items' own mean b̄, log a ~ N(mean, 0.5²) per item in the 2PL about theirs, log a ~ N(0, 1) for the
1PL's common one) keep an item that every person got right finite; centred on the items' own mean,
they leave the origin and unit to the people (a prior at a fixed centre, over hundreds of items,
set both: measured). The fit is Bock and Aitkin's EM on a fine uniform grid: the E-step gives each
item's expected right answers and expected answers at every grid point (two sparse products), the
M-step fits each item to them by Fisher scoring. Plain EM crawls where a study's units are
linked only through the people's N(0, 1): a unit's people and items can shift and stretch together
almost freely, and EM moves them a few percent a step. So each step also expands the model
(PX-EM, Liu, Rubin & Wu 1998): each linked group's people get their own mean and SD for a moment,
fitted to their posteriors, and the group's items are moved to take them back to N(0, 1). At 700
people in four units of 150 items this reaches the optimum in about a dozen steps, where the
L-BFGS on the same objective it replaced took hundreds. The items' covariance is the inverse of the
exact Hessian at the optimum (Louis's identity: the posterior mean of each person's complete-data
Hessian minus the posterior covariance of their score, on adaptive Gauss–Hermite nodes), taken
group by group.

The placement uses this fit for the 2PL only: with a handful of people per item, an item's
parameters are incidental and MML's unit comes out inflated (2.4 logits per SD for a true 1 at five
people per item, by simulation); the 1PL is fitted conditionally (`conditional`).

Each respondent's ability is then Warm's weighted likelihood estimate (WLE) given the items: the
maximum likelihood with Firth's bias correction, finite for a perfect or a null score. A model is
not a member of the people population, so no N(0, 1) prior (a MAP or EAP) may shrink it towards
the people's mean; the people's own abilities are estimated the same way, so the model and the
people are compared on one footing.

`fit_marginal`'s own `ability_se_total` carries the items' uncertainty too (delta method: gᵀ Σ g,
Σ the items' covariance and g = ∂θ̂/∂(items) by the implicit function theorem on the ML estimating
equation). The placement does not use it: `parity.stats.irt` sets the abilities on the people's own
mean and SD, against which the items' common error cancels (see there).

A score may be fractional (a model's mean over an item's variants, or a graded answer scored 0,
½, 1): it enters the Bernoulli likelihood as it is (a quasi-likelihood), so partial credit moves
the estimates in proportion. Graded answers get no graded-response (Samejima) model here.

Why not a library: `girth` (0.8, 2021) installs with this project's numpy and fits MML, but
returns no covariance of the item parameters (its standard errors are a bootstrap refitting the
whole model hundreds of times, far too slow for the results page), reads only 0/1 answers in a
dense people × items matrix, and scores abilities by ML, MAP or EAP without Warm's correction.
`py-irt` fits by variational inference on torch versions this project does not run. The fit here
is tested by parameter recovery and by a calibration by simulation (tests/parity/stats/test_irt.py,
perf/calibration/irt.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize, sparse, special
from scipy.sparse import csgraph
from threadpoolctl import threadpool_limits

from parity.stats.irt.covariance import Covariance, block_inverse
from parity.stats.irt.responses import IrtFit, IrtModel, Responses

#: the item priors' standard deviations (see the module doc)
DIFFICULTY_PRIOR_SD = 3.0
LOG_DISCRIMINATION_PRIOR_SD = 0.5
COMMON_LOG_DISCRIMINATION_PRIOR_SD = 1.0
#: Gauss–Hermite points per person for the Hessian, adaptive (Schilling & Bock 2005): each
#: person's nodes centred on their posterior mean and scaled by its SD, since with hundreds of
#: answers a posterior is far narrower than the standard nodes' spacing
QUADRATURE_POINTS = 15
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(QUADRATURE_POINTS)
_LOG_WEIGHTS = np.log(_WEIGHTS / _WEIGHTS.sum())
#: the WLE is sought in [−BOUND, BOUND] population SDs, until no respondent's moves by TOLERANCE
ABILITY_BOUND = 10.0
ABILITY_TOLERANCE = 1e-11


@dataclass(frozen=True)
class _Design:
    """The people's answers, and how they map onto the item parameter vector [b…, log a…]."""

    person: np.ndarray
    item: np.ndarray
    y: np.ndarray
    n_people: int
    n_items: int
    two: bool
    #: people × answers, to sum each person's log-likelihood at every node
    by_person: sparse.csr_matrix
    #: people × nodes: each person's quadrature nodes and their log weights, which include the
    #: N(0, 1) density (for the standard nodes, log w_q; adapted, see `adapted`)
    nodes: np.ndarray
    log_weights: np.ndarray

    def adapted(self, mean: np.ndarray, sd: np.ndarray) -> _Design:
        """The same answers with each person's nodes at mean + sd·x_q: ∫ f φ = Σ_q w_q f(θ_q)
        φ(θ_q) sd / φ(x_q)."""
        nodes = mean[:, None] + sd[:, None] * _NODES[None, :]
        log_weights = _LOG_WEIGHTS[None, :] - 0.5 * nodes**2 + 0.5 * _NODES[None, :] ** 2 + np.log(sd)[:, None]
        return replace(self, nodes=nodes, log_weights=log_weights)

    def _posterior(self, psi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per answer and node: the slope, η and p; per person: the log marginal likelihood and
        the posterior weights of the nodes."""
        b, log_a = psi[: self.n_items], psi[self.n_items :]
        a = np.exp(log_a)[self.slope_index() - self.n_items]
        eta = a[:, None] * (self.nodes[self.person] - b[self.item][:, None])  # answers × nodes
        log_lik = self.y[:, None] * eta + special.log_expit(-eta)
        joint = np.asarray(self.by_person @ log_lik) + self.log_weights  # people × nodes
        marginal = special.logsumexp(joint, axis=1)
        return a, eta, special.expit(eta), marginal, np.exp(joint - marginal[:, None])

    @property
    def n_params(self) -> int:
        return 2 * self.n_items if self.two else self.n_items + 1

    def slope_index(self) -> np.ndarray:
        return self.n_items + (self.item if self.two else np.zeros_like(self.item))

    def blocks(self) -> list[tuple[slice, float, bool]]:
        """The priors' blocks of the parameter vector: (where, precision, centred). A block of many
        items is centred on its own mean (a hierarchical prior with a free mean): a prior at a fixed
        centre, over hundreds of items, would fix the items' mean difficulty and mean
        discrimination, that is, the scale's origin and unit, which only the people may set."""
        items = slice(0, self.n_items)
        slopes = slice(self.n_items, self.n_params)
        if self.two:
            return [(items, DIFFICULTY_PRIOR_SD**-2.0, True), (slopes, LOG_DISCRIMINATION_PRIOR_SD**-2.0, True)]
        return [(items, DIFFICULTY_PRIOR_SD**-2.0, True), (slopes, COMMON_LOG_DISCRIMINATION_PRIOR_SD**-2.0, False)]

    def prior(self, psi: np.ndarray, *, hessian: bool = True) -> tuple[float, np.ndarray, np.ndarray | None]:
        """The priors' negative log density (up to a constant), its gradient and (with `hessian`)
        its Hessian."""
        value, gradient = 0.0, np.zeros_like(psi)
        matrix = np.zeros((psi.size, psi.size)) if hessian else None
        for where, precision, centred in self.blocks():
            part = psi[where]
            size = part.size
            deviation = part - part.mean() if centred else part
            value += 0.5 * precision * float(deviation @ deviation)
            gradient[where] = precision * deviation
            if matrix is not None:
                block = np.eye(size) - (np.full((size, size), 1.0 / size) if centred else 0.0)
                matrix[where, where] = precision * block
        return value, gradient, matrix

    def evaluate(self, psi: np.ndarray, *, hessian: bool) -> tuple[float, np.ndarray, np.ndarray | None]:
        """The negative log marginal posterior of the item parameters `psi`, its gradient and (with
        `hessian`) its Hessian, the observed information by Louis's identity."""
        a, eta, p, marginal, posterior = self._posterior(psi)
        weight = posterior[self.person]  # answers × nodes
        residual = self.y[:, None] - p
        # the complete-data score of each answer at each node: ∂/∂b = −a r, ∂/∂log a = η r
        score_b = -a[:, None] * residual
        score_log_a = eta * residual
        prior_value, prior_gradient, prior_hessian = self.prior(psi, hessian=hessian)
        value = float(-marginal.sum() + prior_value)
        gradient = -np.concatenate(
            [
                np.bincount(self.item, np.sum(weight * score_b, axis=1), minlength=self.n_items),
                np.bincount(
                    self.slope_index() - self.n_items,
                    np.sum(weight * score_log_a, axis=1),
                    minlength=self.n_params - self.n_items,
                ),
            ]
        )
        gradient += prior_gradient
        if prior_hessian is None:
            return value, gradient, None
        return (
            value,
            gradient,
            self._information(a, eta, p, residual, weight, posterior, score_b, score_log_a) + prior_hessian,
        )

    def _information(
        self,
        a: np.ndarray,
        eta: np.ndarray,
        p: np.ndarray,
        residual: np.ndarray,
        weight: np.ndarray,
        posterior: np.ndarray,
        score_b: np.ndarray,
        score_log_a: np.ndarray,
    ) -> np.ndarray:
        n, q = self.n_params, _NODES.size
        variance = p * (1.0 - p)
        # the posterior mean of minus the complete-data Hessian, item by item
        bb = np.sum(weight * (a[:, None] ** 2 * variance), axis=1)
        ba = np.sum(weight * (a[:, None] * residual - a[:, None] * eta * variance), axis=1)
        aa = np.sum(weight * (eta**2 * variance - eta * residual), axis=1)
        slope = self.slope_index()
        info = np.zeros((n, n))
        np.add.at(info, (self.item, self.item), bb)
        np.add.at(info, (self.item, slope), ba)
        np.add.at(info, (slope, self.item), ba)
        np.add.at(info, (slope, slope), aa)
        # minus the posterior covariance of each person's complete-data score: Σ_p Mₚᵀ Mₚ, with
        # Mₚ's rows √w_pq (S_pq − S̄_p) over the nodes q. A person's score is zero outside the
        # parameters of their own items, so the sum is taken group by linked group (a study's
        # units), each over its own items' parameters only
        linked = _linked(self)
        group_of_answer = linked.person[self.person]
        local_person = np.zeros(self.n_people, dtype=np.int64)
        for group in np.unique(group_of_answer).tolist():
            rows = np.flatnonzero(group_of_answer == group)
            people = np.flatnonzero(linked.person == group)
            local_person[people] = np.arange(people.size)
            params = np.unique(np.concatenate([self.item[rows], slope[rows]]))
            width = params.size
            base = (local_person[self.person[rows]][:, None] * q + np.arange(q)[None, :]) * width
            size = people.size * q * width
            scores = (
                np.bincount(
                    (base + np.searchsorted(params, self.item[rows])[:, None]).ravel(),
                    score_b[rows].ravel(),
                    minlength=size,
                )
                + np.bincount(
                    (base + np.searchsorted(params, slope[rows])[:, None]).ravel(),
                    score_log_a[rows].ravel(),
                    minlength=size,
                )
            ).reshape(people.size, q, width)
            weights = posterior[people]
            mean = np.matmul(weights[:, None, :], scores)[:, 0, :]
            centred = ((scores - mean[:, None, :]) * np.sqrt(weights)[:, :, None]).reshape(people.size * q, width)
            info[np.ix_(params, params)] -= centred.T @ centred
        return info


def _design(responses: Responses, people: int, two: bool) -> _Design:
    from_people = responses.respondent < people
    person = responses.respondent[from_people]
    item = responses.item[from_people]
    y = responses.score[from_people].astype(np.float64)
    by_person = sparse.csr_matrix((np.ones(person.size), (person, np.arange(person.size))), shape=(people, person.size))
    nodes = np.broadcast_to(_NODES, (people, _NODES.size))
    log_weights = np.broadcast_to(_LOG_WEIGHTS, (people, _NODES.size))
    return _Design(person, item, y, people, responses.n_items, two, by_person, nodes, log_weights)


#: the fine grid the optimisation integrates on: uniform over ±6 SDs, at most 0.1 apart and no
#: wider than the narrowest posterior can be (1/√n for a person with n answers and slopes up to
#: 2). A uniform rule on a smooth peak of SD σ is accurate to ~exp(−2π²σ²/h²), ~1e-9 at h = σ;
#: and on one grid for everyone the people's log-likelihoods are two sparse products (Bock and
#: Aitkin's expected counts), where per-person nodes need every answer at every node
GRID_HALF_WIDTH = 6.0


@dataclass(frozen=True)
class _Grid:
    points: np.ndarray
    log_weights: np.ndarray


def _grid(most_answers: int) -> _Grid:
    spacing = min(0.1, 1.0 / np.sqrt(max(most_answers, 1)))
    points = np.linspace(-GRID_HALF_WIDTH, GRID_HALF_WIDTH, int(np.ceil(2 * GRID_HALF_WIDTH / spacing)) + 1)
    return _Grid(points, -0.5 * points**2 - special.logsumexp(-0.5 * points**2))


@dataclass(frozen=True)
class _Expectation:
    """One E-step on the grid: the negative log marginal posterior and its gradient (Fisher's
    identity: the complete data's, averaged over each person's posterior), each item's expected
    right answers and expected answers at each grid point, and each person's posterior mean and
    SD."""

    value: float
    gradient: np.ndarray
    right: np.ndarray
    answers: np.ndarray
    mean: np.ndarray
    sd: np.ndarray


def _slopes(psi: np.ndarray, design: _Design) -> np.ndarray:
    log_a = psi[design.n_items :]
    return np.exp(log_a) if design.two else np.full(design.n_items, np.exp(log_a[0]))


def _expectation(
    psi: np.ndarray, design: _Design, right: sparse.csr_matrix, wrong: sparse.csr_matrix, grid: _Grid
) -> _Expectation:
    n_items = design.n_items
    b, a = psi[:n_items], _slopes(psi, design)
    eta = a[:, None] * (grid.points[None, :] - b[:, None])  # items × grid
    joint = np.asarray(right @ special.log_expit(eta) + wrong @ special.log_expit(-eta)) + grid.log_weights
    marginal = special.logsumexp(joint, axis=1)  # people
    posterior = np.exp(joint - marginal[:, None])
    expected_right = np.asarray(right.T @ posterior)  # items × grid
    expected_all = expected_right + np.asarray(wrong.T @ posterior)
    residual = expected_right - expected_all * special.expit(eta)
    g_b = -a * residual.sum(axis=1)
    g_log_a = np.sum(eta * residual, axis=1)
    prior_value, prior_gradient, _ = design.prior(psi, hessian=False)
    gradient = -np.concatenate([g_b, g_log_a if design.two else [g_log_a.sum()]]) + prior_gradient
    mean = posterior @ grid.points
    sd = np.sqrt(np.maximum(posterior @ grid.points**2 - mean**2, 1e-4))
    return _Expectation(float(-marginal.sum() + prior_value), gradient, expected_right, expected_all, mean, sd)


#: the EM stops when no component of the log posterior's gradient exceeds EM_TOLERANCE, or when no
#: parameter moves by more than STEP_TOLERANCE in a step; one Newton step on the exact Hessian
#: then takes the gradient below GRADIENT_TOLERANCE (an item's information is in the tens at the
#: least, so the estimates are then within ~1e-7 of the optimum; see `fit_marginal`)
EM_TOLERANCE = 1e-4
STEP_TOLERANCE = 1e-7
GRADIENT_TOLERANCE = 1e-6
NEWTON_STEPS = 3
EM_MAX_ITERATIONS = 500
#: Fisher-scoring steps on the items per M-step (each one over items × grid points, far cheaper
#: than an E-step)
M_STEPS = 4


def _maximise_items(psi: np.ndarray, step: _Expectation, design: _Design, grid: _Grid) -> np.ndarray:
    """The M-step: the items that maximise the expected complete-data log posterior, by Fisher
    scoring, item by item in the 2PL (2 × 2 systems) and with the common slope's row and column
    in the 1PL (an arrowhead system, solved through its Schur complement). Each prior is centred
    on the items' mean *before* the step: that penalty lies above the centred one and touches it
    here, so the step still raises the posterior, and the fixed point is the same."""
    n_items = design.n_items
    (_, b_precision, _), (_, a_precision, a_centred) = design.blocks()
    b_centre = float(psi[:n_items].mean())
    a_centre = float(psi[n_items:].mean()) if a_centred else 0.0
    psi = psi.copy()
    for _ in range(M_STEPS):
        b, log_a = psi[:n_items], psi[n_items:]
        a = _slopes(psi, design)
        eta = a[:, None] * (grid.points[None, :] - b[:, None])
        p = special.expit(eta)
        residual = step.right - step.answers * p
        weight = step.answers * p * (1.0 - p)
        # the negative expected log posterior's gradient and expected Hessian (Fisher scoring)
        g_b = a * residual.sum(axis=1) + b_precision * (b - b_centre)
        g_a = -np.sum(eta * residual, axis=1)
        i_bb = a**2 * weight.sum(axis=1) + b_precision
        i_ba = -a * np.sum(eta * weight, axis=1)
        i_aa = np.sum(eta**2 * weight, axis=1)
        if design.two:
            g_a = g_a + a_precision * (log_a - a_centre)
            i_aa = i_aa + a_precision
            determinant = i_bb * i_aa - i_ba**2
            d_b = -(i_aa * g_b - i_ba * g_a) / determinant
            d_a = -(i_bb * g_a - i_ba * g_b) / determinant
        else:
            common_g = float(g_a.sum()) + a_precision * float(log_a[0] - a_centre)
            common_i = float(i_aa.sum()) + a_precision
            schur = common_i - float(np.sum(i_ba**2 / i_bb))
            d_a = np.array([-(common_g - float(np.sum(i_ba * g_b / i_bb))) / schur])
            d_b = -(g_b + i_ba * d_a[0]) / i_bb
        move = np.clip(np.concatenate([d_b, d_a]), -1.0, 1.0)
        psi += move
        if np.max(np.abs(move)) < 1e-10:
            break
    return psi


@dataclass(frozen=True)
class _Linked:
    """The groups of people and items linked by answers (a study's units): the connected components
    of the people–items graph. `person` and `item` give each one's group; `scale` each group's
    unit (one for all in the 1PL, whose slope is common)."""

    person: np.ndarray
    item: np.ndarray
    scale: np.ndarray
    count: int


def _linked(design: _Design) -> _Linked:
    answered = sparse.csr_matrix(
        (np.ones(design.person.size), (design.person, design.item)), shape=(design.n_people, design.n_items)
    )
    graph = sparse.bmat([[None, answered], [answered.T, None]])
    count, label = csgraph.connected_components(graph, directed=False)
    scale = np.arange(count) if design.two else np.zeros(count, dtype=np.int64)
    return _Linked(label[: design.n_people], label[design.n_people :], scale, count)


def _rescale(psi: np.ndarray, step: _Expectation, design: _Design, linked: _Linked) -> np.ndarray:
    """Parameter expansion (Liu, Rubin & Wu 1998): each linked group's people get a mean m and an
    SD s of their own for a moment, which maximise the expected complete-data log posterior given
    the items just fitted; the group's items then take its N(m, s²) back to N(0, 1) (b → (b − m)/s,
    a → a·s), which leaves the likelihood as it was. Plain EM moves a group's location and unit
    only as fast as its people's posteriors let it (a few percent a step with sharp posteriors,
    the rate of a few hundred iterations); this moves them to where the expected counts put them.
    The items' priors are not invariant to the move, so they take part in it."""
    n_items = design.n_items
    (_, b_precision, _), (_, a_precision, a_centred) = design.blocks()
    b, log_a = psi[:n_items], psi[n_items:]
    groups, scales = linked.count, int(linked.scale.max()) + 1
    size = np.bincount(linked.person, minlength=groups).astype(np.float64)
    first = np.bincount(linked.person, step.mean, minlength=groups)
    second = np.bincount(linked.person, step.sd**2 + step.mean**2, minlength=groups)
    item_scale = linked.scale[linked.item]
    # a group without people (an item only models answered) keeps its place
    free = size > 0

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        m, t = np.where(free, x[:groups], 0.0), x[groups:]
        t_group = t[linked.scale]
        spread = second - 2.0 * m * first + size * m**2  # Σ E[(θ − m)²] per group
        value = float(np.sum(size * t_group + 0.5 * spread * np.exp(-2.0 * t_group)))
        d_m = -(first - size * m) * np.exp(-2.0 * t_group)
        d_t: np.ndarray = np.bincount(linked.scale, size - spread * np.exp(-2.0 * t_group), minlength=scales)
        beta = (b - m[linked.item]) * np.exp(-t[item_scale])
        deviation = beta - beta.mean()
        value += 0.5 * b_precision * float(deviation @ deviation)
        d_m -= b_precision * np.bincount(linked.item, deviation * np.exp(-t[item_scale]), minlength=groups)
        d_t = d_t - b_precision * np.bincount(item_scale, deviation * beta, minlength=scales)
        if a_centred:
            spread_a = log_a + t[item_scale]
            deviation_a = spread_a - spread_a.mean()
            value += 0.5 * a_precision * float(deviation_a @ deviation_a)
            d_t = d_t + a_precision * np.bincount(item_scale, deviation_a, minlength=scales)
        else:
            common = float(log_a[0] + t[0])
            value += 0.5 * a_precision * common**2
            d_t[0] += a_precision * common
        return value, np.concatenate([np.where(free, d_m, 0.0), d_t])

    solution = optimize.minimize(
        objective, np.zeros(groups + scales), jac=True, method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15}
    )
    m, t = np.where(free, solution.x[:groups], 0.0), solution.x[groups:]
    moved_b = (b - m[linked.item]) * np.exp(-t[item_scale])
    moved_a = log_a + t[item_scale] if design.two else log_a + t[0]
    return np.concatenate([moved_b, moved_a])


def _expectation_maximisation(
    start: np.ndarray, design: _Design, right: sparse.csr_matrix, wrong: sparse.csr_matrix, grid: _Grid
) -> tuple[np.ndarray, _Expectation, int]:
    """Bock and Aitkin's EM on the grid with each linked group's location and unit expanded, to a
    gradient below EM_TOLERANCE or a step below STEP_TOLERANCE: the items, the last E-step
    (at them) and the iterations."""
    psi, linked = start, _linked(design)
    step = _expectation(psi, design, right, wrong, grid)
    iterations = 0
    while iterations < EM_MAX_ITERATIONS and np.max(np.abs(step.gradient)) >= EM_TOLERANCE:
        moved = _rescale(_maximise_items(psi, step, design, grid), step, design, linked)
        settled = np.max(np.abs(moved - psi)) < STEP_TOLERANCE
        psi, step = moved, _expectation(moved, design, right, wrong, grid)
        iterations += 1
        if settled:
            break
    return psi, step, iterations


def fit_marginal(responses: Responses, *, model: IrtModel = "2pl", people: int | None = None) -> IrtFit:
    """The items by MML on the answers of the first `people` respondents (all of them when None),
    then every respondent's WLE and SE (see the module doc)."""
    n_people = responses.n_respondents if people is None else people
    design = _design(responses, n_people, model == "2pl")
    item_rate = _shrunk_rates(design.item, design.y, design.n_items)
    # a start from the raw rates: each item's logit right, a slope of one
    start = np.concatenate([-special.logit(item_rate) * 0.6, np.zeros(design.n_params - design.n_items)])
    shape = (n_people, design.n_items)
    right = sparse.csr_matrix((design.y, (design.person, design.item)), shape=shape)
    wrong = sparse.csr_matrix((1.0 - design.y, (design.person, design.item)), shape=shape)
    grid = _grid(int(np.bincount(design.person, minlength=n_people).max()) if design.person.size else 1)
    # one BLAS thread: the products are small and only wait for each other on more, far longer on
    # a busy machine. EM on the fine grid finds the optimum; the Hessian (Louis's identity) is then
    # taken once, with each person's nodes adapted to their posterior there. The grid integral is
    # not exactly invariant to the moves of `_rescale` (by ~1e-6 in the log-likelihood where slopes
    # are steep), so the expanded EM can settle a hair from the grid's optimum, and it stops early
    # anyway: a Newton step or two on that Hessian take it there, too small to change the Hessian
    with threadpool_limits(limits=1, user_api="blas"):
        psi, step, iterations = _expectation_maximisation(start, design, right, wrong, grid)
        information = design.adapted(step.mean, step.sd).evaluate(psi, hessian=True)[2]
        assert information is not None
        covariance = _covariance(information, design)
        for _ in range(NEWTON_STEPS):
            if np.max(np.abs(step.gradient)) < GRADIENT_TOLERANCE:
                break
            # the Hessian is the adaptive nodes' and the objective the grid's: where they part (five
            # people per item, steep slopes) a step can overshoot, and only a better one is kept
            trial = psi - covariance @ step.gradient
            trial_step = _expectation(trial, design, right, wrong, grid)
            if trial_step.value >= step.value:
                break
            psi, step = trial, trial_step
        gradient = step.gradient
    converged = bool(np.max(np.abs(gradient)) < 1e-3)
    b = psi[: design.n_items]
    slopes = np.exp(psi[design.n_items :])
    a = slopes if design.two else np.full(design.n_items, slopes[0])
    ability, own_se = weighted_likelihood_abilities(responses, b, a)
    total_se = np.sqrt(own_se**2 + _item_variance(responses, ability, b, a, covariance, design))
    return IrtFit(
        model=model,
        ability=ability,
        ability_se=own_se,
        ability_se_total=total_se,
        difficulty=b,
        difficulty_se=np.sqrt(np.maximum(covariance.diagonal()[: design.n_items], 0.0)),
        discrimination=slopes if design.two else None,
        scale_logits=None if design.two else float(slopes[0]),
        people=n_people,
        converged=converged,
        iterations=iterations,
    )


def _covariance(information: np.ndarray, design: _Design) -> Covariance:
    """The items' covariance, the information's inverse (`covariance`): group by linked group in
    the 2PL, whose centred priors are its only terms across groups; the 1PL's common slope couples
    every item, so its information is inverted whole, as is any with a singular block (by a
    pseudo-inverse where the whole is singular too)."""
    if design.two:
        linked = _linked(design)
        items_of = [np.flatnonzero(linked.item == group) for group in range(linked.count)]
        groups = [np.concatenate([items, items + design.n_items]) for items in items_of if items.size]
        couplings = []
        for where, precision, centred in design.blocks():
            if centred:
                indicator = np.zeros(design.n_params)
                indicator[where] = 1.0
                couplings.append((indicator, precision / indicator.sum()))
        try:
            return block_inverse(information, groups, couplings)
        except np.linalg.LinAlgError:
            pass
    try:
        return Covariance.whole(np.linalg.inv(information))
    except np.linalg.LinAlgError:
        return Covariance.whole(np.linalg.pinv(information))


def _item_variance(
    responses: Responses, ability: np.ndarray, b: np.ndarray, a: np.ndarray, covariance: Covariance, design: _Design
) -> np.ndarray:
    """Per respondent, gᵀ Σ g: the variance its ability takes from the items' (delta method).
    θ̂ solves F = Σ a (y − p) = 0, so g = −(∂F/∂items)/(∂F/∂θ) = (∂F/∂items) / I."""
    r, j, y = responses.respondent, responses.item, responses.score.astype(np.float64)
    eta = a[j] * (ability[r] - b[j])
    p = special.expit(eta)
    variance = p * (1.0 - p)
    information = np.bincount(r, a[j] ** 2 * variance, minlength=responses.n_respondents)
    n = design.n_params
    slope_index = design.n_items + (j if design.two else np.zeros_like(j))
    size = responses.n_respondents * n
    d_f = np.bincount(r * n + j, a[j] ** 2 * variance, minlength=size) + np.bincount(
        r * n + slope_index, a[j] * ((y - p) - variance * eta), minlength=size
    )
    g = d_f.reshape(responses.n_respondents, n) / np.maximum(information, 1e-12)[:, None]
    return covariance.quadratic(g)


def weighted_likelihood_abilities(
    responses: Responses, difficulty: np.ndarray, discrimination: np.ndarray, *, iterations: int = 60
) -> tuple[np.ndarray, np.ndarray]:
    """Every respondent's WLE given the items (Warm 1989): the root of
    Σ a (y − p) + J / (2 I), with I = Σ a² p(1 − p) and J = Σ a³ p(1 − p)(1 − 2p), found by
    safeguarded Fisher scoring in [−ABILITY_BOUND, ABILITY_BOUND] for all respondents at once;
    and 1/√I there."""
    r, j, y = responses.respondent, responses.item, responses.score.astype(np.float64)
    a, b, n = discrimination[j], difficulty[j], responses.n_respondents

    def estimating(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = special.expit(a * (theta[r] - b))
        variance = p * (1.0 - p)
        score = np.bincount(r, a * (y - p), minlength=n)
        information = np.bincount(r, a**2 * variance, minlength=n)
        third = np.bincount(r, a**3 * variance * (1.0 - 2.0 * p), minlength=n)
        return score + third / (2.0 * np.maximum(information, 1e-300)), information

    # Fisher scoring (the estimating function's slope is −I, less the small slope of J / 2I)
    # inside a bracket that every evaluation narrows: a step that would leave it halves it instead
    low, high = np.full(n, -ABILITY_BOUND), np.full(n, ABILITY_BOUND)
    theta = np.zeros(n)
    for _ in range(iterations):
        value, information = estimating(theta)
        # the estimating function falls with θ: a positive value means the root lies above
        low = np.where(value > 0.0, theta, low)
        high = np.where(value < 0.0, theta, high)
        proposal = theta + value / np.maximum(information, 1e-300)
        inside = (proposal > low) & (proposal < high)
        moved = np.where(value == 0.0, theta, np.where(inside, proposal, 0.5 * (low + high)))
        settled = np.max(np.abs(moved - theta)) < ABILITY_TOLERANCE
        theta = moved
        if settled:
            break
    _, information = estimating(theta)
    return theta, 1.0 / np.sqrt(np.maximum(information, 1e-300))


def _shrunk_rates(index: np.ndarray, y: np.ndarray, size: int) -> np.ndarray:
    """Each index's share right with half an answer either way, so no logit is infinite."""
    return (np.bincount(index, y, minlength=size) + 0.5) / (np.bincount(index, minlength=size) + 1.0)
