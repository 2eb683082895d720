"""The human accuracy's 95% CI, candidate methods compared on the same simulated studies: their
coverage of the people population's mean accuracy on the study's items (the truth `gap` measures the
page's interval against), at the skewed layouts of `human_skewed` and at every layout of
`truth.LAYOUTS`.

python -m perf.calibration.human_ci [--reps 1000] [--seed 11] [--layouts skewed-8 tiny ...]
[--methods t bootstrap_t ...]

Each replication draws a study, takes each participant's accuracy as the results page does
(`participant_accuracy`, every unit's participants pooled, as the headline pools them) and asks every
method for its interval; a method's row reports its coverage, the Monte Carlo SE, and its mean width.
A draw with fewer than two participants has no interval and is left out (none at these layouts).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from parity.stats.accuracy import participant_accuracy  # noqa: E402
from parity.stats.bootstrap import DEFAULT_SEED, Interval  # noqa: E402
from parity.stats.intervals import studentized_bootstrap_ci, t_mean_ci  # noqa: E402
from perf.calibration.truth import LAYOUTS, Layout, draw  # noqa: E402

CONFIDENCE = 0.95
#: BCa's resamples: fewer than the page's 10,000 (the table's cost is mostly BCa's); its coverage at
#: these layouts is far from the band where it misses, not by the few tenths resampling error moves it
BCA_RESAMPLES = 2_000

#: one unit of 40 items skewed easy (difficulty mean −2, about 93% right), as `human_skewed` draws it
SKEWED = {
    f"skewed-{people}": Layout(
        f"skewed-{people}",
        1,
        people,
        40,
        difficulty_mean=-2.0,
        skewed_easy=True,
        description=f"one unit, {people} people × 40 items skewed easy (93% right)",
    )
    for people in (8, 20, 25)
}
ALL_LAYOUTS = {**SKEWED, **LAYOUTS}


def _t_quantile(n: int) -> float:
    from scipy import special

    return float(special.stdtrit(n - 1, 0.5 + CONFIDENCE / 2.0))


def _cut(low: float, high: float) -> Interval:
    return Interval(low=max(0.0, low), high=min(1.0, high))


def _moments(data: np.ndarray) -> tuple[float, float, float]:
    """The mean, the sample std (n − 1) and the third central moment (divisor n), as Johnson writes them."""
    mean = float(data.mean())
    return mean, float(data.std(ddof=1)), float(((data - mean) ** 3).mean())


def johnson_ci(values: np.ndarray) -> Interval:
    """Johnson's modified t (N. J. Johnson, JASA 73:536, 1978, eq. 2.5):

        t1 = [(x̄ − μ) + μ̂3 / (6 s² n) + μ̂3 / (3 s⁴) · (x̄ − μ)²] / (s / √n),

    μ̂3 = Σ(x − x̄)³ / n. With t = √n (x̄ − μ) / s and γ̂ = μ̂3 / s³ it reads t1 = t + γ̂ (1 + 2t²) / (6√n)
    (the 1/√n, not 1/n: the n of the first term is in the numerator's scale). The interval is the μ with
    |t1| ≤ t(0.975, n − 1). t1 is quadratic in t, so each bound is the root on the branch through t = 0;
    where t1 never reaches the quantile on that branch (the discriminant is negative: Hall 1992's
    objection, t1 is not monotone) the bound is open, cut to 0 or 1. Left skew (γ̂ < 0, near the
    ceiling) moves the interval down, as it should: there the t-interval misses below."""
    n = values.size
    mean, std, mu3 = _moments(values)
    if std == 0.0:
        return _cut(mean, mean)
    a = mu3 / std**3 / (6.0 * math.sqrt(n))
    q = _t_quantile(n)
    se = std / math.sqrt(n)
    if abs(a) < 1e-12:
        return _cut(mean - q * se, mean + q * se)

    def root(level: float) -> float:
        # 2a t² + t + a − level = 0, the root that tends to level − a as a → 0
        disc = 1.0 - 8.0 * a * (a - level)
        if disc < 0.0:
            return math.inf if level > 0 else -math.inf
        return (-1.0 + math.sqrt(disc)) / (4.0 * a)

    t_high, t_low = root(q), root(-q)
    # μ = x̄ − t · s/√n: the largest t gives the lowest μ
    return _cut(mean - t_high * se, mean - t_low * se)


def hall_ci(values: np.ndarray) -> Interval:
    """Hall's transformation of the studentized mean (P. Hall, JRSS B 54:221, 1992, §2; the
    one-sample form as Zhou and Dinh, Biostatistics 6:187, 2005, write it): with S = (x̄ − μ)/s and
    γ̂ = μ̂3 / s³, √n · g(S) with g(S) = S + γ̂S²/3 + γ̂²S³/27 + γ̂/(6n) has no n^(−1/2) skewness term,
    and g is monotone (g(S) − γ̂/(6n) = ((1 + γ̂S/3)³ − 1)/γ̂), so its inverse is explicit:
    g⁻¹(x) = (3/γ̂)((1 + γ̂(x − γ̂/(6n)))^(1/3) − 1). The interval is x̄ − s · g⁻¹(±q/√n). q is
    Student's t(0.975, n − 1) rather than Hall's normal quantile, and s the sample std (n − 1), so
    that with no skew it is today's t-interval (with z it covered less, 88.9% at 8 skewed people)."""
    n = values.size
    mean, std, mu3 = _moments(values)
    if std == 0.0:
        return _cut(mean, mean)
    gamma = mu3 / std**3
    q = _t_quantile(n)

    def inverse(x: float) -> float:
        if abs(gamma) < 1e-12:
            return x
        return 3.0 / gamma * (float(np.cbrt(1.0 + gamma * (x - gamma / (6.0 * n)))) - 1.0)

    return _cut(mean - std * inverse(q / math.sqrt(n)), mean - std * inverse(-q / math.sqrt(n)))


