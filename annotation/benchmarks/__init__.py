"""One registry for benchmarks (pure Python: no Django import).

Every benchmark module defines a `Benchmark` subclass and is registered here under its key; the
apps, the engine and the stats look a benchmark up by the `benchmark` CharField of a study or item.
"""

from __future__ import annotations

from .base import Benchmark, DatasetError, ImportBundle, ItemData, Scored, SourceFile
from .ambibench import AmbiBench
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

__all__ = ["Benchmark", "DatasetError", "ImportBundle", "ItemData", "Scored", "SourceFile", "REGISTRY", "register", "get", "choices"]
