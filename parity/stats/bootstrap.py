"""Seeded percentile bootstrap of a mean, vectorised with numpy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_N_BOOT = 10_000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95

# Upper bound on resampled values held at once (~80 MB of int64 indices); larger jobs run in
# chunks so a 10 000 × 10 000 bootstrap does not need gigabytes.
_MAX_DRAWS_PER_CHUNK = 10_000_000


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def bootstrap_means(
    values: Sequence[float] | np.ndarray,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """Means of ``n_boot`` resamples (with replacement, same size) of ``values``."""
    data = np.asarray(values, dtype=float)
    n = data.size
    if n == 0 or n_boot <= 0:
        return np.empty(0)
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    chunk = max(1, _MAX_DRAWS_PER_CHUNK // n)
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        indices = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = data[indices].mean(axis=1)
    return means


def bootstrap_mean_ci(
    values: Sequence[float] | np.ndarray,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval | None:
    """Percentile-method CI of the mean of ``values``.

    None with fewer than two values (one value resamples to itself: a zero-width interval
    would claim a certainty the data cannot give) or when ``n_boot`` is 0.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if len(values) < 2:
        return None
    means = bootstrap_means(values, n_boot=n_boot, seed=seed)
    if means.size == 0:
        return None
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return Interval(low=float(low), high=float(high))
