"""The layers declared in pyproject.toml hold: for imports (import-linter's contracts, which count
imports inside functions and under `if TYPE_CHECKING` too, each shown to fail on a probe that breaks
it) and for relations between models, which name their targets by string and so are no imports. No
module imports itself through others, and the code outside the library's benchmarks names none."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest
from django.apps import apps

from tests.paths import REPO

CONTRACTS = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_the_import_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def layer_rank() -> dict[str, int]:
    """Each app of the apps' layers contract, with its height (higher imports lower)."""
    layers = next(contract for contract in CONTRACTS if "containers" not in contract and contract["type"] == "layers")
    height = len(layers["layers"])
    return {name.strip(): height - index for index, layer in enumerate(layers["layers"]) for name in layer.split("|")}


def test_models_relate_only_to_their_own_layer_or_lower_ones() -> None:
    rank = layer_rank()
    upward = []
    for model in apps.get_models():
        here = model.__module__.split(".")[0]
        for field in model._meta.get_fields():
            if not field.is_relation or field.auto_created or field.related_model is None:
                continue
            there = field.related_model.__module__.split(".")[0]
            if here in rank and there in rank and there != here and rank[there] >= rank[here]:
                upward.append(f"{model.__name__}.{field.name} -> {field.related_model.__name__}")
    assert upward == []


def test_the_rank_reads_the_declared_layers() -> None:
    rank = layer_rank()
    assert rank["config"] > rank["api"] > rank["replication"] > rank["results"] == rank["participation"]
    assert rank["results"] > rank["prolific"] == rank["modelruns"]
    assert rank["modelruns"] > rank["studies"] > rank["annotation"] > rank["parity"]


def project_graph() -> grimp.ImportGraph:
    """The import graph of the project's packages (those of the contracts), every import counted:
    in functions and under `if TYPE_CHECKING` too."""
    packages = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    return grimp.build_graph(*packages, cache_dir=None)


def test_no_module_imports_itself_through_others() -> None:
    """No circle of imports between the project's modules: for each import A -> B, no chain leads from
    B back to A (the first circle found is named, module by module)."""
    graph = project_graph()
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            assert back is None, "import circle: " + " -> ".join((importer, *back))


def test_the_circle_check_names_a_circle() -> None:
    graph = project_graph()
    graph.add_import(importer="results.loading.columns", imported="results.computing.rows")
    back = graph.find_shortest_chain(importer="results.computing.rows", imported="results.loading.columns")
    assert back is not None and back[0] == "results.computing.rows" and back[-1] == "results.loading.columns"


def contract(starting: str) -> str:
    """The full name of the contract whose name starts so (the report prints it)."""
    return next(entry["name"] for entry in CONTRACTS if entry["name"].startswith(starting))


#: (where a probe module goes, what it imports, the contract it breaks)
PROBES = [
    ("results/loading/probe.py", "results.computing.tree", "Results flow one way"),
    ("results/computing/probe.py", "results.presenting.charts", "Results flow one way"),
    ("results/loading/probe.py", "results.presenting.tables", "Results flow one way"),
    ("results/probe.py", "api.reads", "Apps import downwards only"),
    ("studies/probe.py", "results.computing.assemble", "Apps import downwards only"),
    ("parity/stats/probe.py", "parity.benchmarks", "The library's benchmarks"),
    ("parity/probe.py", "django.db", "The library imports no Django"),
    ("studies/design/probe.py", "studies.participants.answers", "The studies app's wings"),
    ("studies/design/probe.py", "studies.preregistration.document", "The studies app's wings"),
    ("studies/preregistration/probe.py", "studies.setup.studies", "The studies app's wings"),
    ("studies/setup/probe.py", "studies.participants.entry", "The studies app's wings"),
    ("studies/participants/probe.py", "studies.workflow.views", "The studies app's wings"),
    ("api/probe.py", "studies.workflow.forms", "Only the studies app reaches"),
    # a module of the ground floor (the probe's import is added to it, then taken out)
    ("studies/selectors.py", "studies.participants.reads", "The studies app's wings"),
    ("studies/results_token.py", "studies.design.pay", "The studies app's wings"),
]


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(lint), "--no-cache"], cwd=tree, capture_output=True, text=True)


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's packages and pyproject.toml, copied where a probe may be written."""
    tree = tmp_path_factory.mktemp("tree")
    packages = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    for package in packages:
        shutil.copytree(REPO / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tree / "pyproject.toml")
    return tree


