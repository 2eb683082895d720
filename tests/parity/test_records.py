"""Typed records written as JSON in field order and read back (`parity.records`): what a benchmark's
own sections of the results are made of."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from parity.benchmarks import REGISTRY
from parity.benchmarks.implicature.stats import ImplicatureBreakdown, TypeAccuracy
from parity.benchmarks.sections import Headlines, Sections
from parity.records import INLINE, OMIT_IF_NONE, Record


@dataclass(frozen=True)
class Agreement(Record):
    alpha: float | None
    percent: float | None


@dataclass(frozen=True)
class Entry(Record):
    run: int
    by_k: dict[str, float | None]
    agreement: Agreement | None = field(default=None, metadata=INLINE)


@dataclass(frozen=True)
class Accuracy(Record):
    all: float | None
    directions: dict[str, float | None] = field(metadata=INLINE)


@dataclass(frozen=True)
class Group(Record):
    model: str
    breakdown: ImplicatureBreakdown = field(metadata=INLINE)


@dataclass(frozen=True)
class Own(Sections):
    entries: list[Entry] | None = field(default=None, metadata=OMIT_IF_NONE)
    accuracy: Accuracy | None = field(default=None, metadata=OMIT_IF_NONE)


def _breakdown() -> ImplicatureBreakdown:
    return ImplicatureBreakdown(
        variant="ranking",
        per_template={1: 0.5, 2: 0.75},
        templates=[1, 2],
        mean=0.625,
        std=0.125,
        ddof=0,
        structured_templates=[1],
        natural_templates=[2],
        structured_mean=0.5,
        structured_std=None,
        natural_mean=0.75,
        natural_std=None,
        extra_templates=[],
        extra_mean=None,
        extra_std=None,
        per_type=[TypeAccuracy("generalised", 2, 0.5, None, {1: 0.5})],
    )


def test_a_record_is_written_in_field_order_with_inlined_keys_and_none_left_out() -> None:
    sections = Own(entries=[Entry(1, {"0": 0.5, "5": None}, Agreement(0.2, 0.9)), Entry(2, {})])
    assert json.dumps(sections.to_json()) == json.dumps(
        {"entries": [{"run": 1, "by_k": {"0": 0.5, "5": None}, "alpha": 0.2, "percent": 0.9}, {"run": 2, "by_k": {}}]}
    )
    assert Own().to_json() == {} and Sections().to_json() == {} and Headlines().to_json() == {}


def test_a_record_comes_back_from_its_json_with_its_types() -> None:
    sections = Own(
        entries=[Entry(1, {"0": 0.5}, Agreement(None, 0.9)), Entry(2, {"1": None})],
        accuracy=Accuracy(0.5, {"implies": 0.25, "implied-by": 0.75}),
    )
    written = json.loads(json.dumps(sections.to_json()))
    again = Own.from_json(written)
    assert again == sections and again.entries is not None and again.entries[1].agreement is None
    assert json.dumps(again.to_json()) == json.dumps(written)


def test_a_statistics_result_inlined_comes_back_with_its_integer_keys() -> None:
    group = Group("smollm2", _breakdown())
    written = json.loads(json.dumps(group.to_json()))
    assert list(written)[:3] == ["model", "variant", "per_template"]
    assert written["per_template"] == {"1": 0.5, "2": 0.75}
    again = Group.from_json(written)
    assert again == group and again.breakdown.per_type[0].per_template == {1: 0.5}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_benchmark_names_the_types_its_results_are_read_back_as(name: str) -> None:
    definition = REGISTRY[name]
    assert issubclass(definition.sections_type(), Sections) and issubclass(definition.headlines_type(), Headlines)
    assert definition.sections_type().from_json({}).to_json() == {}
