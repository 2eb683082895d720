"""The few distribution functions the results use, from `scipy.special`.

Each is the function `scipy.stats` computes for the same distribution (the tests hold them equal),
called through `scipy.special`, where `scipy.stats` evaluates it too. `scipy.stats` itself is not
imported: since scipy 1.16 its import rewrites the docstrings of hundreds of functions and costs
0.7–1.5 CPU seconds in each fresh process, about a third of computing a 105,000-answer study's
results (docs/performance.md, "Results of a large study"), where `scipy.special` costs a tenth of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def t_quantile(q: float, df: float) -> float:
    """Student's t quantile: `scipy.stats.t.ppf(q, df)`."""
    from scipy import special

    return float(special.stdtrit(df, q))


def t_sf(x: float, df: float) -> float:
    """Student's t upper tail: `scipy.stats.t.sf(x, df)`."""
    from scipy import special

    return float(special.stdtr(df, -x))


def normal_cdf(x: float) -> float:
    """`scipy.stats.norm.cdf(x)`."""
    from scipy import special

    return float(special.ndtr(x))


def normal_quantile(q: float) -> float:
    """`scipy.stats.norm.ppf(q)`."""
    from scipy import special

    return float(special.ndtri(q))


def chi2_sf(x: float, df: float) -> float:
    """χ² upper tail: `scipy.stats.chi2.sf(x, df)`."""
    from scipy import special

    return float(special.chdtrc(df, x))


def chi2_quantile(q: float, df: float) -> float:
    """χ² quantile: `scipy.stats.chi2.ppf(q, df)`."""
    from scipy import special

    return float(2.0 * special.gammaincinv(df / 2.0, q))


def f_quantile(q: float, dfn: float, dfd: float) -> float:
    """F quantile: `scipy.stats.f.ppf(q, dfn, dfd)`."""
    from scipy import special

    return float(special.fdtri(dfn, dfd, q))


def nct_cdf(x: float, df: float, nc: float) -> float:
    """Noncentral t: `scipy.stats.nct.cdf(x, df, nc)`."""
    from scipy import special

    return float(special.nctdtr(df, nc, x))


def nct_sf(x: float, df: float, nc: float) -> float:
    """Noncentral t upper tail: `scipy.stats.nct.sf(x, df, nc)`."""
    return 1.0 - nct_cdf(x, df, nc)


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (`scipy.stats.false_discovery_control(p, method="bh")`):
    p₍ᵢ₎ · m / i, made monotone from the largest down and capped at 1, in the input's order."""
    import numpy as np

    values = np.asarray(p, dtype=np.float64)
    m = values.size
    if m == 0:
        return values.copy()
    order = np.argsort(values)
    ranked = values[order] * m / np.arange(1, m + 1)
    ranked = np.minimum.accumulate(ranked[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.clip(ranked, 0.0, 1.0)
    return adjusted
