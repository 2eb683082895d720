"""Every figure of two results objects compared, leaf by leaf: floats within a tolerance, everything
else (counts, ids, labels, flags, null) exactly. No Django here."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

#: the largest difference between two floats that still reproduces a figure
TOLERANCE = 1e-9
MISSING = "(missing)"


@dataclass(frozen=True)
class Difference:
    path: str
    bundled: Any
    recomputed: Any


@dataclass(frozen=True)
class Comparison:
    figures: int
    differences: list[Difference]

    @property
    def reproduced(self) -> bool:
        return not self.differences


def _same_leaf(bundled: Any, recomputed: Any, tolerance: float) -> bool:
    if isinstance(bundled, bool) or isinstance(recomputed, bool):
        return type(bundled) is type(recomputed) and bundled == recomputed
    if isinstance(bundled, float) and isinstance(recomputed, float):
        return math.isclose(bundled, recomputed, rel_tol=0.0, abs_tol=tolerance)
    # a count (an int) is never reproduced by a float, nor a float by an int: JSON keeps the two apart
    return type(bundled) is type(recomputed) and bundled == recomputed


def compare(bundled: Any, recomputed: Any, *, tolerance: float = TOLERANCE) -> Comparison:
    """Each leaf of `bundled` against the same path of `recomputed` (JSON paths such as
    `$.human.accuracy.mean`, `$.models[0].accuracy`); a key or element on one side only differs too."""
    differences: list[Difference] = []
    figures = 0

    def walk(path: str, left: Any, right: Any) -> None:
        nonlocal figures
        if isinstance(left, dict) and isinstance(right, dict):
            for key in sorted(set(left) | set(right), key=str):
                walk(f"{path}.{key}", left.get(key, MISSING), right.get(key, MISSING))
            return
        if isinstance(left, list) and isinstance(right, list):
            for index in range(max(len(left), len(right))):
                walk(
                    f"{path}[{index}]",
                    left[index] if index < len(left) else MISSING,
                    right[index] if index < len(right) else MISSING,
                )
            return
        figures += 1
        if not _same_leaf(left, right, tolerance):
            differences.append(Difference(path, left, right))

    walk("$", bundled, recomputed)
    return Comparison(figures, differences)
