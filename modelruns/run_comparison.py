"""Two runs' stored answers side by side, item by item: whether a run scored by several workers
(containers, machines) gave what one worker gave (`manage.py compare_runs`, scripts/container-check)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from modelruns.models import ModelResponse, ModelRun, ModelShard

#: the largest difference of two scores still counted as the same number (log-probs, metrics)
DEFAULT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class StoredAnswer:
    """What one run stored for one item (and variant)."""

    raw_answer: str
    answer: str
    valid: bool
    correct: bool
    scores: dict[str, Any]


@dataclass(frozen=True)
class ItemComparison:
    """One item's answers in the two runs; None where a run has no answer for it."""

    item_key: str
    variant: str
    left: StoredAnswer | None
    right: StoredAnswer | None
    #: the largest difference between the two runs' numeric scores (0.0 when one is missing)
    score_difference: float
    #: what differs beyond the tolerance, e.g. ("answer", "scores.loglik.Sydney"); empty when the same
    differences: tuple[str, ...]

    @property
    def same(self) -> bool:
        return not self.differences


@dataclass(frozen=True)
class RunComparison:
    left_run: int
    right_run: int
    tolerance: float
    items: tuple[ItemComparison, ...]

    @property
    def different(self) -> tuple[ItemComparison, ...]:
        return tuple(item for item in self.items if not item.same)

    @property
    def same(self) -> bool:
        return bool(self.items) and not self.different

    @property
    def largest_score_difference(self) -> float:
        return max((item.score_difference for item in self.items), default=0.0)


def _stored(run: ModelRun) -> dict[tuple[str, str], StoredAnswer]:
    responses = ModelResponse.objects.filter(run=run).select_related("item").order_by("item__key", "variant")
    return {
        (response.item.key, response.variant): StoredAnswer(
            raw_answer=response.raw_answer,
            answer=response.answer,
            valid=response.valid,
            correct=response.correct,
            scores=response.scores,
        )
        for response in responses
    }


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """The scores' leaves with their dotted paths (nested dicts and lists)."""
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            yield from _leaves(value[key], f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, element in enumerate(value):
            yield from _leaves(element, f"{path}.{index}")
    else:
        yield path, value


def _number(value: Any) -> float | None:
    """The value as a float when it is a number (not a bool), else None."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _score_differences(left: dict[str, Any], right: dict[str, Any], tolerance: float) -> tuple[float, list[str]]:
    left_leaves, right_leaves = dict(_leaves(left, "scores")), dict(_leaves(right, "scores"))
    largest, differing = 0.0, []
    for path in sorted(left_leaves.keys() | right_leaves.keys()):
        a, b = left_leaves.get(path), right_leaves.get(path)
        x, y = _number(a), _number(b)
        if x is not None and y is not None:
            if math.isnan(x) and math.isnan(y):
                continue
            gap = abs(x - y)
            if math.isnan(gap) or gap > tolerance:
                differing.append(path)
            if not math.isnan(gap):
                largest = max(largest, gap)
        elif a != b or (path in left_leaves) != (path in right_leaves):
            differing.append(path)
    return largest, differing


def _compare_item(
    key: tuple[str, str], left: StoredAnswer | None, right: StoredAnswer | None, tolerance: float
) -> ItemComparison:
    if left is None or right is None:
        missing = "left run" if left is None else "right run"
        return ItemComparison(key[0], key[1], left, right, 0.0, (f"no answer in the {missing}",))
    differences = [
        field for field in ("raw_answer", "answer", "valid", "correct") if getattr(left, field) != getattr(right, field)
    ]
    largest, scores = _score_differences(left.scores, right.scores, tolerance)
    return ItemComparison(key[0], key[1], left, right, largest, tuple(differences + scores))


def runs_compare(left: ModelRun, right: ModelRun, *, tolerance: float = DEFAULT_TOLERANCE) -> RunComparison:
    """The two runs' stored answers, item by item (by item key and variant): the same when every
    item has an answer in both, with the same raw and normalised answer, validity and correctness,
    and scores the same up to `tolerance`."""
    lefts, rights = _stored(left), _stored(right)
    items = tuple(
        _compare_item(key, lefts.get(key), rights.get(key), tolerance) for key in sorted(lefts.keys() | rights.keys())
    )
    return RunComparison(left_run=left.pk, right_run=right.pk, tolerance=tolerance, items=items)


def shards_by_host(run: ModelRun) -> dict[str, int]:
    """How many of the run's finished shards each host scored (a worker's name is host:pid:task)."""
    hosts: dict[str, int] = {}
    for worker in run.shards.filter(status=ModelShard.Status.DONE).order_by("index").values_list("worker", flat=True):
        host = worker.split(":", 1)[0]
        hosts[host] = hosts.get(host, 0) + 1
    return hosts