def bca_ci(values: np.ndarray) -> Interval:
    """BCa over participants (Efron, JASA 82:171, 1987), scipy.stats.bootstrap's implementation,
    2,000 resamples (BCA_RESAMPLES), seed 0."""
    from scipy import stats

    mean = float(values.mean())
    if float(values.std()) == 0.0:
        return _cut(mean, mean)
    result = stats.bootstrap(
        (values,),
        np.mean,
        method="BCa",
        confidence_level=CONFIDENCE,
        n_resamples=BCA_RESAMPLES,
        random_state=DEFAULT_SEED,
        vectorized=True,
        axis=-1,
    )
    low, high = result.confidence_interval
    return _cut(float(low), float(high))


def _beta_binomial_log_likelihood(mean: float, log_precision: float, right: np.ndarray, scored: np.ndarray) -> float:
    from scipy import special

    precision = math.exp(log_precision)
    a, b = mean * precision, (1.0 - mean) * precision
    return float(np.sum(special.betaln(right + a, scored - right + b) - special.betaln(a, b)))


def beta_binomial_ci(right: np.ndarray, scored: np.ndarray) -> Interval:
    """A method that uses the items' count: each participant's right answers a beta-binomial count of
    their items (Skellam, JRSS B 10:257, 1948), the interval the means whose profile likelihood ratio
    is within n · log(1 + t²/(n − 1)) of the best (t = t(0.975, n − 1): the cut at which the profile
    likelihood interval of a normal mean is Student's t-interval exactly). Not offered on the page:
    the items are fixed, so a person's count is not binomial around their accuracy."""
    from scipy import optimize

    values = right / scored
    n = values.size
    mean = float(values.mean())
    if float(values.std()) == 0.0:
        return _cut(mean, mean)

    def profile(mu: float) -> float:
        best = optimize.minimize_scalar(
            lambda lp: -_beta_binomial_log_likelihood(mu, lp, right, scored),
            bounds=(-3.0, 12.0),
            method="bounded",
            options={"xatol": 1e-4},
        )
        return -float(best.fun)

    edge = 1e-6
    top = optimize.minimize_scalar(lambda mu: -profile(mu), bounds=(edge, 1 - edge), method="bounded")
    peak, highest = float(top.x), -float(top.fun)
    q = _t_quantile(n)
    cut = n * math.log1p(q * q / (n - 1))

    def excess(mu: float) -> float:
        return 2.0 * (highest - profile(mu)) - cut

    low = optimize.brentq(excess, edge, peak) if excess(edge) > 0 else 0.0
    high = optimize.brentq(excess, peak, 1 - edge) if excess(1 - edge) > 0 else 1.0
    return _cut(low, high)


