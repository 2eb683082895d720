"""The rules of docs/architecture.md that are not about imports (those are in tests/test_layers.py):
selectors only read; views, the API, commands and the admin never save a model by hand; tests mirror
the code; every file of a replication bundle has its row in the documented layout."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

from replication.parts import PARTS
from tests.paths import REPO

APPS = ["annotation", "studies", "modelruns", "prolific", "participation", "review", "results", "replication", "api"]

#: what a read never calls: a model's or a queryset's writes, and a response's cookie
WRITES = frozenset(
    {
        "save",
        "create",
        "update",
        "delete",
        "bulk_create",
        "bulk_update",
        "get_or_create",
        "update_or_create",
        "set_cookie",
    }
)


def calls(source: str, names: frozenset[str]) -> list[str]:
    """Where `source` calls a method of one of `names`, as "line: .name(" (on any object)."""
    return [
        f"{node.lineno}: .{node.func.attr}("
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names
    ]


def modules(where: str) -> list[Path]:
    return [path for app in APPS for path in sorted((REPO / app).rglob(where)) if "migrations" not in path.parts]


def test_the_write_check_finds_a_write() -> None:
    source = "def f(study, response):\n    study.save()\n    response.set_cookie('x', 1)\n    return study.name\n"
    assert calls(source, WRITES) == ["2: .save(", "3: .set_cookie("]


def test_selectors_only_read() -> None:
    found = [
        f"{path.relative_to(REPO)}:{where}"
        for path in [*modules("selectors*.py"), *modules("selectors/*.py")]
        for where in calls(path.read_text(), WRITES)
    ]
    assert found == []


def test_views_the_api_commands_and_the_admin_never_save_by_hand() -> None:
    """They call services, which save."""
    doors = [*modules("views.py"), *modules("admin.py"), *modules("management/commands/*.py"), *modules("api/*.py")]
    found = [
        f"{path.relative_to(REPO)}:{where}" for path in doors for where in calls(path.read_text(), frozenset({"save"}))
    ]
    assert found == []


#: folders of tests that follow a reader through several apps, not one package
CROSSING = frozenset({"browser"})
#: packages of the code that hold no module of their own to test, or are Django's own places
NOT_MIRRORED = frozenset({"migrations", "management", "commands", "templatetags"})
#: a package tested only through its one reader: the library's reporting texts are the checklist's
#: and the methods' (tests/results/computing/test_checklist*.py hold every entry to the records)
TESTED_THROUGH_ITS_READER = frozenset({"parity/reporting"})


def _packages(root: Path, tops: Iterable[str]) -> set[str]:
    return {
        init.parent.relative_to(root).as_posix()
        for top in tops
        for init in (root / top).rglob("__init__.py")
        if not NOT_MIRRORED.intersection(init.parent.relative_to(root).parts)
    }


def test_the_tests_mirror_the_code_folder_by_folder() -> None:
    """Each folder of tests names a package of the code (tests/results/computing tests
    results/computing), and each app and each package directly inside an app or the library has its
    folder of tests, so that a reader finds a module's tests by its path."""
    tops = [*APPS, "parity"]
    tests = {path for path in _packages(REPO / "tests", ["."]) if path != "." and path.split("/")[0] not in CROSSING}
    code = _packages(REPO, tops)
    assert sorted(tests - code) == []
    wanted = {*tops} | {package for package in code if package.count("/") == 1}
    assert sorted(wanted - tests - TESTED_THROUGH_ITS_READER) == []


def test_every_file_of_a_bundle_has_its_row_in_the_documented_layout() -> None:
    layout = (REPO / "docs" / "replication.md").read_text().split("## The layout", 1)[1].split("\n## ", 1)[0]
    rows = {
        cell
        for line in layout.splitlines()
        if line.startswith("| `")
        for cell in re.findall(r"`([^`]+)`", line.split("|")[1])
    }
    assert [part.path for part in PARTS if part.path not in rows] == []


def test_the_hooks_registered_in_ready_are_the_documented_ones() -> None:
    """docs/architecture.md's table of what each app registers in its `AppConfig.ready()` lists every
    registration, each with the module whose hook it calls, and nothing else."""
    doc = (REPO / "docs" / "architecture.md").read_text().split("**What `ready()` wires.**", 1)[1]
    table = doc.split("\n| app |", 1)[1].split("\n\n", 1)[0]
    documented = {
        tuple(cell.strip().strip("`") for cell in line.strip("|").split("|"))
        for line in table.splitlines()[2:]
        if line.startswith("| `")
    }
    found = set()
    for app in APPS:
        apps_py = REPO / app / "apps.py"
        tree = ast.parse(apps_py.read_text())
        ready = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "ready"]
        for function in ready:
            imported = {
                alias.asname or alias.name: node.module
                for node in ast.walk(function)
                if isinstance(node, ast.ImportFrom)
                for alias in node.names
            }
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and "register" in node.func.id:
                    found.add((app, node.func.id, imported.get(node.func.id)))
    assert found == documented
