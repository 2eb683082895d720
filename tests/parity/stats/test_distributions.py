"""The distribution functions and the index bootstrap that stand in for `scipy.stats` in the results
are the values `scipy.stats` computes (the tests may import it; the results do not)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from parity.stats import distributions
from parity.stats.agreement_ci import fleiss_kappa_of_counts, nominal_alpha_of_counts
from parity.stats.bootstrap import index_bootstrap_interval
from tests.paths import REPO


@pytest.mark.parametrize("df", [1, 2.5, 4, 19, 120, 1e6])
@pytest.mark.parametrize("q", [0.001, 0.025, 0.3, 0.5, 0.975, 0.9995])
def test_t_and_chi2_quantiles_and_tails_are_scipy_stats(df: float, q: float) -> None:
    assert distributions.t_quantile(q, df) == pytest.approx(stats.t.ppf(q, df), rel=1e-13, abs=1e-300)
    assert distributions.chi2_quantile(q, df) == pytest.approx(stats.chi2.ppf(q, df), rel=1e-13)
    x = stats.t.ppf(q, df)
    assert distributions.t_sf(x, df) == pytest.approx(stats.t.sf(x, df), rel=1e-13)
    assert distributions.chi2_sf(df * q * 2, df) == pytest.approx(stats.chi2.sf(df * q * 2, df), rel=1e-13)


@pytest.mark.parametrize("x", [-8.0, -1.96, 0.0, 0.4, 2.5, 7.0])
def test_normal_and_noncentral_t_are_scipy_stats(x: float) -> None:
    assert distributions.normal_cdf(x) == pytest.approx(stats.norm.cdf(x), rel=1e-14)
    q = stats.norm.cdf(x)
    assert distributions.normal_quantile(q) == pytest.approx(stats.norm.ppf(q), rel=1e-14)
    for df, nc in ((3, 0.0), (12, 1.5), (40, -2.0)):
        assert distributions.nct_cdf(x, df, nc) == pytest.approx(stats.nct.cdf(x, df, nc), rel=1e-12, abs=1e-15)
        assert distributions.nct_sf(x, df, nc) == pytest.approx(stats.nct.sf(x, df, nc), rel=1e-9, abs=1e-15)


def test_benjamini_hochberg_is_scipy_false_discovery_control() -> None:
    rng = np.random.default_rng(5)
    for p in (rng.random(40) ** 3, np.array([0.01, 0.01, 0.04, 0.04, 0.5, 1.0]), np.array([0.2])):
        np.testing.assert_allclose(
            distributions.benjamini_hochberg(p), stats.false_discovery_control(p, method="bh"), rtol=1e-15
        )
    assert distributions.benjamini_hochberg(np.array([])).size == 0


@pytest.mark.parametrize("method", ["BCa", "percentile"])
@pytest.mark.parametrize("n", [20, 45, 130])
def test_the_index_bootstrap_is_scipy_stats_bootstrap(method: str, n: int) -> None:
    rng = np.random.default_rng(n)
    counts = rng.multinomial(5, [0.5, 0.3, 0.2], size=n).astype(float)
    for statistic in (fleiss_kappa_of_counts, nominal_alpha_of_counts):
        ours = index_bootstrap_interval(
            lambda items, statistic=statistic: statistic(counts[items]), n, n_resamples=2000, seed=4, method=method
        )
        theirs = stats.bootstrap(
            (np.arange(n),),
            lambda items, axis=-1, statistic=statistic: statistic(counts[items]),
            vectorized=True,
            n_resamples=2000,
            batch=500,
            method=method,
            confidence_level=0.95,
            rng=np.random.default_rng(4),
        ).confidence_interval
        assert ours.low == pytest.approx(theirs.low, abs=1e-14)
        assert ours.high == pytest.approx(theirs.high, abs=1e-14)


def test_an_undefined_resample_gives_no_interval() -> None:
    # one item differs: many resamples hold only unanimous items, whose κ is 0/0
    counts = np.array([[3.0, 0.0]] * 19 + [[0.0, 3.0]])
    interval = index_bootstrap_interval(
        lambda items: fleiss_kappa_of_counts(counts[items]), 20, n_resamples=500, seed=0
    )
    assert np.isnan(interval.low) and np.isnan(interval.high)
    with pytest.raises(ValueError, match="method"):
        index_bootstrap_interval(lambda items: items.mean(axis=-1), 5, n_resamples=10, seed=0, method="basic")


def test_computing_a_studys_results_and_a_power_analysis_does_not_import_scipy_stats() -> None:
    """Its import costs the results 0.7–1.5 s in a fresh process (`parity.stats.distributions`)."""
    code = "\n".join(
        [
            "import sys",
            "import numpy as np",
            "from parity.stats import Rating",
            "from parity.stats.agreement_ci import agreement_intervals",
            "from parity.stats.looks import forecast",
            "from parity.stats.paired import paired_test",
            "from parity.stats.placement import joint_placement",
            "from parity.stats.table import rating_table",
            "rng = np.random.default_rng(0)",
            "right = rng.random((12, 30)) < 0.75",
            "ratings = [Rating(f'p{p}', f'i{i}', 'yes' if right[p, i] else 'no', bool(right[p, i]), None)"
            " for p in range(12) for i in range(30)]",
            "table = rating_table(ratings)",
            "model = {f'i{i}': float(rng.random() < 0.8) for i in range(30)}",
            "assert agreement_intervals(ratings).fleiss_kappa_ci95 is not None",
            "test = paired_test(model, table)",
            "assert test.p is not None and test.mcnemar.p is not None",
            "assert joint_placement(table, {'m': model}) is not None",
            "assert forecast([0.8, 0.7, 0.9, 0.85], 0.1) is not None",
            "from parity.stats.power import VarianceComponents, power_analysis",
            "power_analysis(people=30, items_per_person=40, components=VarianceComponents(0.8, 1.0, 1.0))",
            "print('scipy.stats' in sys.modules)",
        ]
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("q", [0.025, 0.5, 0.975])
def test_the_f_quantile_is_scipy_stats(q: float) -> None:
    for dfn, dfd in ((1, 1), (4, 17.3), (99, 250)):
        assert distributions.f_quantile(q, dfn, dfd) == pytest.approx(stats.f.ppf(q, dfn, dfd), rel=1e-12)


@pytest.mark.parametrize("method", ["BCa", "percentile"])
def test_several_samples_resample_each_within_itself_as_scipy_stats_bootstrap_does(method: str) -> None:
    """A statistic of samples of 20, 33 and 41 (units' items, each resampled within its unit)."""
    rng = np.random.default_rng(2)
    values = [rng.normal(size=size) ** 2 for size in (20, 33, 41)]

    def statistic(*indices: np.ndarray, axis: int = -1) -> np.ndarray:
        shape = np.broadcast_shapes(*(index.shape[:-1] for index in indices))
        means = [
            np.broadcast_to(value[index], (*shape, index.shape[-1])).mean(axis=-1)
            for value, index in zip(values, indices)
        ]
        return np.log(np.mean(means, axis=0))

    ours = index_bootstrap_interval(statistic, [20, 33, 41], n_resamples=1500, seed=9, method=method)
    theirs = stats.bootstrap(
        tuple(np.arange(value.size) for value in values),
        statistic,
        vectorized=True,
        n_resamples=1500,
        batch=500,
        method=method,
        confidence_level=0.95,
        rng=np.random.default_rng(9),
    ).confidence_interval
    assert ours.low == pytest.approx(theirs.low, abs=1e-13)
    assert ours.high == pytest.approx(theirs.high, abs=1e-13)
