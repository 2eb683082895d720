"""Agreement counted item by item with dictionaries: the slow, obvious reference the vectorised
statistics are checked against."""

from __future__ import annotations

from collections import Counter, defaultdict

from parity.stats.ratings import Rating


def item_counts(ratings: list[Rating]) -> list[Counter[str]]:
    """Each item's answer counts, for items answered at least twice."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for rating in ratings:
        if rating.answer is not None:
            counts[rating.item][rating.answer] += 1
    return [c for c in counts.values() if c.total() >= 2]


def pair_agreement(counts: Counter[str]) -> float:
    """The share of an item's annotator pairs that agree."""
    n = counts.total()
    return sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))
