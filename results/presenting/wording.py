"""Small pieces of wording the results' tables and the report share: an interval in brackets and a
word in the singular or the plural."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from parity.benchmarks.tables import pct


def interval(bounds: Sequence[float | None] | None, write: Callable[[float], str] = pct) -> str:
    """ "[low, high]", each bound written by `write` (a percentage unless told); "—" where either
    bound is missing."""
    if not bounds or bounds[0] is None or bounds[1] is None:
        return "—"
    return f"[{write(bounds[0])}, {write(bounds[1])}]"


def plural(n: int, one: str, many: str) -> str:
    """`one` for exactly one, `many` otherwise (none included)."""
    return one if n == 1 else many
