"""Learning curves over example positions (AmbiBench's example-disambiguation setting).

Each episode contributes one score per position; the CI at a position resamples episodes
(for humans, one episode is one participant). Every position uses the same seed, so with
complete episodes each bootstrap replicate draws the same episodes at every position: the
curve is resampled as a whole rather than point by point.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from parity.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    bootstrap_mean_ci,
)
from parity.stats.results import JsonResult, coerce_rows

GroupField = Literal["salient_feature", "format"]


@dataclass(frozen=True)
class PositionAnswer:
    episode: str
    # 1-based position of the example inside its episode.
    position: int
    # 1/0 for a human's right/wrong answer (invalid output is 0); a model may give the
    # probability of the correct label, the oracle a share of hypotheses.
    score: float
    salient_feature: str | None = None
    format: str | None = None
    # False for an answer other than X or Y (typed free text, or a model's mass on another token);
    # such an answer scores 0 and is counted apart.
    valid: bool = True


@dataclass(frozen=True)
class PositionPoint(JsonResult):
    position: int
    n_episodes: int
    accuracy: float
    ci_low: float | None
    ci_high: float | None
    n_invalid: int = 0


@dataclass(frozen=True)
class PositionCurve(JsonResult):
    # The values of the grouping fields shared by this curve's answers ({} = all answers).
    group: dict[str, str | None]
    confidence: float
    points: list[PositionPoint]
    n_answers: int = 0
    n_invalid: int = 0


def position_curve(
    answers: Iterable[PositionAnswer | Mapping[str, Any]],
    *,
    group: Mapping[str, str | None] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PositionCurve:
    """Mean score per position with a bootstrap CI; positions in increasing order."""
    by_position: dict[int, dict[str, float]] = defaultdict(dict)
    invalid: dict[int, int] = defaultdict(int)
    for answer in coerce_rows(PositionAnswer, answers):
        if answer.position < 1:
            raise ValueError(f"positions are 1-based, got {answer.position}")
        scores = by_position[answer.position]
        if answer.episode in scores:
            raise ValueError(f"episode {answer.episode!r} has two answers at {answer.position}")
        scores[answer.episode] = 0.0 if not answer.valid else float(answer.score)
        invalid[answer.position] += not answer.valid
    points = []
    for position in sorted(by_position):
        # Sorted by episode id so the resamples do not depend on input order.
        values = [score for _, score in sorted(by_position[position].items())]
        interval = bootstrap_mean_ci(values, n_boot=n_boot, seed=seed, confidence=confidence)
        points.append(
            PositionPoint(
                position=position,
                n_episodes=len(values),
                accuracy=float(np.mean(values)),
                ci_low=interval.low if interval else None,
                ci_high=interval.high if interval else None,
                n_invalid=invalid[position],
            )
        )
    return PositionCurve(
        group=dict(group or {}),
        confidence=confidence,
        points=points,
        n_answers=sum(point.n_episodes for point in points),
        n_invalid=sum(invalid.values()),
    )


def position_curves(
    answers: Iterable[PositionAnswer | Mapping[str, Any]],
    *,
    by: Sequence[GroupField] = ("salient_feature", "format"),
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[PositionCurve]:
    """One curve per combination of the ``by`` fields (``by=()`` gives the overall curve)."""
    groups: dict[tuple[str | None, ...], list[PositionAnswer]] = defaultdict(list)
    for answer in coerce_rows(PositionAnswer, answers):
        groups[tuple(getattr(answer, field) for field in by)].append(answer)
    return [
        position_curve(
            rows,
            group=dict(zip(by, key, strict=True)),
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
        )
        for key, rows in sorted(groups.items(), key=lambda kv: tuple(str(v) for v in kv[0]))
    ]
