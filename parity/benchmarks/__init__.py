"""One registry for benchmarks (pure Python: no Django import).

Every benchmark is a package `parity/benchmarks/<key>/` of the same shape, registered here
under its key:

- `benchmark.py`: the `Benchmark` subclass: data in, the human side (screen, parsing, scoring),
  units, and the registry hooks the apps ask (category field, answer scale, design options, demo,
  published human study);
- `model.py`: the model side (settings, requests to the engine, answers from its results);
- `prompts.py`: what people and models read;
- `results.py`: its own sections of the results (the papers' breakdowns), computed with its own
  statistics (e.g. `ambibench/oracle.py`, `implicature/stats.py`) and the general ones in
  `parity.stats`; the results page draws each section it knows by the section's name.

The apps, the engine and the results look a benchmark up by the `benchmark` CharField of a study
or item and never name one. Adding a benchmark is one package, one `register` line here and its
tests (`tests/benchmarks/test_registry_shape.py` checks the shape).
"""

from __future__ import annotations

from .ambibench import AmbiBench
from .base import Benchmark, DatasetError, ImportBundle, ItemData, Scored, SourceFile
from .custom import CustomItems
from .implicature import Implicature
from .instruction_induction import InstructionInduction
from .miqa import MiQA
from .miqa_rating import MiQARating

REGISTRY: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    if benchmark.name in REGISTRY:
        raise ValueError(f"benchmark {benchmark.name!r} is registered twice")
    REGISTRY[benchmark.name] = benchmark
    return benchmark


def get(name: str) -> Benchmark:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(sorted(REGISTRY))}") from None


def choices() -> list[tuple[str, str]]:
    return [(name, benchmark.title) for name, benchmark in sorted(REGISTRY.items())]


register(Implicature())
register(AmbiBench())
register(MiQA())
register(InstructionInduction())
register(MiQARating())
register(CustomItems())

__all__ = [
    "Benchmark",
    "DatasetError",
    "ImportBundle",
    "ItemData",
    "Scored",
    "SourceFile",
    "REGISTRY",
    "register",
    "get",
    "choices",
]
