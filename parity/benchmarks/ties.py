"""A tie decides nothing: where the likeliest of a model's options shares its score with another,
there is no answer, and it counts wrong (as the implicature authors' strict `<` counts it, and as
MiQA's rule does). Counting a tie for the first option would credit whichever option a benchmark
happens to list first."""

from __future__ import annotations

from collections.abc import Sequence

#: the raw answer stored for a tie
TIE = "tie"


def unique_best(values: Sequence[float]) -> int | None:
    """Index of the highest value; None when another value equals it."""
    top = max(values)
    found = [index for index, value in enumerate(values) if value == top]
    return found[0] if len(found) == 1 else None
