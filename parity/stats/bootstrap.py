"""Seeded bootstraps, vectorised with numpy: the percentile bootstrap of a mean, and the BCa
interval of any statistic of resampled indices."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # imported where a bootstrap runs: the constants below are read at start-up by modules that
    # never bootstrap (docs/performance.md, "Start-up")
    import numpy as np

DEFAULT_N_BOOT = 10_000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95

# Resampled values gathered at once (8 MB), so a 10 000 × 10 000 bootstrap does not need gigabytes.
# The generator gives the same indices whatever the chunks and whether drawn as int32 or int64
# (tests/parity/stats/test_bootstrap.py holds this), so the means do not depend on either.
_MAX_DRAWS_PER_CHUNK = 1_000_000
# Resamples kept for reuse (`shared_resamples`) only up to this many indices (40 MB).
_MAX_SHARED_DRAWS = 10_000_000

#: within `shared_resamples`: the last resamples drawn, by (n, n_boot, seed)
_shared: ContextVar[dict[tuple[int, int, int], np.ndarray] | None] = ContextVar("shared_resamples", default=None)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@contextmanager
def shared_resamples() -> Iterator[None]:
    """Inside the block, bootstraps of as many values with the same count and seed draw their
    resamples once: a seeded generator gives them the same indices anyway (a results page
    bootstraps every unit's participants, and every model's items, at the same size)."""
    token = _shared.set({})
    try:
        yield
    finally:
        _shared.reset(token)


def _draws(rng: np.random.Generator, n: int, rows: int, dtype: type) -> np.ndarray:
    return rng.integers(0, n, size=(rows, n), dtype=dtype)


def _chunks(n: int, n_boot: int) -> Iterator[tuple[int, int]]:
    step = max(1, _MAX_DRAWS_PER_CHUNK // n)
    for start in range(0, n_boot, step):
        yield start, min(n_boot, start + step)


def _resamples(n: int, n_boot: int, seed: int) -> np.ndarray | None:
    """All `n_boot` resamples' indices, drawn once within `shared_resamples`; None outside it."""
    shared = _shared.get()
    if shared is None or n * n_boot > _MAX_SHARED_DRAWS:
        return None
    key = (n, n_boot, seed)
    if key not in shared:
        import numpy as np

        shared.clear()  # one set held at a time: the calls come grouped by size
        rng = np.random.default_rng(seed)
        # kept as int32 (half the memory; the same indices as int64 draws)
        drawn = np.empty((n_boot, n), dtype=np.int32)
        for start, stop in _chunks(n, n_boot):
            drawn[start:stop] = _draws(rng, n, stop - start, np.int32)
        shared[key] = drawn
    return shared[key]


def bootstrap_means(
    values: Sequence[float] | np.ndarray,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """Means of ``n_boot`` resamples (with replacement, same size) of ``values``."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    n = data.size
    if n == 0 or n_boot <= 0:
        return np.empty(0)
    drawn = _resamples(n, n_boot, seed)
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    # numpy gathers with native-width indices several times faster: shared int32 ones are widened
    # into one buffer, reused from chunk to chunk
    buffer = np.empty(0, dtype=np.intp)
    for start, stop in _chunks(n, n_boot):
        if drawn is None:
            indices = _draws(rng, n, stop - start, np.intp)
        else:
            if buffer.size < (stop - start) * n:
                buffer = np.empty((stop - start) * n, dtype=np.intp)
            indices = buffer[: (stop - start) * n].reshape(stop - start, n)
            indices[...] = drawn[start:stop]
        means[start:stop] = data.take(indices).mean(axis=1)
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
    import numpy as np

    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return Interval(low=float(low), high=float(high))


def index_bootstrap_interval(
    statistic: Callable[..., np.ndarray],
    n: int | Sequence[int],
    *,
    n_resamples: int,
    seed: int,
    confidence: float = DEFAULT_CONFIDENCE,
    method: str = "BCa",
    batch: int = 500,
) -> Interval:
    """The bias-corrected and accelerated (BCa; Efron & Tibshirani 1993, §14.3 and eq. 14.15) or
    the percentile (`method="percentile"`) bootstrap interval of a statistic of `n` observations,
    or of several samples of `n[0]`, `n[1]`, … observations resampled each within itself, which
    `statistic` computes from their indices: given one array of shape (..., k) of indices per
    sample it returns the statistic of each row.

    The arithmetic is `scipy.stats.bootstrap`'s step for step, with its seeded draws (`batch`
    resamples of each sample's indices at a time from `numpy.random.default_rng(seed)`, sample by
    sample), so the interval is the one it gives (tests/parity/stats/test_distributions.py holds them
    equal): scipy.stats itself is not imported, for the reason in `parity.stats.distributions`. NaN
    ends where the statistic is undefined in some resample, as scipy's do."""
    import numpy as np

    sizes = [n] if isinstance(n, int) else list(n)
    rng = np.random.default_rng(seed)
    resampled = np.concatenate(
        [
            np.asarray(
                statistic(*(rng.integers(0, size, size=(min(batch, n_resamples - start), size)) for size in sizes)),
                dtype=np.float64,
            )
            for start in range(0, n_resamples, batch)
        ]
    )
    alpha = (1.0 - confidence) / 2.0
    if method == "percentile":
        tails = [alpha, 1.0 - alpha]
    elif method == "BCa":
        tails = _bca_tails(statistic, sizes, resampled, alpha, batch)
    else:
        raise ValueError(f"method must be 'BCa' or 'percentile', got {method!r}")
    if np.isnan(resampled).any() or not np.isfinite(tails).all():
        return Interval(low=float("nan"), high=float("nan"))
    low, high = np.quantile(resampled, tails)
    return Interval(low=float(low), high=float(high))


def _bca_tails(
    statistic: Callable[..., np.ndarray], sizes: list[int], resampled: np.ndarray, alpha: float, batch: int
) -> list[float]:
    """BCa's two quantile levels of the resampled statistic, for a two-sided interval."""
    import numpy as np
    from scipy import special

    everything = [np.arange(size) for size in sizes]
    observed = float(statistic(*everything))
    # the bias correction: where the observed value falls among the resamples (ties counted half)
    share = (np.count_nonzero(resampled < observed) + np.count_nonzero(resampled <= observed)) / (2.0 * resampled.size)
    z0 = float(special.ndtri(share))
    # the acceleration, from the jackknife of each sample in turn (each row leaves one observation
    # out, the other samples whole)
    cubes = squares = 0.0
    for which, size in enumerate(sizes):
        left_out = []
        for start in range(0, size, batch):
            rows = range(start, min(start + batch, size))
            samples = [np.broadcast_to(indices, (len(rows), indices.size)) for indices in everything]
            samples[which] = np.stack([np.delete(everything[which], k) for k in rows])
            left_out.append(np.asarray(statistic(*samples)))
        values = np.concatenate(left_out)
        spread = (size - 1) * (values.mean() - values)
        cubes += np.sum(spread**3) / size**3
        squares += np.sum(spread**2) / size**2
    acceleration = 1 / 6 * cubes / squares ** (3 / 2)
    z_alpha = float(special.ndtri(alpha))
    return [float(special.ndtr(z0 + (z0 + z) / (1.0 - acceleration * (z0 + z)))) for z in (z_alpha, -z_alpha)]
