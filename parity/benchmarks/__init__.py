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
  `parity.stats`, as the typed records its `sections.py` declares (`parity.benchmarks.sections`:
  written as JSON and read back by `parity.records`); the results page draws each section it knows
  by the section's field name (`Breakdowns.section`).

The apps, the engine and the results look a benchmark up by the `benchmark` CharField of a study
or item and never name one. Adding a benchmark is one package, its line in `_PACKAGES` here and its
tests (`tests/parity/benchmarks/test_registry_shape.py` checks the shape).
"""

from __future__ import annotations

import threading
from importlib import import_module
from typing import TYPE_CHECKING, Any

from .base import Benchmark, DatasetError, ImportBundle, ItemData, Scored, SourceFile

if TYPE_CHECKING:
    #: every benchmark by its key, filled when first read (`__getattr__` below)
    REGISTRY: dict[str, Benchmark]

# Each benchmark's key (its package's name), title and class. The packages are imported when the registry is first
# read; the keys and titles are the `benchmark` fields' choices, which Django reads (and `manage.py
# check` validates) at every start: copied here, they cost no import of six benchmarks' prompts, word
# lists and generators. `tests/parity/benchmarks/test_registry_shape.py` holds them equal to the classes'.
_PACKAGES = (
    ("implicature", "Conversational implicature (Ruis et al.)", "Implicature"),
    ("ambibench", "AmbiBench: task ambiguity (Tamkin et al.)", "AmbiBench"),
    ("miqa", "MiQA: metaphorical inference (Comsa et al.)", "MiQA"),
    ("instruction_induction", "Instruction induction (Honovich et al.)", "InstructionInduction"),
    ("miqa_rating", "MiQA generative answers, rated (Comsa et al.)", "MiQARating"),
    ("custom", "Your own items (CSV or JSONL)", "CustomItems"),
)
_registry: dict[str, Benchmark] = {}
_loading = threading.Lock()
_filled = False


def register(benchmark: Benchmark) -> Benchmark:
    if benchmark.name in _registry:
        raise ValueError(f"benchmark {benchmark.name!r} is registered twice")
    _registry[benchmark.name] = benchmark
    return benchmark


def _loaded() -> dict[str, Benchmark]:
    global _filled
    if not _filled:
        # two threads of a server may read it first at once: one fills it
        with _loading:
            if not _filled:
                for package, _title, class_name in _PACKAGES:
                    register(getattr(import_module(f"{__name__}.{package}"), class_name)())
                _filled = True
    return _registry


def __getattr__(name: str) -> Any:
    if name == "REGISTRY":
        return _loaded()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get(name: str) -> Benchmark:
    try:
        return _loaded()[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(sorted(_loaded()))}") from None


def choices() -> list[tuple[str, str]]:
    """Every benchmark's key and title, without importing the benchmarks."""
    return sorted((name, title) for name, title, _class in _PACKAGES)


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