@pytest.mark.parametrize(("where", "imports", "starting"), PROBES)
def test_the_contracts_fail_on_a_probe_that_breaks_them(
    tree_copy: Path, where: str, imports: str, starting: str
) -> None:
    assert _lint(tree_copy).returncode == 0  # the copy keeps the contracts, as the tree does
    probe = tree_copy / where
    before = probe.read_text() if probe.exists() else None
    probe.write_text(f"{before or ''}\nimport {imports}\n")
    try:
        result = _lint(tree_copy)
    finally:
        if before is None:
            probe.unlink()
        else:
            probe.write_text(before)
    report = " ".join(result.stdout.split())  # the report wraps long names
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{contract(starting)} BROKEN" in report and "1 broken" in report, report
    probe_module = where.removesuffix(".py").replace("/", ".")
    assert f"{probe_module} -> {imports.split('.')[0]}" in report  # the report names the probe's import


def benchmark_names() -> set[str]:
    """Every benchmark's name and the name of its package under `parity/benchmarks/`."""
    from parity import benchmarks

    packages = {path.parent.name for path in (REPO / "parity" / "benchmarks").glob("*/__init__.py")}
    return set(benchmarks.REGISTRY) | packages


def names_a_benchmark(source: str, names: set[str]) -> list[str]:
    """Where a module's source names a benchmark in code: an import of a benchmark's package, or a
    string that is a benchmark's name (prose in comments and docstrings may give one as an example)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        for module in modules:
            parts = module.split(".")
            if parts[:2] == ["parity", "benchmarks"] and len(parts) > 2 and parts[2] in names:
                found.append(f"{node.lineno}: imports {module}")
        if isinstance(node, ast.Constant) and node.value in names:
            found.append(f"{node.lineno}: names {node.value!r}")
    return found


#: the code outside the library's benchmarks that still names one: the importer's own sources and the
#: model-run services of the harness, of Inspect and of the written instructions
NAMES_A_BENCHMARK_STILL = {
    "annotation/management/commands/import_benchmark.py",
    "annotation/services.py",
    "modelruns/prompts.py",
    "modelruns/services_inspect.py",
    "modelruns/services_inspect_eval.py",
    "modelruns/services_instructions.py",
    "modelruns/services_lm_eval.py",
}


def test_nothing_outside_the_library_benchmarks_names_one() -> None:
    """The apps, the engine and the statistics ask a benchmark's definition; they never name one (the
    results, the API and the rest: none at all; a few modules listed above still do)."""
    names = benchmark_names()
    packages = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    roots = [REPO / package for package in packages if package != "parity"] + [REPO / "parity" / "engine"]
    found = [
        f"{path.relative_to(REPO)}:{where}"
        for root in [*roots, REPO / "parity" / "stats"]
        for path in sorted(root.rglob("*.py"))
        if "migrations" not in path.parts and str(path.relative_to(REPO)) not in NAMES_A_BENCHMARK_STILL
        for where in names_a_benchmark(path.read_text(), names)
    ]
    assert found == []


def test_the_benchmark_names_check_finds_a_name() -> None:
    named = (
        '"""MiQA\'s orders, in prose."""\nfrom parity.benchmarks.miqa import model\nif name == "ambibench":\n    pass\n'
    )
    assert names_a_benchmark(named, benchmark_names()) == [
        "2: imports parity.benchmarks.miqa",
        "2: imports parity.benchmarks.miqa.model",
        "3: names 'ambibench'",
    ]
