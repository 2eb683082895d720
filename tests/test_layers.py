"""Imports run one way: pure packages → items → studies → model runs → results → project.

Every module of the apps is parsed (not imported), and every import counts: at the top, inside
functions, under `try`, under `if TYPE_CHECKING`; so do `importlib.import_module("...")` and
`include("...")` with a literal name, and the string targets of relations
(`ForeignKey("studies.Participant")` names `studies.models`). Migrations are history and are not
read: they keep the labels models had when they were written.

A lower layer importing a higher one fails, naming the module and the import; so do two layers that
import each other, and so does a pure package that imports Django or an app.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("annotation", "studies", "modelruns", "config")


@dataclass(frozen=True)
class Layer:
    name: str
    prefixes: tuple[str, ...]
    may_import: tuple[str, ...]
    pure: bool = False


#: The layer table, lowest first. A module belongs to the layer with the longest matching prefix;
#: a layer may import itself and the layers it lists, nothing else.
LAYERS: tuple[Layer, ...] = (
    # pure Python (torch lazily): batching, scoring, generation; never names a benchmark
    Layer("engine", ("modelruns.engine",), (), pure=True),
    # pure statistics: accuracy, CIs, agreement, oracle
    Layer("stats", ("studies.stats",), (), pure=True),
    # pure benchmark packages; their model side builds the engine's request types and their own
    # statistics use the shared ones (one way: the engine and the stats never import a benchmark)
    Layer("benchmarks", ("annotation.benchmarks",), ("engine", "stats"), pure=True),
    # items and benchmark assets, the benchmark import, the item admin
    Layer("items", ("annotation",), ("benchmarks", "engine", "stats")),
    # studies, units, participants, answers, the participant pages, the researcher admin
    Layer("studies", ("studies",), ("items", "benchmarks", "engine", "stats")),
    # model specs, runs, model answers, background tasks
    Layer("modelruns", ("modelruns",), ("studies", "items", "benchmarks", "engine", "stats")),
    # what reads humans and models together: results pages, exports, the API, the demo
    Layer("results", (
        "studies.results", "studies.api", "studies.exports", "studies.demo",
        "studies.management.commands.export_results", "studies.management.commands.study_results",
        "studies.management.commands.setup_demo",
    ), ("modelruns", "studies", "items", "benchmarks", "engine", "stats")),
    # settings and the root URLconf put the apps together
    Layer("project", ("config",), ("results", "modelruns", "studies", "items", "benchmarks", "engine", "stats")),
)
BY_NAME = {layer.name: layer for layer in LAYERS}
#: what a pure package may not import besides the apps
FRAMEWORKS = ("django", "rest_framework", "drf_spectacular", "knox", "axes")
RELATIONS = {"ForeignKey", "ManyToManyField", "OneToOneField"}
LOADERS = {"import_module", "include"}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # what it imports (a module, or a module's attribute)
    line: int
    text: str  # the statement as written, for the failure message

    def __str__(self) -> str:
        return f"{self.module} (line {self.line}): {self.text}"


def layer_of(dotted: str) -> Layer | None:
    best: tuple[int, Layer] | None = None
    for layer in LAYERS:
        for prefix in layer.prefixes:
            if (dotted == prefix or dotted.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), layer)
    return best[1] if best else None


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def app_modules(root: Path) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.relative_to(root).parts:
                continue
            found[module_name(path, root)] = path
    return found


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _relation_target(node: ast.Call) -> str | None:
    """`ForeignKey("studies.Participant")` → "studies.models"; a bare model name stays in its app."""
    target = _literal(node.args[0]) if node.args else None
    for keyword in node.keywords:
        if keyword.arg == "to":
            target = _literal(keyword.value)
    if target is None or target.count(".") != 1:
        return None
    return f"{target.split('.')[0]}.models"


def imports_of(module: str, path: Path) -> list[Import]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []

    def add(node: ast.AST, target: str) -> None:
        text = (ast.get_source_segment(source, node) or target).splitlines()[0]
        found.append(Import(module, target, node.lineno, text))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(node, alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                add(node, f"{base}.{alias.name}" if alias.name != "*" else base)
        elif isinstance(node, ast.Call):
            callee = _callee(node)
            if callee in RELATIONS and (target := _relation_target(node)):
                add(node, target)
            elif callee in LOADERS and node.args and (target := _literal(node.args[0])):
                add(node, target)
    return found


@functools.cache
def all_imports(root: Path = ROOT) -> list[Import]:
    return [found for module, path in app_modules(root).items() for found in imports_of(module, path)]


def layer_violations(imports: list[Import]) -> list[str]:
    problems: set[str] = set()
    for found in imports:
        source, target = layer_of(found.module), layer_of(found.target)
        if source is None:
            continue
        top = found.target.split(".")[0]
        if source.pure and (top in FRAMEWORKS or top.startswith("django_")):
            problems.add(f"pure package {source.name!r} imports a framework: {found}")
        if target is None or target is source:
            continue
        if target.name not in source.may_import:
            problems.add(f"layer {source.name!r} imports layer {target.name!r}: {found}")
    return sorted(problems)


def layer_cycles(imports: list[Import]) -> list[str]:
    """Two layers that import each other, with one import each way."""
    edges: dict[tuple[str, str], Import] = {}
    for found in imports:
        source, target = layer_of(found.module), layer_of(found.target)
        if source and target and source is not target:
            edges.setdefault((source.name, target.name), found)
    return [f"layers {a!r} and {b!r} import each other: {edges[a, b]} / {edges[b, a]}"
            for a, b in sorted(edges) if a < b and (b, a) in edges]


def module_cycles(imports: list[Import], modules: set[str]) -> list[str]:
    """Modules that import each other, directly or round a loop."""
    graph: dict[str, set[str]] = defaultdict(set)
    for found in imports:
        target = found.target if found.target in modules else found.target.rpartition(".")[0]
        if target in modules and target != found.module:
            graph[found.module].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return [" ↔ ".join(loop) for loop in sorted(loops)]


def test_every_app_module_has_a_layer():
    assert [module for module in app_modules(ROOT) if layer_of(module) is None] == []


def test_no_layer_imports_a_higher_one_and_pure_packages_import_no_django():
    problems = layer_violations(all_imports())
    assert problems == [], "\n".join(problems)


def test_no_two_layers_import_each_other():
    problems = layer_cycles(all_imports())
    assert problems == [], "\n".join(problems)


def test_no_modules_import_each_other():
    problems = module_cycles(all_imports(), set(app_modules(ROOT)))
    assert problems == [], "\n".join(problems)


def test_the_checks_see_deferred_guarded_and_string_imports(tmp_path):
    """A deferred import, one behind `try/except ImportError` and a string relation each count."""
    (tmp_path / "studies" / "stats").mkdir(parents=True)
    (tmp_path / "annotation").mkdir()
    (tmp_path / "studies" / "stats" / "__init__.py").write_text("def f():\n    from django.db import models\n")
    (tmp_path / "annotation" / "models.py").write_text(
        "try:\n    import modelruns.models\nexcept ImportError:\n    pass\n"
        "response = ForeignKey('studies.Response', on_delete=None)\n")
    (tmp_path / "studies" / "models.py").write_text("def g():\n    from annotation import models\n")
    imports = all_imports(tmp_path)
    assert layer_violations(imports) == [
        "layer 'items' imports layer 'modelruns': annotation.models (line 2): import modelruns.models",
        "layer 'items' imports layer 'studies': annotation.models (line 5): "
        "ForeignKey('studies.Response', on_delete=None)",
        "pure package 'stats' imports a framework: studies.stats (line 2): from django.db import models",
    ]
    assert layer_cycles(imports) == [
        "layers 'items' and 'studies' import each other: annotation.models (line 5): ForeignKey('studies.Response', "
        "on_delete=None) / studies.models (line 2): from annotation import models",
    ]
    assert module_cycles(imports, set(app_modules(tmp_path))) == ["annotation.models ↔ studies.models"]


#: where an import of the project may wait for its first use: the pure engine loads its parts lazily
LAZY = ("modelruns.engine",)


def deferred_project_imports(root: Path = ROOT) -> list[str]:
    """Imports of project modules inside a function: each app module names what it uses at its top,
    so no import hides a cycle. Third-party modules (torch, transformers, django_tasks, pyarrow) may
    wait for their first use; so may anything inside the engine."""
    problems = []
    for module, path in app_modules(root).items():
        if any(module == lazy or module.startswith(lazy + ".") for lazy in LAZY):
            continue
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(path))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    targets = ["." if node.level else node.module or ""]
                else:
                    continue
                if any(target == "." or target.split(".")[0] in PACKAGES for target in targets):
                    text = (ast.get_source_segment(source, node) or "").splitlines()[0]
                    problems.append(f"{module} (line {node.lineno}): {text}")
    return sorted(set(problems))


def test_app_modules_import_the_project_at_their_top():
    problems = deferred_project_imports()
    assert problems == [], "\n".join(problems)


def test_the_check_sees_a_deferred_project_import(tmp_path):
    (tmp_path / "studies").mkdir()
    (tmp_path / "modelruns" / "engine").mkdir(parents=True)
    (tmp_path / "studies" / "demo.py").write_text(
        "import json\n\ndef f():\n    import torch\n    from studies.services import study_create\n")
    (tmp_path / "modelruns" / "engine" / "engine.py").write_text("def g():\n    from .seq2seq import score_pairs\n")
    assert deferred_project_imports(tmp_path) == [
        "studies.demo (line 5): from studies.services import study_create"]
