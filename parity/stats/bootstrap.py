"""Seeded percentile bootstrap of a mean, vectorised with numpy."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
# (tests/stats/test_bootstrap.py holds this), so the means do not depend on either.
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
