"""Adding a benchmark is one package plus its tests: every registered benchmark is a package of the
same shape, and the apps ask the registry instead of naming a benchmark."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from parity.benchmarks import REGISTRY, base, choices
from tests.paths import REPO

ROOT = REPO
#: the modules of every benchmark package: the definition and the human side, the model side, what
#: people and models read, and its own statistics and breakdowns of the results
MODULES = ("benchmark", "model", "prompts", "results")
#: the registry hooks the apps and the results code ask instead of naming a benchmark
HOOKS = (
    "category_field",
    "category_of",
    "answer_scale",
    "graded_subject",
    "breakdowns",
    "headline_results",
    "design_assets",
    "resolve_design",
    "demo",
    "published_study_name",
    "read_published_study",
    "executes_instructions",
    "rating_benchmark",
)
#: the apps that must never name a benchmark (migrations and tests may)
APPS = ("studies", "modelruns")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_benchmark_is_a_package_of_the_same_shape(name: str) -> None:
    definition = REGISTRY[name]
    package = importlib.import_module(f"parity.benchmarks.{name}")
    assert hasattr(package, "__path__"), f"{name} is a module, not a package"
    assert type(definition).__module__ == f"parity.benchmarks.{name}.benchmark"
    folder = ROOT / "parity" / "benchmarks" / name
    missing = [module for module in MODULES if not (folder / f"{module}.py").is_file()]
    assert not missing, f"{name} lacks {', '.join(missing)}"
    results = importlib.import_module(f"parity.benchmarks.{name}.results")
    assert callable(results.breakdowns)
    # the definition answers the results' question from its own package
    assert type(definition).breakdowns is not base.Benchmark.breakdowns
    assert all(hasattr(definition, hook) for hook in HOOKS)
    assert definition.category_field is None or isinstance(definition.category_field, str)
    assert all(isinstance(value, float) for value in definition.answer_scale.values())
    assert definition.demo is None or isinstance(definition.demo, base.DemoSetup)
    assert not definition.rating_benchmark or definition.rating_benchmark in REGISTRY


def _app_sources() -> list[Path]:
    return sorted(path for app in APPS for path in (ROOT / app).rglob("*.py") if "migrations" not in path.parts)


def test_the_apps_never_name_a_benchmark() -> None:
    keys = set(REGISTRY)
    named = []
    for path in _app_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in keys:
                named.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert not named, "benchmark names in the apps (ask the registry instead):\n" + "\n".join(named)


def test_the_choices_are_the_registered_benchmarks_keys_and_titles() -> None:
    # the choices are read without importing the benchmarks: a copy of each one's key and title
    assert choices() == sorted((definition.name, definition.title) for definition in REGISTRY.values())
