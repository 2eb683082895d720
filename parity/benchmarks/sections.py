"""What a benchmark adds to a study's results, as typed records (`parity.records`): its own sections
of the breakdowns (`Benchmark.breakdowns`: by template, by position, ...) and its entries of the
results' top level (`Benchmark.headline_results`: AmbiBench's oracle by position).

Each benchmark declares its own subclasses in its package (`sections.py`) and names them
(`Benchmark.sections_type`, `Benchmark.headlines_type`), so that results written as JSON are read
back into them. These bases hold nothing: a benchmark without sections of its own writes none."""

from __future__ import annotations

from dataclasses import dataclass

from ..records import Record


@dataclass(frozen=True)
class Sections(Record):
    """A benchmark's own sections of the breakdowns, each a field written under its name."""


@dataclass(frozen=True)
class Headlines(Record):
    """A benchmark's own entries of the results' top level, each a field written under its name."""