def _t(values: np.ndarray) -> Interval:
    interval = t_mean_ci(values)
    assert interval is not None
    return interval


def _bootstrap_t(values: np.ndarray) -> Interval:
    interval = studentized_bootstrap_ci(values)
    assert interval is not None
    return interval


#: each method from a participant's right answers and answers scored (the accuracies are their ratio)
METHODS: dict[str, Callable[[np.ndarray, np.ndarray], Interval]] = {
    "t": lambda right, scored: _t(right / scored),
    "johnson": lambda right, scored: johnson_ci(right / scored),
    "hall": lambda right, scored: hall_ci(right / scored),
    "bootstrap_t": lambda right, scored: _bootstrap_t(right / scored),
    "bca": lambda right, scored: bca_ci(right / scored),
    "beta_binomial": beta_binomial_ci,
}
#: the table's methods unless asked (the beta-binomial's profile likelihood is slow: ask for it)
DEFAULT_METHODS = ["t", "johnson", "hall", "bootstrap_t", "bca"]
LABELS = {
    "t": "Student's t (before)",
    "johnson": "Johnson's modified t (1978)",
    "hall": "Hall's transformation (1992)",
    "bootstrap_t": "studentized bootstrap",
    "bca": "BCa (scipy)",
    "beta_binomial": "beta-binomial profile likelihood",
}


def coverage(layout: Layout, methods: list[str], reps: int, seed: int) -> dict[str, tuple[int, int, float]]:
    """Per method: (draws with an interval, draws covered, mean width)."""
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(methods, 0)
    widths: dict[str, list[float]] = {method: [] for method in methods}
    drawn = 0
    for _ in range(reps):
        study = draw(layout, rng)
        people = [p for p in participant_accuracy(study.table()) if p.n_scored]
        right = np.array([p.n_correct for p in people], dtype=float)
        scored = np.array([p.n_scored for p in people], dtype=float)
        if right.size < 2:
            continue
        drawn += 1
        truth = float(study.population_chance().mean())
        for method in methods:
            interval = METHODS[method](right, scored)
            hits[method] += interval.low <= truth <= interval.high
            widths[method].append(interval.high - interval.low)
    return {method: (drawn, hits[method], float(np.mean(widths[method]))) for method in methods}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--layouts", nargs="+", choices=list(ALL_LAYOUTS), default=list(ALL_LAYOUTS))
    parser.add_argument("--methods", nargs="+", choices=list(METHODS), default=DEFAULT_METHODS)
    args = parser.parse_args()
    started = time.perf_counter()
    print("| layout | " + " | ".join(LABELS[method] for method in args.methods) + " |")
    print("|---|" + "---:|" * len(args.methods))
    for name in args.layouts:
        # each layout its own seed, whichever layouts are asked for
        number = list(ALL_LAYOUTS).index(name)
        table = coverage(ALL_LAYOUTS[name], args.methods, args.reps, args.seed + 1_000 * number)
        cells = []
        for method in args.methods:
            drawn, hit, width = table[method]
            rate = hit / drawn
            cells.append(f"{100 * rate:.1f}% ± {100 * math.sqrt(rate * (1 - rate) / drawn):.1f} ({100 * width:.1f} pt)")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(
        f"\n{args.reps} replications per layout, seed {args.seed} (+1,000 per layout in the order of the full table); "
        f"coverage ± Monte Carlo SE (mean width in points); {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
